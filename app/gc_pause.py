"""Hold Python's full garbage collections while pi streams.

A full (generation 2) collection walks every object the app holds; with a long
transcript that is tens of milliseconds in one go, which shows up as a stalled frame
and a late keystroke in the middle of a stream. Textual pauses the collector during
smooth scrolling for the same reason (`App.PAUSE_GC_ON_SCROLL`). While a run streams
only the young generations are collected (most garbage is freed by reference counting
anyway); when it settles the thresholds come back and one full collection runs while
the app is idle.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

NEVER = 1_000_000_000  # generation-1 collections before an automatic full collection


class StreamingGC:
    def __init__(self, later: Callable[[float, Callable[[], object]], object]) -> None:
        """`later(delay, callback)` runs `callback` after `delay` seconds (e.g. `App.set_timer`)."""
        self._later = later
        self._saved: tuple[int, int, int] | None = None

    @property
    def holding(self) -> bool:
        return self._saved is not None

    def streaming(self, running: bool) -> None:
        if running and self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(self._saved[0], self._saved[1], NEVER)
        elif not running and self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            self._later(0.5, self._collect)

    def _collect(self) -> None:
        if self._saved is None:  # not if a new run started meanwhile
            gc.collect()
