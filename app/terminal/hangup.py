"""Leave when the terminal does: an ssh link that drops, a tmux server or a terminal
window that is killed.

The terminal's SIGHUP, when it comes, ends pideck as Ctrl+C twice does: pi is closed in
order (its session is on disk already). It does not always come: run under make or any
wrapper that catches it, or from a shell that keeps its jobs alive (`setopt nohup`),
pideck outlives its terminal. Reads from a hung-up terminal return nothing at once, and
Textual's input thread then spins on them, a whole core, for ever. So the terminal is
also polled, and its hang-up ends the app the same way.

Writes to a hung-up terminal fail, and Textual's output thread ends at the first
failure; the app's later writes (frames, then the sequences that restore the terminal
on exit) then fill its queue and the next one waits for ever, with pi still open.
`install_hangup_guards` gives Textual an output thread that drops what it cannot write,
and an input thread that cannot keep a finished pideck alive.

When the terminal pideck leads goes away, the kernel sends SIGCONT with the SIGHUP, and
Textual resumes application mode on any SIGCONT: during the exit, that starts a new input
thread that nothing stops, spinning on the dead terminal. `terminal_driver` resumes only
an app that Ctrl+Z suspended.
"""

from __future__ import annotations

import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from textual.driver import Driver
from textual.drivers import linux_driver

from app.terminal.signals import hold_interrupt_key
from widgets.textual_private import WriterThread

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


class TolerantWriter(WriterThread):
    """Textual's output thread, draining its queue even after a write failed."""

    def run(self) -> None:
        failed = False
        while (text := self._queue.get()) is not None:
            if failed:
                continue  # the terminal is gone: drop the text, keep the queue moving
            try:
                self._file.write(text)
                if self._queue.qsize() == 0:
                    self._file.flush()
            except OSError:
                failed = True
        try:
            self._file.flush()
        except OSError:
            pass


def _daemon_thread(*args: Any, **kwargs: Any) -> threading.Thread:
    return threading.Thread(*args, daemon=True, **kwargs)


def install_hangup_guards() -> None:
    linux_driver.WriterThread = TolerantWriter  # type: ignore[misc]
    linux_driver.Thread = _daemon_thread  # type: ignore[misc,assignment]  # the input thread


class ResumeOnlySuspended(linux_driver.LinuxDriver):
    """Textual's terminal driver, resumed by SIGCONT only after SIGTSTP suspended it; leaving
    for good, it keeps Ctrl+C a key until pideck ends (app/terminal/signals.py)."""

    def _sigcont_application(self, *args: Any) -> None:
        if self._must_signal_resume:  # set by the SIGTSTP that suspended application mode
            super()._sigcont_application(*args)

    def stop_application_mode(self) -> None:
        super().stop_application_mode()
        if getattr(self._app, "leaving", False):  # not a Ctrl+Z suspend
            hold_interrupt_key(self.fileno)


def terminal_driver(driver_class: type[Driver]) -> type[Driver]:
    return ResumeOnlySuspended if driver_class is linux_driver.LinuxDriver else driver_class
