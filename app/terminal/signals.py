"""SIGINT and SIGTERM end pideck in order, however many come and whenever they come.

While the app runs full screen, Ctrl+C is a key (Textual turns the terminal's signals
off), so a SIGINT comes from `kill`, or from a Ctrl+C pressed while the terminal is in
its ordinary mode: during start-up, and from the moment the app leaves the screen while
pi closes and the conversation is printed. Python turns it into a KeyboardInterrupt
wherever the code happens to be, which breaks the exit half way: tracebacks, pi not
closed in order, no resume command, the demo's folder left behind.

`ExitSignals`, from before the app starts until pideck returns, turns the first signal
into the app's orderly exit (status 128 + the signal number; one that comes before the
app runs waits for it), and ignores every signal once the app is leaving.

A wrapper in the terminal's foreground (`make demo`) gets the SIGINT of a Ctrl+C too, and
make dies of it whatever pideck does. So from the moment the app leaves the screen until
pideck ends, Ctrl+C stays a key (`hold_interrupt_key`); what was typed meanwhile is
dropped when the terminal gets its signals back (`release_interrupt_key`).
"""

from __future__ import annotations

import asyncio
import signal
import termios
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ExitSignals:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._leave: Callable[[int], object] | None = None
        self._pending: int | None = None  # a signal that came before the app ran
        self._done = False  # the app has left: signals are ignored

    def attach(self, loop: asyncio.AbstractEventLoop, leave: Callable[[int], object]) -> None:
        """The running app: `leave(signum)` is called in `loop` for a signal (or at once
        for one that came before)."""
        if self._done:
            return
        self._loop, self._leave = loop, leave
        if self._pending is not None:
            loop.call_soon(leave, self._pending)

    def detach(self) -> None:
        self._loop = self._leave = None
        self._done = True

    def _received(self, signum: int, _frame: Any) -> None:
        if self._done:
            return
        if self._loop is None or self._leave is None:
            self._pending = self._pending or signum
            return
        try:
            self._loop.call_soon_threadsafe(self._leave, signum)
        except RuntimeError:  # the loop has closed
            pass


@contextmanager
def exit_signals(restore: bool = True) -> Iterator[ExitSignals]:
    """Handle SIGINT and SIGTERM with a new ExitSignals until the block ends; then restore
    the handlers before, or (`restore` false: the process is ending) ignore the signals,
    which Python's own exit would otherwise leave to kill it."""
    handler = ExitSignals()
    previous = {sig: signal.signal(sig, handler._received) for sig in SIGNALS}
    try:
        yield handler
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old if restore else signal.SIG_IGN)


def _set_isig(fd: int, on: bool) -> None:
    try:
        attrs = termios.tcgetattr(fd)
        attrs[3] = attrs[3] | termios.ISIG if on else attrs[3] & ~termios.ISIG  # the local modes
        if on:
            termios.tcflush(fd, termios.TCIFLUSH)
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except (termios.error, OSError, ValueError):
        pass  # not a terminal, or it has gone away


def hold_interrupt_key(fd: int) -> None:
    """Ctrl+C (and the other signal keys) on the terminal `fd` send no signal."""
    _set_isig(fd, False)


def release_interrupt_key(fd: int) -> None:
    """Drop what was typed on `fd` and let its keys send signals again."""
    _set_isig(fd, True)
