"""Where pi's life is: starting, loading a session, running, exited, restarting; and what
pi sent that pideck could not use. Model state (`SessionModel.life`), drawn by the status
line and the crash bar; only `SessionModel`'s methods change it, and each change is noted
in `Changes.status`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Crash:
    """pi exited after its session was loaded: why, and what the crash bar says under it."""

    reason: str
    detail: str


@dataclass
class LifeCycle:
    starting_since: float | None = None  # monotonic time pi was started, until it answers
    loading_since: float | None = None  # monotonic time a session's messages were asked for, until shown
    loading_bytes: int = 0  # bytes of pi's answer read so far, while loading
    notice: str = ""  # while pi is not running: shown instead of "ready"
    notice_role: str = "error"  # its colour (a read-only view's notice is no error)
    problems: str = ""  # what pi sent that pideck could not use, for the status line
    crash: Crash | None = None  # pi exited: the crash bar shows it
    restarting: bool = False  # a restart is under way (the crash bar's button waits)
    startup_error: str | None = None  # pi could not start: why (the start-up error screen)
