"""Hold Python's full garbage collections while pi streams, and keep them small after.

A full (generation 2) collection walks every object the app holds; with a long
transcript that is tens of milliseconds in one go, which shows up as a stalled frame
and a late keystroke in the middle of a stream. Textual pauses the collector during
smooth scrolling for the same reason (`App.PAUSE_GC_ON_SCROLL`). While a run streams
only the young generations are collected, and less often (most garbage is freed by
reference counting anyway, and a flood allocates fast: at Python's default a 3,000-delta
reply ran 30 young collections). Half a second after it settles, one full collection runs while the app is
idle, and only then do the thresholds come back: restored at once, they would start a
full collection in the very next frame, the one that shows the end of the reply.

What the app holds is frozen out of later collections (`gc.freeze`): what start-up made
(modules, classes, the app and its panes: some 50,000 objects) once it has started, and
what survives each run's collection after it. So a run's collection walks only what came
since the last one (one reply's objects: 8 ms however long the session), where walking the
whole transcript grew by some 10 ms a reply. Reference counting still frees frozen objects;
only a cycle among them that dies waits, until the frozen objects have grown by half since
the last complete collection, which unfreezes them all and walks everything once (as
CPython's own rule runs a full collection once the old generation grew by a quarter).
Everything is given back when the app closes.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

NEVER = 1_000_000_000  # generation-1 collections before an automatic full collection
YOUNG = 10_000  # allocations between young collections while streaming (Python's default: 700)
SETTLE = 0.5  # seconds after a run before the full collection
REGROW = 2.0  # frozen objects, against those after the last complete collection, that bring the next one


class StreamingGC:
    def __init__(self, later: Callable[[float, Callable[[], object]], object]) -> None:
        """`later(delay, callback)` runs `callback` after `delay` seconds (e.g. `App.set_timer`)."""
        self._later = later
        self._saved: tuple[int, int, int] | None = None
        self._running = False
        self._release_due = False
        self._frozen = False
        self._kept = 0  # objects frozen after the last complete collection
        self._grown = 0  # objects frozen since (some may have been freed since: a count from above)

    def started(self) -> None:
        """The app has started: what it holds now is left out of later collections, and the
        collector runs (pideck's start-up turns it off: app/cli/pideck.py)."""
        gc.freeze()
        gc.enable()
        self._frozen = True
        self._kept = gc.get_freeze_count()

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
        if self._frozen:
            # What the run left alive (all in the oldest generation now, and only that: the
            # frozen objects are in none) stays out of the next run's collection. They are
            # counted so, as they are few: get_freeze_count() walks every frozen object (9 ms).
            self._grown += len(gc.get_objects(generation=2))
            gc.freeze()
            if self._kept + self._grown > self._kept * REGROW:
                gc.unfreeze()  # it may hold cycles that died since: walk it all once
                gc.collect()
                gc.freeze()
                self._kept, self._grown = gc.get_freeze_count(), 0
        self._restore()

    def _restore(self) -> None:
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def close(self) -> None:
        """The thresholds as they were, at once, and what was frozen collectable again (the
        app is closing)."""
        if self._frozen:
            gc.unfreeze()
            self._frozen = False
        self._restore()
