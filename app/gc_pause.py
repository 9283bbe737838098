"""Hold Python's full garbage collections while pi streams.

A full (generation 2) collection walks every object the app holds; with a long
transcript that is tens of milliseconds in one go, which shows up as a stalled frame
and a late keystroke in the middle of a stream. Textual pauses the collector during
smooth scrolling for the same reason (`App.PAUSE_GC_ON_SCROLL`). While a run streams
only the young generations are collected, and less often (most garbage is freed by
reference counting anyway, and a flood allocates fast: at Python's default a 3,000-delta
reply ran 30 young collections). Half a second after it settles, one full collection runs while the app is
idle, and only then do the thresholds come back: restored at once, they would start a
full collection in the very next frame, the one that shows the end of the reply.

What start-up made (modules, classes, the app and its panes: some 50,000 objects) lives
as long as the app: once it has started it is frozen out of every later collection
(`gc.freeze`), so a full collection walks only what came since (a third or more of its cost
at start-up, 11 ms of 16), and it is given back when the app closes.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

NEVER = 1_000_000_000  # generation-1 collections before an automatic full collection
YOUNG = 10_000  # allocations between young collections while streaming (Python's default: 700)
SETTLE = 0.5  # seconds after a run before the full collection


class StreamingGC:
    def __init__(self, later: Callable[[float, Callable[[], object]], object]) -> None:
        """`later(delay, callback)` runs `callback` after `delay` seconds (e.g. `App.set_timer`)."""
        self._later = later
        self._saved: tuple[int, int, int] | None = None
        self._running = False
        self._release_due = False
        self._frozen = False

    def started(self) -> None:
        """The app has started: what it holds now is left out of later collections."""
        gc.freeze()
        self._frozen = True

    @property
    def holding(self) -> bool:
        return self._saved is not None

    def streaming(self, running: bool) -> None:
        self._running = running
        if running and self._saved is None:
            self._saved = gc.get_threshold()
            gc.set_threshold(max(self._saved[0], YOUNG), self._saved[1], NEVER)
        elif not running and self._saved is not None and not self._release_due:
            self._release_due = True
            self._later(SETTLE, self._release)

    def _release(self) -> None:
        self._release_due = False
        if self._running:  # a new run started meanwhile: its end releases
            return
        gc.collect()
        self._restore()

    def _restore(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def close(self) -> None:
        """The thresholds as they were, at once, and what start-up froze collectable again
        (the app is closing)."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
        self._restore()
