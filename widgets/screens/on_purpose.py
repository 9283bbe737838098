"""A question whose answer writes or deletes (a revert, /rewind's, /resume's delete) takes it
only from a key pressed on purpose: at least `SETTLE` s after the question was drawn, and
not one of a burst (another key or a paste less than `BURST` from it, faster than a person
types: text typed ahead, a paste, an ssh link's bunch). A prompt typed on as the question
opened (a path such as `…/barp_3yl3sw/…`) wrote over the user's edit with its `y`. Any other
key is ignored, and the question says so.

The App tells `KeyPace` of every key and paste as it arrives (`arrived`), in the order they
were typed; an app that does not (a screen's test app) has only the time rule.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.screen import Screen

from widgets.engine.key_events import key_clock

SETTLE = 0.3  # seconds from the question's first frame before a key may answer it
BURST = 0.03  # keys or pastes closer than this are typed ahead or pasted, not pressed one by one
KEPT = 64  # arrivals kept (a burst is judged on its neighbours)
TOO_SOON = f"within {SETTLE:g} s of this question"  # why a key was ignored, as the question says
AMONG = "among other keys (typed ahead or pasted)"


class KeyPace:
    """When the last keys and pastes reached the app (their events' `time`)."""

    def __init__(self) -> None:
        self._times: deque[float] = deque(maxlen=KEPT)

    def arrived(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)):
            self._times.append(event.time)

    def in_burst(self, at: float) -> bool:
        """Another key or paste came less than `BURST` from the key pressed at `at`."""
        return any(abs(other - at) < BURST for other in self._times if other != at)


def pace_of(app: App[object]) -> KeyPace:
    pace = getattr(app, "key_pace", None)
    return pace if isinstance(pace, KeyPace) else KeyPace()


class OnPurpose:
    """The answers of `screen`'s question: `answer(at, key, act)` runs `act` for a key
    pressed at `at` on purpose, else `ignored` says why. `asked()` when the question is
    shown (again): keys count from its first frame."""

    def __init__(self, screen: Screen[object], ignored: Callable[[str], None]) -> None:
        self.screen = screen
        self.ignored = ignored
        self.shown_at = math.inf  # the question's first frame (key_clock)

    def asked(self) -> None:
        self.shown_at = math.inf
        self.screen.call_after_refresh(self._drawn)

    def _drawn(self) -> None:
        self.shown_at = key_clock()

    def takes_keys(self) -> bool:
        """Whether a key pressed now may answer (tests wait for it)."""
        return key_clock() >= self.shown_at + SETTLE

    def answer(self, at: float | None, key: str, act: Callable[[], None]) -> None:
        """`at`: when the key was pressed (None: not a key, a click or the palette: now)."""
        if at is None:
            at = key_clock()
        elif pace_of(self.screen.app).in_burst(at):
            self._ignore(key, AMONG)
            return
        if at < self.shown_at + SETTLE:
            self._ignore(key, TOO_SOON)
            return
        asked_at = self.shown_at
        self.screen.set_timer(BURST, lambda: self._alone(at, key, act, asked_at))

    def _alone(self, at: float, key: str, act: Callable[[], None], asked_at: float) -> None:
        """`BURST` later: no key came right after it either (a burst that began with it)."""
        if asked_at != self.shown_at or not self.screen.is_current:
            return  # answered, or asked again, meanwhile
        if pace_of(self.screen.app).in_burst(at):
            self._ignore(key, AMONG)
            return
        act()

    def _ignore(self, key: str, why: str) -> None:
        self.ignored(f"{key} was ignored: it came {why}. Press {key} again to answer.")
