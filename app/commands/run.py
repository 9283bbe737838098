"""`/compact`, queue delivery modes, the queue editor (`/queue`), auto-compaction,
auto-retry, aborting a retry, and `/restart` (pi started again after it exited).

Progress of a compaction is shown by the transcript banner and the status line (from
pi's `compaction_start` / `compaction_end` events); the command adds the result toast.
pi's `get_state` reports auto-compaction but not auto-retry, so pideck only knows the
auto-retry setting once it has set it (`SessionModel.auto_retry`).
"""

from __future__ import annotations

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded, parse_on_off, refresh_state
from app.commands.queue import edit_queue
from protocol.wire.commands import (
    AbortRetry,
    Compact,
    QueueMode,
    SetAutoCompaction,
    SetAutoRetry,
    SetFollowUpMode,
    SetSteeringMode,
)
from protocol.wire.events import CompactionResult
from protocol.state.formatting import on_off
from protocol.state.session_model import compaction_outcome


MODES: dict[str, QueueMode] = {"all": "all", "one-at-a-time": "one-at-a-time", "one": "one-at-a-time"}


@guarded("/compact failed")
async def compact_command(ctx: CommandContext, args: str) -> None:
    if ctx.pi.model.compaction is not None:
        ctx.say("A compaction is already running.", title="/compact")
        return
    ctx.say("Compacting the context…", title="/compact")
    result: CompactionResult = await ctx.pi.client.call(Compact(custom_instructions=args or None))
    await refresh_state(ctx)
    ctx.say(f"Context compacted: {compaction_outcome(result)}", title="/compact")


def _mode(args: str, current: str) -> QueueMode | None:
    if not args:
        return "all" if current == "one-at-a-time" else "one-at-a-time"
    return MODES.get(args.strip().lower())


async def _set_mode(ctx: CommandContext, args: str, which: str) -> None:
    state = ctx.pi.model.state
    current = (state.steering_mode if which == "steering" else state.follow_up_mode) if state else "one-at-a-time"
    mode = _mode(args, current)
    if mode is None:
        ctx.fail(f"Unknown mode {args!r}: use all or one-at-a-time.", title=f"/{which}-mode")
        return
    await ctx.pi.client.call(SetSteeringMode(mode=mode) if which == "steering" else SetFollowUpMode(mode=mode))
    await refresh_state(ctx)
    ctx.say(f"{which.capitalize()} messages: delivered {mode}", title=f"/{which}-mode")


@guarded("/steering-mode failed")
async def steering_mode_command(ctx: CommandContext, args: str) -> None:
    await _set_mode(ctx, args, "steering")


@guarded("/follow-up-mode failed")
async def follow_up_mode_command(ctx: CommandContext, args: str) -> None:
    await _set_mode(ctx, args, "follow-up")


@guarded("/auto-compact failed")
async def auto_compact_command(ctx: CommandContext, args: str) -> None:
    state = ctx.pi.model.state
    enabled = parse_on_off(args) if args else not (state.auto_compaction_enabled if state else True)
    if enabled is None:
        ctx.fail(f"Say on or off, not {args!r}.", title="/auto-compact")
        return
    await ctx.pi.client.call(SetAutoCompaction(enabled=enabled))
    await refresh_state(ctx)
    ctx.say(f"Automatic compaction: {on_off(enabled)}", title="/auto-compact")


@guarded("/auto-retry failed")
async def auto_retry_command(ctx: CommandContext, args: str) -> None:
    known = ctx.pi.model.auto_retry
    enabled = parse_on_off(args) if args else (None if known is None else not known)
    if enabled is None:
        message = (f"Say on or off, not {args!r}." if args else
                   "pi does not report whether auto-retry is on: use /auto-retry on or /auto-retry off.")
        (ctx.fail if args else ctx.warn)(message, title="/auto-retry")
        return
    await ctx.pi.client.call(SetAutoRetry(enabled=enabled))
    ctx.pi.model.set_auto_retry(enabled)
    await refresh_state(ctx)
    ctx.say(f"Automatic retry: {on_off(enabled)}", title="/auto-retry")


@guarded("/abort-retry failed")
async def abort_retry_command(ctx: CommandContext, args: str) -> None:
    if ctx.pi.model.retry is None or not ctx.pi.model.retry.active:
        ctx.say("No retry is waiting.", title="/abort-retry")
        return
    await ctx.pi.client.call(AbortRetry())
    ctx.say("Retry aborted.", title="/abort-retry")


async def restart_command(ctx: CommandContext, args: str) -> None:
    await ctx.pi.restart()


COMMANDS = (
    SlashCommand(
        "compact",
        "Compact the context now, optionally with instructions for the summary",
        compact_command,
        usage="[instructions]",
    ),
    SlashCommand(
        "steering-mode",
        "How queued steering messages are delivered (no argument toggles)",
        steering_mode_command,
        usage="[all|one-at-a-time]",
    ),
    SlashCommand(
        "follow-up-mode",
        "How queued follow-up messages are delivered (no argument toggles)",
        follow_up_mode_command,
        usage="[all|one-at-a-time]",
    ),
    SlashCommand(
        "auto-compact",
        "Turn automatic compaction on or off (no argument toggles)",
        auto_compact_command,
        usage="[on|off]",
    ),
    SlashCommand(
        "auto-retry",
        "Turn automatic retry of failed requests on or off",
        auto_retry_command,
        usage="[on|off]",
    ),
    SlashCommand("abort-retry", "Stop a retry that is waiting (Esc also aborts it, with the run)", abort_retry_command),
    SlashCommand("queue", "Edit the queued steering and follow-up messages (also F5)", edit_queue),
    SlashCommand("restart", "Start pi again after it exited, resuming the same session", restart_command),
)
