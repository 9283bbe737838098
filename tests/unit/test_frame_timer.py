"""The main screen's frame timer: after a pause a few frames at once, then a frame's time
apart; never on Textual's grid, a frame late after a pause."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace

import pytest
from textual import timer as textual_timer
from textual._context import active_app

from widgets.engine.frame_timer import BURST, FrameTimer
from widgets.engine.private import textual_time

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


async def frames_after_a_pause(screen: Screen, timer: textual_timer.Timer, count: int = 2) -> list[float]:
    """Frames for a refresh long after the last, then for `count - 1` refreshes each just
    after the frame before it (a reply's message, its answer, a flood's deltas)."""
    screen.timer = timer
    timer._start()
    try:
        await refresh_at(screen, 100.0)
        await refresh_at(screen, 100.0 + 10.3 * PERIOD)  # a while later, between two grid points
        frames = [screen.frames[-1]]
        for _ in range(count - 1):
            await refresh_at(screen, frames[-1] + 0.001)
            frames.append(screen.frames[-1])
        return frames
    finally:
        timer.stop()


async def test_after_a_pause_a_few_frames_are_drawn_at_once_then_a_frame_s_time_apart(clock: Clock) -> None:
    screen = Screen(clock)
    frames = await frames_after_a_pause(screen, FrameTimer(screen, PERIOD), count=BURST + 3)  # type: ignore[arg-type]
    assert frames[0] == pytest.approx(100.0 + 10.3 * PERIOD), "after a pause, a frame at once"
    gaps = [later - earlier for earlier, later in zip(frames, frames[1:])]
    assert gaps[: BURST - 1] == [pytest.approx(0.001)] * (BURST - 1), "the next ones at once too"
    assert gaps[BURST:] == [pytest.approx(PERIOD)] * 2, "then a frame's time apart, not on a grid"
    assert frames[-1] - frames[0] < (len(frames) - 1) * PERIOD


async def test_a_flood_of_refreshes_keeps_to_the_frame_rate(clock: Clock) -> None:
    screen = Screen(clock)
    frames = await frames_after_a_pause(screen, FrameTimer(screen, PERIOD), count=60)  # type: ignore[arg-type]
    assert frames[-1] - frames[0] == pytest.approx((60 - BURST) * PERIOD, abs=0.01)


async def test_textual_s_own_timer_draws_it_a_frame_late(clock: Clock) -> None:
    """What the frame timer replaces (if Textual fixes this, the frame timer can go)."""
    screen = Screen(clock)
    timer = textual_timer.Timer(screen, PERIOD, callback=screen._on_timer_update, pause=True)
    first, second = await frames_after_a_pause(screen, timer)
    assert second - first > 1.5 * PERIOD


@pytest.fixture
async def started(clock: Clock) -> AsyncIterator[tuple[Screen, FrameTimer]]:
    """A screen and its FrameTimer, running."""
    screen = Screen(clock)
    timer = FrameTimer(screen, PERIOD)  # type: ignore[arg-type]
    screen.timer = timer
    timer._start()
    yield screen, timer
    timer.stop()


async def test_a_refresh_while_it_waits_is_drawn_once(started: tuple[Screen, FrameTimer]) -> None:
    screen, timer = started
    await refresh_at(screen, 100.0)
    assert screen.frames == [pytest.approx(100.0 + PERIOD)], "the first a frame's time after, as Textual's"
    timer.resume()
    timer.resume()
    await settle()
    assert screen.frames == [pytest.approx(100.0 + PERIOD), pytest.approx(100.0 + 2 * PERIOD)]


@pytest.mark.parametrize("drawn_meanwhile", [False, True])
async def test_held_frames_wait_for_the_release(started: tuple[Screen, FrameTimer], drawn_meanwhile: bool) -> None:
    screen, timer = started
    await refresh_at(screen, 100.0)
    drawn = len(screen.frames)
    timer.hold(60.0)
    await refresh_at(screen, 101.0)
    await refresh_at(screen, 101.001)
    assert len(screen.frames) == drawn, "no frame while held"
    if drawn_meanwhile:
        timer.pause()  # a layout drew the frame meanwhile (Textual's pauses the timer)
    timer.release()
    await settle()
    if drawn_meanwhile:
        assert len(screen.frames) == drawn, "a tick with nothing left to draw"
    else:
        assert screen.frames[drawn:] == [pytest.approx(101.001)], "one frame for what came meanwhile, at the release"


async def test_a_hold_ends_by_itself(clock: Clock, started: tuple[Screen, FrameTimer]) -> None:
    screen, timer = started
    await refresh_at(screen, 100.0)
    drawn = len(screen.frames)
    clock.now = 101.0
    timer.hold(0.01)  # (waited on the loop's clock: the fake one stays)
    await refresh_at(screen, 101.0)
    assert len(screen.frames) == drawn
    for _ in range(500):
        if len(screen.frames) > drawn:
            break
        await asyncio.sleep(0.01)
    assert len(screen.frames) == drawn + 1, "drawn once the hold ran out, with no release"
    timer.hold(0)
    await refresh_at(screen, 102.0)
    assert len(screen.frames) == drawn + 2, "a hold of 0 holds nothing"

