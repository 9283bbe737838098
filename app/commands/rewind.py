"""`/rewind`: back to before one of the session's user messages, conversation and files.

pi forks from just before the message (as /fork; its text comes back to the editor), and
every file an edit, write or bash command changed after it is put back as it was then, from
pideck's checkpoints (app/pi/file_reverts.py; on pi's host when pi runs over ssh). A file that changed since pi left it is shown with its
three versions and written only if the user says so; one pideck has no copy of is left
as it is, and said so. `/rewind undo` puts the files back and returns to the session the
rewind left, once.
"""

from __future__ import annotations

import asyncio
import os

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded
from protocol.wire.commands import Fork, GetEntries, GetForkMessages, SwitchSession
from protocol.state.reverts import Plan
from protocol.state.rewind import rewind_points
from widgets.screens.revert_dialog import RewindConfirm, RewindDialog
from widgets.screens.rewind_picker import RewindChoice, RewindPicker
from widgets.text.safe import clean
from widgets.screens.session_picker import one_line

TITLE = "/rewind"


def _idle(ctx: CommandContext) -> bool:
    if ctx.pi.model.running or ctx.pi.model.steering or ctx.pi.model.follow_up:
        ctx.warn("pi is working: press Esc to stop it first, then /rewind again.", title="/rewind not now")
        return False
    return True


@guarded("/rewind failed")
async def rewind(ctx: CommandContext, args: str) -> None:
    if not _idle(ctx):
        return
    if args.strip() == "undo":
        await _undo(ctx)
        return
    reverts = ctx.pi.reverts
    messages = await ctx.pi.client.call(GetForkMessages())
    listing = await ctx.pi.client.call(GetEntries())
    points = rewind_points(listing.entries, listing.leaf_id, messages.messages)
    if not points:
        ctx.say("There is no user message to rewind to yet.")
        return
    reverts.session_entries(listing.entries)

    def plan_all() -> list[list[Plan]]:
        reverts.prefetch([call.key for call in points[0].calls])  # each point's calls are the first's last ones
        current: dict[str, bytes | None | OSError] = {}  # the files, read once (over ssh: one connection)
        return [reverts.plan_calls(point.calls, current) for point in points]

    plans = await asyncio.to_thread(plan_all)  # reads every file changed since the first message
    choices = [RewindChoice(point.entry_id, point.text, sum(1 for p in each if not p.problem and p.lines),
                            sum(1 for p in each if p.problem)) for point, each in zip(points, plans)]
    entry_id = await ctx.ask(RewindPicker(choices))
    if entry_id is None:
        return
    index = next(i for i, point in enumerate(points) if point.entry_id == entry_id)
    chosen, point = plans[index], points[index]
    inexact = [plan for plan in chosen if plan.problem]
    writes = []
    for plan in chosen:
        if plan.problem or not plan.lines:
            continue
        if plan.conflict is not None and not await ctx.ask(RewindDialog(plan)):
            inexact.append(Plan(plan.path, plan.label, plan.what, plan.old, plan.old, problem="left as it is, as asked"))
            continue
        writes.append(plan)
    summary = Plan("", f"{len(writes)} file{'s' * (len(writes) != 1)}", "to before the message", None, None,
                   lines=[line for plan in writes for line in (f"@@ {plan.label} @@", *plan.lines)])
    title = f"Rewind to before “{one_line(point.text)[:60]}”: pi forks from just before it"
    if not await ctx.ask(RewindConfirm(summary, title=title)):
        return
    state = ctx.pi.model.state
    session_file = state.session_file if state is not None else None
    result = await ctx.pi.client.call(Fork(entry_id=entry_id))
    if result.cancelled:
        ctx.warn("An extension cancelled the fork (session_before_fork): no file was changed.", title=TITLE)
        return
    failed = await asyncio.to_thread(reverts.rewind, writes, session_file)  # on pi's host: over ssh
    await ctx.pi.reload()
    await ctx.pi.load_commands()
    if result.text:
        ctx.screen.editor.put_before([result.text])
    notes = [f"{clean(plan.label)}: {clean(plan.problem)}" for plan in inexact] + [clean(f) for f in failed]
    left = f" Not put back: {'; '.join(notes)}." if notes else ""
    (ctx.warn if notes else ctx.say)(f"Rewound: {len(writes) - len(failed)} file(s) put back; the message is back in "
                                      f"the editor; /rewind undo takes it back.{left}", title=TITLE)


async def _undo(ctx: CommandContext) -> None:
    reverts = ctx.pi.reverts
    try:
        rewound, left = await asyncio.to_thread(reverts.undo_rewind)
    except ValueError as exc:
        ctx.say(f"Nothing undone: {exc}.", title=TITLE)
        return
    back = ""
    if rewound.session_file is not None and (ctx.pi.config.remote is not None or os.path.exists(rewound.session_file)):
        result = await ctx.pi.client.call(SwitchSession(session_path=rewound.session_file))
        if not result.cancelled:
            await ctx.pi.reload()
            await ctx.pi.load_commands()
            back = " and the session is the one before the rewind"
    else:
        back = " (the session before it had no file: the conversation stays where the rewind put it)"
    kept = f" Left as they are: {'; '.join(clean(line) for line in left)}." if left else ""
    (ctx.warn if left else ctx.say)(f"Undid the rewind: files put back{back}.{kept}", title=TITLE)


COMMANDS = (
    SlashCommand("rewind", "Back to before a message: pi forks there and the files changed since are put back "
                 "(/rewind undo takes it back)", rewind, usage="[undo]"),
)
