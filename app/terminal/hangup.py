"""Leave when the terminal does: an ssh link that drops, a tmux server or a terminal
window that is killed.

The terminal's SIGHUP, when it comes, ends pideck as Ctrl+C twice does: pi is closed in
order (its session is on disk already). It does not always come: run under make or any
wrapper that catches it, or from a shell that keeps its jobs alive (`setopt nohup`),
pideck outlives its terminal. Reads from a hung-up terminal return nothing at once, and
Textual's input thread then spins on them, a whole core, for ever. So the terminal is
also polled, and its hang-up ends the app the same way.

What Textual's driver does when the terminal is gone is the engine's
(widgets/engine/driver.py): its threads drop what they cannot write and do not keep pideck
alive, and it resumes on SIGCONT only after a Ctrl+Z.
"""

from __future__ import annotations

import select
import signal
import sys
from collections.abc import Callable


CHECK_EVERY = 0.5  # seconds between looks at the terminal
HANGUP_EXIT = 128 + signal.SIGHUP  # the exit status of a process ended by SIGHUP


def terminal_gone(fd: int) -> bool:
    """True once the terminal (or pipe) on `fd` has hung up or been closed; reads nothing."""
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)  # hang-up and errors are reported whatever is asked
        events = poller.poll(0)
    except (OSError, ValueError):
        return True
    return any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, mask in events)


def stdin_fd() -> int | None:
    """The terminal Textual reads keys from, if there is one to watch."""
    stream = sys.__stdin__
    if stream is None or not hasattr(select, "poll"):
        return None
    try:
        return stream.fileno()
    except (OSError, ValueError):
        return None


def watch_hangup(loop_add_signal: Callable[[int, Callable[[], object]], object],
                 every: Callable[[float, Callable[[], object]], object],
                 fd: int, leave: Callable[[], object]) -> None:
    """Call `leave()` on SIGHUP (unless SIGHUP is ignored, as under nohup) or once `fd`
    hangs up. `loop_add_signal` is `loop.add_signal_handler`, `every` is `App.set_interval`."""
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        loop_add_signal(signal.SIGHUP, leave)
    every(CHECK_EVERY, lambda: leave() if terminal_gone(fd) else None)
