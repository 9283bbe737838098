"""The record pump's timing rules on a fake clock: deltas share a frame, anything else
is shown at once, a flood is shown in slower frames and folded between them."""

from __future__ import annotations

import asyncio
import itertools
import os
import subprocess
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from app.pi.record_pump import CHAINED, FLOOD, FLOOD_FRAME, FLUSH_SLICE, FOLD_EVERY, FRAME, HOLD, RecordPump, fold_in_slices
from protocol.wire.events import AgentSettled, AgentStart, MessageEnd, MessageStart, MessageUpdate, TurnStart
from protocol.wire.messages import AssistantMessage, TextContent, UserMessage
from protocol.wire.responses import Response


class Timer:
    def __init__(self, due: float, callback: Callable[[], None]) -> None:
        self.due, self.callback, self.stopped = due, callback, False

    def stop(self) -> None:
        self.stopped = True


class Loop:
    """A fake clock with the app's timers (set_timer), call_next and run_worker."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.timers: list[Timer] = []
        self.soon: list[Callable[[], None]] = []
        self.flushes: list[asyncio.Task[None]] = []
        self.closed = False

    def schedule(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    @property
    def armed(self) -> list[float]:
        """Delays of the timers still to fire."""
        return [t.due - self.now for t in self.timers if not t.stopped]

    def advance(self, seconds: float) -> None:
        """Move the clock, firing the timers due on the way, in order."""
        end = self.now + seconds
        while due := sorted((t for t in self.timers if not t.stopped and t.due <= end + 1e-9), key=lambda t: t.due):
            timer = due[0]
            self.timers.remove(timer)
            self.now = max(self.now, timer.due)
            timer.callback()
        self.now = end

    def run(self, flush: Coroutine[Any, Any, None]) -> None:
        self.flushes.append(asyncio.ensure_future(flush))

    def run_soon(self) -> None:
        callbacks = self.soon[:]
        self.soon.clear()  # in place: the pump holds its append
        for callback in callbacks:
            callback()

    async def finish_flushes(self) -> None:
        flushes = self.flushes[:]
        self.flushes.clear()
        for flush in flushes:
            await flush


class Views:
    """The app's side: batches shown, deltas folded ahead."""

    def __init__(self) -> None:
        self.shown: list[list[Any]] = []
        self.folded: list[list[Any]] = []
        self.busy = False  # views taking changes: no folding ahead
        self.gate: asyncio.Event | None = None  # holds a flush until set
        self.holds: list[float] = []  # the screen's frames held (seconds; 0: drawn again)

    async def apply(self, records: list[Any]) -> None:
        self.shown.append(records)
        if self.gate is not None:
            await self.gate.wait()

    def fold_ahead(self, records: list[Any]) -> bool:
        if self.busy:
            return False
        self.folded.append(records)
        return True


@pytest.fixture
def loop() -> Loop:
    return Loop()


@pytest.fixture
def views() -> Views:
    return Views()


@pytest.fixture
def pump(loop: Loop, views: Views) -> RecordPump:
    return RecordPump(
        views.apply, views.fold_ahead, schedule=loop.schedule, soon=loop.soon.append,
        run=loop.run, closed=lambda: loop.closed, hold_frames=views.holds.append, clock=lambda: loop.now,
    )


NUMBERS = itertools.count()


def delta() -> MessageUpdate:
    """A delta unlike any other (the pump never looks inside)."""
    return MessageUpdate(assistant_message_event=next(NUMBERS))  # type: ignore[arg-type]


async def flush_now(loop: Loop, seconds: float = 0.0) -> None:
    loop.advance(seconds)
    loop.run_soon()
    await loop.finish_flushes()


async def flood(pump: RecordPump, loop: Loop, views: Views) -> None:
    """A first flush of FLOOD deltas: the pump is flooding, its last flush now."""
    for _ in range(FLOOD):
        pump.feed(delta())
    while not views.shown:
        await flush_now(loop, min(loop.armed, default=0))
    assert pump.flooding and len(views.shown) == 1 and pump.idle
    views.shown.clear()
    views.folded.clear()


async def test_a_flood_is_folded_from_its_start_and_first_shown_flood_frame_after_it(
    pump: RecordPump, loop: Loop, views: Views
) -> None:
    began = loop.now
    deltas = [delta() for _ in range(FLOOD)]
    for record in deltas:
        pump.feed(record)
    loop.run_soon()
    loop.advance(FRAME)
    assert not loop.flushes and pump.flooding, "a flood's first records get no frame of their own"
    assert views.folded[0] == deltas and not pump.pending
    while not views.shown:
        await flush_now(loop, min(loop.armed, default=0))
    assert views.shown == [[]] and FLOOD_FRAME <= loop.now - began < FLOOD_FRAME + FOLD_EVERY


async def test_deltas_wait_for_their_frame_and_share_it(pump: RecordPump, loop: Loop, views: Views) -> None:
    first = delta()
    pump.feed(first)
    assert not loop.armed and len(loop.soon) == 1, "a delta after a quiet frame is shown at once"
    await flush_now(loop)
    assert views.shown == [[first]]
    second = delta()
    pump.feed(second)
    assert loop.armed == pytest.approx([FRAME]) and not loop.soon, "the next delta waits for the frame"
    loop.advance(FRAME / 2)
    third = delta()
    pump.feed(third)
    assert loop.armed == pytest.approx([FRAME / 2]), "a delta in the same frame does not move it"
    loop.advance(FRAME / 2 - 0.001)
    assert not loop.flushes and pump.pending == 2
    await flush_now(loop, 0.001)
    assert views.shown == [[first], [second, third]] and pump.idle and not pump.flooding
    assert loop.armed == []
    loop.advance(2 * FRAME)
    fourth = delta()
    pump.feed(fourth)
    assert not loop.armed and len(loop.soon) == 1, "a delta at a model's pace goes on screen without waiting a frame"


async def test_a_record_other_than_a_delta_is_shown_at_once_with_the_deltas_before_it(
    pump: RecordPump, loop: Loop, views: Views
) -> None:
    before, turn = delta(), TurnStart()
    pump.feed(before)
    pump.feed(turn)
    assert loop.armed == [], "the frame's timer is stopped"
    assert loop.soon, "the flush runs after the current message, not a frame later"
    after = delta()
    pump.feed(after)  # before the flush starts: it goes with it
    await flush_now(loop)
    assert views.shown == [[before, turn, after]]


async def test_a_delta_during_a_flush_waits_for_its_frame(pump: RecordPump, loop: Loop, views: Views) -> None:
    views.gate = asyncio.Event()
    pump.feed(TurnStart())
    loop.run_soon()
    await asyncio.sleep(0)
    assert pump.flushing and len(loop.flushes) == 1 and views.shown == [[TurnStart()]]
    pump.feed(delta())
    assert not loop.soon and loop.armed == pytest.approx([FRAME])
    loop.advance(FRAME)
    assert loop.armed == pytest.approx([FRAME]) and len(loop.flushes) == 1, "still flushing: a frame later again"
    views.gate.set()
    await loop.finish_flushes()
    assert not pump.flushing and pump.pending == 1 and not loop.soon, "a delta keeps to the frames"
    await flush_now(loop, FRAME)
    assert [len(batch) for batch in views.shown] == [1, 1] and pump.idle


async def test_anything_else_during_a_flush_is_shown_by_a_flush_right_after_it(
    pump: RecordPump, loop: Loop, views: Views
) -> None:
    """In the same task, so before the frame the first flush asked for: one frame shows the
    message sent and the reply begun meanwhile."""
    views.gate = asyncio.Event()
    pump.feed(TurnStart())
    loop.run_soon()
    await asyncio.sleep(0)
    pump.feed(delta())
    pump.feed(AgentStart())  # not a delta (a reply begun while the message sent mounts)
    views.gate.set()
    await loop.finish_flushes()
    assert [len(batch) for batch in views.shown] == [1, 2] and pump.idle
    assert loop.armed == [] and not loop.soon


async def test_flushes_chain_once_then_wait_for_the_loop(pump: RecordPump, loop: Loop, views: Views) -> None:
    """A tool streaming updates never keeps the frames out: after CHAINED flushes in a row
    the next one waits its turn in the loop."""
    shown = views.shown

    async def apply(records: list[Any]) -> None:
        shown.append(records)
        if len(shown) <= 1 + CHAINED:
            pump.feed(AgentStart())  # something else came during each flush

    pump._apply = apply
    pump.feed(TurnStart())
    loop.run_soon()
    await loop.finish_flushes()
    assert len(shown) == 1 + CHAINED and pump.pending == 1 and loop.soon, "the last one after the loop's turn"
    await flush_now(loop)
    assert len(shown) == 2 + CHAINED and pump.idle


async def test_fewer_than_a_flood_is_no_flood(pump: RecordPump, loop: Loop, views: Views) -> None:
    for _ in range(FLOOD - 1):
        pump.feed(delta())
    await flush_now(loop, FRAME)
    assert not pump.flooding
    pump.feed(delta())
    await flush_now(loop, FRAME)
    assert len(views.shown) == 2 and not views.folded


async def test_a_flood_is_shown_flood_frame_apart_and_folded_between(pump: RecordPump, loop: Loop, views: Views) -> None:
    await flood(pump, loop, views)
    count = FLUSH_SLICE + 10
    deltas = [delta() for _ in range(count)]
    for record in deltas:
        pump.feed(record)
    loop.advance(FRAME)
    assert not loop.flushes and loop.armed == pytest.approx([FOLD_EVERY]), "deltas wait for the flood's frame"
    assert views.folded == [deltas[:FLUSH_SLICE]] and pump.pending == 10, "a slice folded ahead"
    loop.advance(FOLD_EVERY)
    assert views.folded[1] == deltas[FLUSH_SLICE:] and not pump.pending
    loop.advance(FLOOD_FRAME - FRAME - FOLD_EVERY - 0.001)
    assert not loop.flushes and not views.shown
    await flush_now(loop, 2 * FOLD_EVERY)  # the first fold tick at or past FLOOD_FRAME
    assert views.shown == [[]], "the flood's frame shows what was folded"
    assert pump.flooding, "records folded ahead count: the flood goes on"
    pump.feed(delta())
    await flush_now(loop, FLOOD_FRAME + FOLD_EVERY)
    assert len(views.shown) == 2 and not pump.flooding, "a frame of fewer than FLOOD records ends it"


async def test_a_flood_keeps_its_deltas_while_the_views_are_busy(pump: RecordPump, loop: Loop, views: Views) -> None:
    await flood(pump, loop, views)
    views.busy = True
    pump.feed(delta())
    loop.advance(FRAME)
    assert pump.pending == 1 and not views.folded and loop.armed == pytest.approx([FOLD_EVERY])
    views.busy = False
    loop.advance(FOLD_EVERY)
    assert not pump.pending and len(views.folded) == 1


async def test_the_end_of_a_stream_is_shown_at_once_during_a_flood(pump: RecordPump, loop: Loop, views: Views) -> None:
    await flood(pump, loop, views)
    last, end = delta(), TurnStart()
    pump.feed(last)
    pump.feed(end)
    assert loop.armed == [] and len(loop.soon) == 1
    await flush_now(loop)
    assert views.shown == [[last, end]] and not views.folded


def echo() -> list[Any]:
    """What pi sends back for a prompt before the reply's first content."""
    user = UserMessage(content=[TextContent(text="Hi")])
    return [Response(command="prompt", success=True), AgentStart(), TurnStart(), MessageStart(message=user),
            MessageEnd(message=user), MessageStart(message=AssistantMessage(content=[]))]


async def test_a_prompt_s_echo_is_shown_at_once_in_frames_held_until_the_reply_s_first_content(
    pump: RecordPump, loop: Loop, views: Views
) -> None:
    pump.hold_echo()
    sent = echo()
    pump.feed(sent[0])
    assert views.holds == [HOLD], "frames held from the echo's first record"
    await flush_now(loop)
    for record in sent[1:]:
        pump.feed(record)
        await flush_now(loop)
    assert [record for batch in views.shown for record in batch] == sent, "the echo goes into the views at once"
    assert views.holds == [HOLD], "and the frames stay held"
    first = delta()
    pump.feed(first)
    assert not loop.armed and loop.soon, "the reply's first delta is shown at once, not a frame later"
    await flush_now(loop)
    assert views.shown[-1] == [first] and views.holds == [HOLD, 0], "frames again once it is in the views"
    pump.feed(AgentStart())
    await flush_now(loop)
    assert views.holds == [HOLD, 0], "one hold a prompt"


async def test_the_hold_ends_with_the_flush_that_takes_the_reply_s_start(pump: RecordPump, loop: Loop, views: Views) -> None:
    """What ends the hold mid-flush is shown by the flush right after it, then frames come again."""
    pump.hold_echo()
    views.gate = asyncio.Event()
    for record in echo():
        pump.feed(record)
    loop.run_soon()
    await asyncio.sleep(0)
    pump.feed(delta())
    pump.feed(AgentSettled())
    assert views.holds == [HOLD]
    views.gate.set()
    await loop.finish_flushes()
    assert [len(batch) for batch in views.shown] == [len(echo()), 2] and views.holds == [HOLD, 0]


@pytest.mark.parametrize("first", [Response(command="prompt", success=False, error="no model"), TurnStart()])
async def test_no_hold_for_a_refused_prompt_nor_without_one(pump: RecordPump, loop: Loop, views: Views, first: Any) -> None:
    if isinstance(first, Response):
        pump.hold_echo()
    pump.feed(first)
    assert loop.soon and not views.holds
    await flush_now(loop)
    pump.feed(AgentStart())
    await flush_now(loop)
    assert not views.holds and len(views.shown) == 2


async def test_nothing_is_queued_or_flushed_once_closed(pump: RecordPump, loop: Loop, views: Views) -> None:
    pump.feed(delta())
    loop.closed = True
    pump.feed(TurnStart())
    assert pump.pending == 1, "a record after closing is dropped"
    await flush_now(loop, FRAME)
    assert not views.shown and not loop.armed, "a timer after closing leaves the views alone"


async def test_a_backlog_is_folded_in_slices_giving_the_loop_back_between(loop: Loop) -> None:
    records = list(range(2 * FLUSH_SLICE + 1))
    slices: list[list[int]] = []
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1
            slices.append([])  # marks where the loop ran

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    await fold_in_slices(records, slices.append)
    task.cancel()
    folded = [s for s in slices if s]
    assert folded == [records[:FLUSH_SLICE], records[FLUSH_SLICE : 2 * FLUSH_SLICE], records[2 * FLUSH_SLICE :]]
    positions = [i for i, s in enumerate(slices) if s]
    assert all(b - a > 1 for a, b in zip(positions, positions[1:])), "other tasks ran between slices"


def test_the_pump_runs_without_textual() -> None:
    """It can move with the App or a screen: the scheduler comes from outside."""
    probe = "import sys, app.pi.record_pump; print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=Path(__file__).parents[2], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
