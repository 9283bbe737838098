"""pi's `terminal.showTerminalProgress`: while pi works, the terminal's tab shows it as
busy (OSC 9;4, as pi writes it, sent again every second since some terminals let it lapse)."""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer

BUSY = "\x1b]9;4;3\x07"
CLEAR = "\x1b]9;4;0\x07"
KEEPALIVE = 1.0  # seconds between two BUSY while pi works


class TerminalProgress:
    """`set_interval` is the app's timer; `write` sends a sequence to the terminal."""

    def __init__(self, set_interval: Callable[[float, Callable[[], None]], Timer], write: Callable[[str], None],
                 enabled: bool) -> None:
        self._set_interval, self._write = set_interval, write
        self.enabled = enabled
        self._keepalive: Timer | None = None

    def show(self, working: bool) -> None:
        if not self.enabled or working == (self._keepalive is not None):
            return
        if working:
            self._keepalive = self._set_interval(KEEPALIVE, self._busy)
            self._busy()
        else:
            self.clear()

    def clear(self) -> None:
        if self._keepalive is not None:
            self._keepalive.stop()
            self._keepalive = None
            self._write(CLEAR)

    def _busy(self) -> None:
        self._write(BUSY)
