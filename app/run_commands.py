"""`/compact`, queue delivery modes, auto-compaction, auto-retry and aborting a retry.

Progress of a compaction is shown by the transcript banner and the status line (from
pi's `compaction_start` / `compaction_end` events); the command adds the result toast.
pi's `get_state` reports auto-compaction but not auto-retry, so pideck only knows the
auto-retry setting once it has set it (`SessionModel.auto_retry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.command_support import guarded, parse_on_off, refresh_state
from app.slash_commands import slash_command
from protocol.commands import (
    AbortRetry,
    Compact,
    QueueMode,
    SetAutoCompaction,
    SetAutoRetry,
    SetFollowUpMode,
    SetSteeringMode,
)
from protocol.events import CompactionResult
from protocol.formatting import on_off
from protocol.session_model import compaction_outcome

if TYPE_CHECKING:
    from app.pideck_app import PideckApp

MODES: dict[str, QueueMode] = {"all": "all", "one-at-a-time": "one-at-a-time", "one": "one-at-a-time"}


@slash_command("compact", "Compact the context now, optionally with instructions for the summary",
               usage="[instructions]")
@guarded("/compact failed")
async def compact_command(app: PideckApp, args: str) -> None:
    if app.model.compaction is not None:
        app.notify("A compaction is already running.", title="/compact", markup=False)
        return
    app.notify("Compacting the context…", title="/compact", markup=False)
    result: CompactionResult = await app.client.call(Compact(custom_instructions=args or None))
    await refresh_state(app)
    app.notify(f"Context compacted: {compaction_outcome(result)}", title="/compact", markup=False)


def _mode(args: str, current: str) -> QueueMode | None:
    if not args:
        return "all" if current == "one-at-a-time" else "one-at-a-time"
    return MODES.get(args.strip().lower())


async def _set_mode(app: PideckApp, args: str, which: str) -> None:
    state = app.model.state
    current = (state.steering_mode if which == "steering" else state.follow_up_mode) if state else "one-at-a-time"
    mode = _mode(args, current)
    if mode is None:
        app.notify(f"Unknown mode {args!r}: use all or one-at-a-time.", title=f"/{which}-mode",
                   severity="error", markup=False)
        return
    await app.client.call(SetSteeringMode(mode=mode) if which == "steering" else SetFollowUpMode(mode=mode))
    await refresh_state(app)
    app.notify(f"{which.capitalize()} messages: delivered {mode}", title=f"/{which}-mode", markup=False)


@slash_command("steering-mode", "How queued steering messages are delivered (no argument toggles)",
               usage="[all|one-at-a-time]")
@guarded("/steering-mode failed")
async def steering_mode_command(app: PideckApp, args: str) -> None:
    await _set_mode(app, args, "steering")


@slash_command("follow-up-mode", "How queued follow-up messages are delivered (no argument toggles)",
               usage="[all|one-at-a-time]")
@guarded("/follow-up-mode failed")
async def follow_up_mode_command(app: PideckApp, args: str) -> None:
    await _set_mode(app, args, "follow-up")


@slash_command("auto-compact", "Turn automatic compaction on or off (no argument toggles)", usage="[on|off]")
@guarded("/auto-compact failed")
async def auto_compact_command(app: PideckApp, args: str) -> None:
    state = app.model.state
    enabled = parse_on_off(args) if args else not (state.auto_compaction_enabled if state else True)
    if enabled is None:
        app.notify(f"Say on or off, not {args!r}.", title="/auto-compact", severity="error", markup=False)
        return
    await app.client.call(SetAutoCompaction(enabled=enabled))
    await refresh_state(app)
    app.notify(f"Automatic compaction: {on_off(enabled)}", title="/auto-compact", markup=False)


@slash_command("auto-retry", "Turn automatic retry of failed requests on or off", usage="[on|off]")
@guarded("/auto-retry failed")
async def auto_retry_command(app: PideckApp, args: str) -> None:
    known = app.model.auto_retry
    enabled = parse_on_off(args) if args else (None if known is None else not known)
    if enabled is None:
        message = (f"Say on or off, not {args!r}." if args else
                   "pi does not report whether auto-retry is on: use /auto-retry on or /auto-retry off.")
        app.notify(message, title="/auto-retry", severity="error" if args else "warning", markup=False)
        return
    await app.client.call(SetAutoRetry(enabled=enabled))
    app.model.set_auto_retry(enabled)
    await refresh_state(app)
    app.notify(f"Automatic retry: {on_off(enabled)}", title="/auto-retry", markup=False)


@slash_command("abort-retry", "Stop a retry that is waiting (Esc also aborts it, with the run)")
@guarded("/abort-retry failed")
async def abort_retry_command(app: PideckApp, args: str) -> None:
    if app.model.retry is None or not app.model.retry.active:
        app.notify("No retry is waiting.", title="/abort-retry", markup=False)
        return
    await app.client.call(AbortRetry())
    app.notify("Retry aborted.", title="/abort-retry", markup=False)
