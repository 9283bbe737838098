"""The main screen's frame timer: a frame at once when the last one was a frame's time ago,
else one frame's time after it; never on Textual's grid, a frame late after a pause."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from textual import timer as textual_timer
from textual._context import active_app

from widgets.frame_timer import FrameTimer
from widgets.textual_private import textual_time

PERIOD = 1 / 60


class Clock:
    """Textual's clock, faked: sleeping moves it on at once."""

    def __init__(self) -> None:
        self.now = 100.0

    def get_time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    fake = Clock()
    monkeypatch.setattr(textual_time, "get_time", fake.get_time)
    monkeypatch.setattr(textual_time, "sleep", fake.sleep)
    monkeypatch.setattr(textual_timer, "sleep", fake.sleep)  # (Textual's Timer imported it by name)
    yield fake


@pytest.fixture(autouse=True)
def app() -> Iterator[SimpleNamespace]:
    """The app a timer's tick looks up: running, and failing the test on an error."""
    errors: list[BaseException] = []
    running = SimpleNamespace(_exit=False, _handle_exception=errors.append, features=frozenset())
    token = active_app.set(running)  # type: ignore[arg-type]
    yield running
    active_app.reset(token)
    assert not errors


class Screen:
    """What a timer ticks: the frames, drawn as the screen draws them (pausing it first)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.frames: list[float] = []
        self.timer: textual_timer.Timer | None = None

    def _on_timer_update(self) -> None:
        assert self.timer is not None
        self.timer.pause()
        self.frames.append(self.clock.now)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def refresh_at(screen: Screen, when: float) -> None:
    """A refresh at `when` (the screen's idle handler resumes the timer), and what it draws."""
    assert screen.timer is not None
    screen.clock.now = max(screen.clock.now, when)
    screen.timer.resume()
    await settle()


async def frames_after_a_pause(screen: Screen, timer: textual_timer.Timer) -> list[float]:
    """Frames for a refresh long after the last, and for one just after the frame it drew."""
    screen.timer = timer
    timer._start()
    try:
        await refresh_at(screen, 100.0)
        await refresh_at(screen, 100.0 + 10.3 * PERIOD)  # a while later, between two grid points
        first = screen.frames[-1]
        await refresh_at(screen, first + 0.001)  # a delta right after that frame
        return [first, screen.frames[-1]]
    finally:
        timer.stop()


async def test_a_refresh_right_after_a_frame_is_drawn_one_frame_later(clock: Clock) -> None:
    screen = Screen(clock)
    first, second = await frames_after_a_pause(screen, FrameTimer(screen, PERIOD))  # type: ignore[arg-type]
    assert first == pytest.approx(100.0 + 10.3 * PERIOD), "after a pause, a frame at once"
    assert second == pytest.approx(first + PERIOD), "the next a frame's time later, not on a grid"


async def test_textual_s_own_timer_draws_it_a_frame_late(clock: Clock) -> None:
    """What the frame timer replaces (if Textual fixes this, the frame timer can go)."""
    screen = Screen(clock)
    timer = textual_timer.Timer(screen, PERIOD, callback=screen._on_timer_update, pause=True)
    first, second = await frames_after_a_pause(screen, timer)
    assert second - first > 1.5 * PERIOD


async def test_a_refresh_while_it_waits_is_drawn_once(clock: Clock) -> None:
    screen = Screen(clock)
    timer = FrameTimer(screen, PERIOD)  # type: ignore[arg-type]
    screen.timer = timer
    timer._start()
    try:
        await refresh_at(screen, 100.0)
        assert screen.frames == [pytest.approx(100.0 + PERIOD)], "the first a frame's time after, as Textual's"
        timer.resume()
        timer.resume()
        await settle()
        assert screen.frames == [pytest.approx(100.0 + PERIOD), pytest.approx(100.0 + 2 * PERIOD)]
    finally:
        timer.stop()
