"""What the sessions row and /sessions say of each open pi session: its name, its mark
(working, needs you, done unread…) and the one line of facts /sessions lists.

Pure: it reads a session's model and what the app knows beside it (dialogs waiting, a run
that ended unseen). The app keeps the sessions; this only words them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum

from protocol.control_codes import one_row
from protocol.state import footer_format
from protocol.state.session_model import SessionModel

NAME_CELLS = 24  # a session's name in the row is cut to this many characters


class Mark(Enum):
    """A session's state, as the row and /sessions show it (most urgent first)."""

    NEEDS_YOU = "needs you"  # an extension dialog waits for an answer
    FAILED = "failed"  # pi could not start, or the last run ended in an error
    EXITED = "pi exited"  # pi is not running (a crash, or it quit)
    STARTING = "starting"
    WORKING = "working"
    DONE = "done"  # a run ended while the session was not shown, and it was not looked at since
    IDLE = "idle"


SYMBOLS = {
    Mark.NEEDS_YOU: "!", Mark.FAILED: "✗", Mark.EXITED: "■", Mark.STARTING: "…",
    Mark.WORKING: "●", Mark.DONE: "✓", Mark.IDLE: "○",
}  # fmt: skip


def mark_of(model: SessionModel, *, pi_running: bool, dialogs_waiting: int, unread: bool, failed: bool) -> Mark:
    """The one mark that says most about a session now."""
    if dialogs_waiting:
        return Mark.NEEDS_YOU
    if model.life.startup_error is not None or failed:
        return Mark.FAILED
    if model.life.starting_since is not None or model.life.loading_since is not None:
        return Mark.STARTING
    if not pi_running:
        return Mark.EXITED
    if model.running:
        return Mark.WORKING
    return Mark.DONE if unread else Mark.IDLE


def session_name(model: SessionModel, folder: str, host: str | None = None) -> str:
    """The session's /name, else its folder's last part (with its host for pi on another one)."""
    named = model.state.session_name if model.state is not None else None
    if named and named.strip():
        name = named
    else:
        name = os.path.basename(folder.rstrip("/")) or folder or "pi"
        if host is not None:
            name = f"{host}:{name}"
    name = " ".join(one_row(name).split())
    return name if len(name) <= NAME_CELLS else name[: NAME_CELLS - 1] + "…"


@dataclass(frozen=True)
class SessionLine:
    """One session as /sessions lists it."""

    number: int  # 1-based, as Alt+N reaches it
    name: str
    mark: Mark
    model: str
    folder: str
    host: str | None
    cost: str
    idle_for: float | None  # seconds since its last record, None if none came yet
    current: bool
    held: int | None = None  # its pi's number in the holder (`pideck ls`), while held


def model_label(model: SessionModel) -> str:
    """pi's `model • thinking`, as its footer writes it."""
    state = model.state
    chosen = state.model if state is not None else None
    label = footer_format.model(chosen.id if chosen is not None else None, chosen is not None and chosen.reasoning,
                                state.thinking_level if state is not None else "off")
    return " ".join(one_row(label).split())


def cost_label(model: SessionModel) -> str:
    stats = model.stats
    if stats is not None:
        tokens = stats.tokens
        return footer_format.usage(tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, stats.cost) or "—"
    totals = model.totals
    return footer_format.usage(totals.input, totals.output, totals.cache_read, totals.cache_write, totals.cost) or "—"


def ago(seconds: float | None) -> str:
    """How long ago, in the largest whole unit: "now", "42s", "5m", "3h", "2d"."""
    if seconds is None:
        return "—"
    if seconds < 5:
        return "now"
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
