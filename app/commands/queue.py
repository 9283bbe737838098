"""Taking messages back out of pi's queue: into the prompt editor (Alt+Up, and Esc before
it aborts) or into the queue editor (F5, `/queue` in `app/commands/run.py`), which sends
them back in order.

pi's `clear_queue` returns the queued texts only; `Attachments` gives back the images
pideck queued with them.
"""

from __future__ import annotations

from app.commands.context import CommandContext
from protocol.wire.client import RpcDataError, RpcError
from protocol.wire.commands import ClearQueue, Prompt
from protocol.wire.responses import QueueContents
from widgets.screens.queue_editor import QueueEditor, QueueItem


async def take_queue(ctx: CommandContext) -> list[QueueItem]:
    """Empty pi's queue (`clear_queue`); its messages, steering first, as pi delivers them."""
    cleared: QueueContents = await ctx.pi.client.call(ClearQueue())
    return [
        *(QueueItem("steer", text, ctx.attachments.queued_images(text)) for text in cleared.steering),
        *(QueueItem("follow_up", text, ctx.attachments.queued_images(text)) for text in cleared.follow_up),
    ]


async def put_in_editor(ctx: CommandContext, items: list[QueueItem]) -> None:
    """The items' texts into the prompt editor, before what it holds; their images as chips."""
    texts = [item.text for item in items if item.text.strip()]
    if texts:
        ctx.screen.editor.put_before(texts)
    for item in items:
        await ctx.attachments.restore(item.images)


async def _take_or_say(ctx: CommandContext, failed: str, empty: str) -> list[QueueItem]:
    """`take_queue`, or no items after a toast: `failed` titles pi's error, `empty` says none were queued."""
    if not ctx.pi.client.running:
        return []
    try:
        items = await take_queue(ctx)
    except RpcError as exc:
        ctx.fail(str(exc), title=failed)
        return []
    if not items:
        ctx.say(empty)
    return items


async def restore_queue(ctx: CommandContext) -> None:
    """Alt+Up (pi's dequeue): the queued messages back into the editor; the run goes on."""
    items = await _take_or_say(ctx, "could not take the queue back", "Nothing is queued.")
    if items:
        await put_in_editor(ctx, items)


async def edit_queue(ctx: CommandContext, args: str = "") -> None:
    """Take the queue out of pi, let the user edit it, send it back (the originals on Esc).

    Runs in a worker (it waits for the editor screen).
    """
    items = await _take_or_say(
        ctx, "could not take the queue", "Nothing is queued: Enter while pi works steers, Alt+Enter queues a follow-up."
    )
    if not items:
        return
    edited = await ctx.ask(QueueEditor(items))
    await requeue(ctx, items if edited is None else edited)


async def requeue(ctx: CommandContext, items: list[QueueItem]) -> None:
    """Send the items back in order, each as what it is (steering or follow-up).

    Each is a `prompt` with its `streamingBehavior`, as Enter sends a steer while pi
    works: pi queues it into the run, or starts a run with it once the run has ended (it
    may end while the queue editor is open, or just before an item arrives, when pideck
    has not read its `agent_end` yet). `steer` and `follow_up` would only queue, and in an
    idle pi nothing delivers that queue. If pi refuses one, it and every item after it go
    into the prompt editor, so nothing is lost.
    """
    for position, item in enumerate(items):
        behavior = "steer" if item.kind == "steer" else "followUp"
        command = Prompt(message=item.text, images=item.images or None, streaming_behavior=behavior)
        try:
            await ctx.pi.client.call(command)
        except RpcDataError as exc:  # queued; only pi's answer could not be read
            ctx.pi.problems.bad_answer(exc)
        except RpcError as exc:
            await put_in_editor(ctx, items[position:])
            ctx.fail(f"{exc}\nThe messages not queued again are in the editor.", title="pi refused a queued message")
            return
        if item.images:
            ctx.attachments.remember_queued(item.text, item.images)
