"""Textual's terminal driver, for a terminal that goes away (app/terminal/hangup.py says when),
with the engine on or off.

Writes to a hung-up terminal fail, and Textual's output thread ends at the first failure;
the app's later writes (frames, then the sequences that restore the terminal on exit) then
fill its queue and the next one waits for ever, with pi still open. `install_hangup_guards`
gives the driver an output thread that drops what it cannot write, and an input thread that
cannot keep a finished pideck alive.

When the terminal pideck leads goes away, the kernel sends SIGCONT with the SIGHUP, and
Textual resumes application mode on any SIGCONT: during the exit, that starts a new input
thread that nothing stops, spinning on the dead terminal. The driver of `terminal_driver`
resumes only an app that Ctrl+Z suspended.

Each is left out where Textual does not have what it replaces (Textual's own threads and
resume then).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from textual.driver import Driver
from textual.drivers import linux_driver

try:  # (the Linux driver creates its output thread by this name)
    from textual.drivers._writer_thread import WriterThread
except ImportError:
    WriterThread = None  # type: ignore[assignment,misc]

if WriterThread is not None:
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
    """The Linux driver's output and input threads replaced, where it makes them by these names."""
    if WriterThread is not None and getattr(linux_driver, "WriterThread", None) is WriterThread:
        linux_driver.WriterThread = TolerantWriter  # type: ignore[misc]
    if getattr(linux_driver, "Thread", None) is threading.Thread:
        linux_driver.Thread = _daemon_thread  # type: ignore[misc,assignment]  # the input thread


def terminal_driver(driver_class: type[Driver], stopped: Callable[[int], None]) -> type[Driver]:
    """Textual's Linux driver, calling `stopped` with the terminal's descriptor each time it
    leaves application mode (for a Ctrl+Z too), and resumed by SIGCONT only after SIGTSTP
    suspended it. Any other driver as it is."""
    if driver_class is not linux_driver.LinuxDriver:
        return driver_class

    class LinuxTerminal(linux_driver.LinuxDriver):
        def stop_application_mode(self) -> None:
            super().stop_application_mode()
            stopped(self.fileno)

        if hasattr(linux_driver.LinuxDriver, "_sigcont_application"):
            def _sigcont_application(self, *args: Any) -> None:
                # (set by the SIGTSTP that suspended application mode)
                if getattr(self, "_must_signal_resume", True):
                    super()._sigcont_application(*args)

    return LinuxTerminal
