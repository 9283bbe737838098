"""The record pump: pi's records, queued as the reader hands them over and shown a frame
at a time.

The reader never waits on the UI: `feed` only queues. Deltas are shown once per FRAME;
anything else (the end of a message, a tool starting...) is shown at once (or, during a
flush, in the same frame, by a flush right after it), and so is a delta FRAME or more after
the last frame. While pi floods, deltas are shown FLOOD_FRAME apart and folded into the model between frames, so
the frame that shows the end of the reply has only the last few left to fold. What pi
sends back for a prompt just written (its answer, the run's start, the user's message) is
shown at once, but the screen's frames are held, up to HOLD, until the reply's first content
is shown too: one frame for both. The scheduler, the clock, the apply step and the frame
hold are given, so the timing runs on a fake clock.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from protocol.wire.events import AgentStart, MessageEnd, MessageStart, MessageUpdate, TurnStart
from protocol.wire.messages import AssistantMessage, SystemMessage, UserMessage
from protocol.wire.responses import Response

FRAME = 1 / 30  # seconds between flushes of deltas: smooth to read, a quarter less CPU than 1/60
FLUSH_SLICE = 250  # records folded into the views before the loop is given back
FLOOD = 120  # records in one flush that make a flood (3,600 a second)
FLOOD_FRAME = 1 / 10  # seconds between flushes of deltas during a flood
FOLD_EVERY = 1 / 60  # seconds between folds of the deltas a flood holds (FLUSH_SLICE at a time)
CHAINED = 1  # flushes run right after a flush, for what came during it, before a frame is drawn
HOLD = FRAME  # seconds the frames after a prompt's echo wait for the reply's first content


def _echo(record: Any) -> bool:
    """What pi sends back for a prompt before the reply's first content: its answer, the run's
    and the turn's start, the messages that open the turn (the system prompt's, the user's),
    the reply's start while it is empty."""
    kind = type(record)
    if kind is Response:
        return record.command == "prompt" and record.success
    if kind is MessageStart:
        message = record.message
        return type(message) in (UserMessage, SystemMessage) or (type(message) is AssistantMessage and not message.content)
    if kind is MessageEnd:
        return type(record.message) in (UserMessage, SystemMessage)
    return kind is AgentStart or kind is TurnStart


class Stoppable(Protocol):
    def stop(self) -> None: ...


Callback = Callable[[], None]


class _Soon:
    """A flush due after the current message, that can be called off like a timer."""

    stopped = False

    def stop(self) -> None:
        self.stopped = True


class RecordPump:
    """`apply(records)` shows a batch (a flush: one at a time); `fold_ahead(records)` folds
    deltas into the model without showing them and says False when it cannot now (views
    are reading the model). `schedule(delay, callback)` is a timer, `soon(callback)` runs
    after the current message, `run(coroutine)` runs a flush as a task; `closed()` says
    the views are gone, and records and timers then leave them alone. `hold_frames(s)`
    holds the screen's frames for up to `s` seconds, and 0 draws them again."""

    def __init__(
        self,
        apply: Callable[[list[Any]], Awaitable[None]],
        fold_ahead: Callable[[list[Any]], bool],
        *,
        schedule: Callable[[float, Callback], Stoppable],
        soon: Callable[[Callback], None],
        run: Callable[[Coroutine[Any, Any, None]], object],
        closed: Callable[[], bool],
        hold_frames: Callable[[float], None] = lambda seconds: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._apply = apply
        self._fold_ahead = fold_ahead
        self._schedule = schedule
        self._soon = soon
        self._run = run
        self._closed = closed
        self._hold_frames = hold_frames
        self._clock = clock
        self._pending: list[Any] = []
        self._timer: Stoppable | None = None
        self._soons: deque[_Soon] = deque()  # flushes asked of `soon`, in its order
        self._flushing = False
        self._flooding = False
        self._received = 0  # records since the last flush
        self._urgent = False  # a record other than a delta is pending
        self._last_flush = 0.0
        self._first_received = 0.0  # when the first record since the last flush came
        self._holding = False  # a prompt was written: the reply's first content not yet read
        self._frames_held = False  # since its echo came, until the reply's first content is shown

    @property
    def pending(self) -> int:
        """Records queued and not yet shown (nor folded ahead)."""
        return len(self._pending)

    @property
    def flushing(self) -> bool:
        return self._flushing

    @property
    def flooding(self) -> bool:
        """The last flush held a flood (FLOOD records or more)."""
        return self._flooding

    @property
    def idle(self) -> bool:
        """Nothing queued and no flush running: the views show every record fed."""
        return not self._pending and not self._flushing

    def hold_echo(self) -> None:
        """A prompt that starts a run is being written. Its echo and the reply were two
        frames (the user's message laid out and scrolled in, then the reply: a short reply's
        answer came a layout later, and the side panes beside the transcript were written
        back twice); with the frames held from the echo until the reply's first content is
        shown, or HOLD, they are one, and the echo is mounted while pi waits for the model."""
        self._holding = True

    def feed(self, record: Any) -> None:
        """Called by the client's reader for every record: queue it, never wait."""
        if self._closed():
            return  # pi closing as pideck exits: the views are going or gone
        self._pending.append(record)
        if not self._received:
            self._first_received = self._clock()
        self._received += 1
        urgent = type(record) is not MessageUpdate
        if self._holding:
            if not _echo(record):  # the reply's first content (or anything else): at once, into the held frame
                self._holding, urgent = False, True
            elif not self._frames_held:
                self._frames_held = True
                self._hold_frames(HOLD)
        if urgent and not self._urgent:
            self._urgent = True  # the end of a message, a tool starting...: shown without waiting
            if not self._flushing:
                self._flush_next()
                return
        if self._timer is None:
            # A frame at most every FRAME: a delta after a quiet frame (a model's pace) goes
            # on screen at once, not a frame after it came; the next ones share the next frame.
            self._flush_after(min(FRAME, max(0.0, self._last_flush + FRAME - self._clock())))

    def _flush_after(self, delay: float) -> None:
        if delay > 0:
            self._timer = self._schedule(delay, self._start_flush)
            return
        self._timer = soon = _Soon()  # (a Textual timer of no delay divides by zero)
        self._soons.append(soon)
        self._soon(self._flush_soon)  # (a method: a new lambda each time, Textual would inspect each)

    def _flush_soon(self) -> None:
        if not self._soons.popleft().stopped:
            self._start_flush()

    def _start_flush(self) -> None:
        """Show the queued records in a task of its own, so the app's message loop (keys,
        timers) keeps running while the views mount."""
        self._timer = None
        if self._closed():
            return
        if self._flushing:
            self._flush_after(FRAME)
            return
        if not self._flooding and not self._urgent and self._received >= FLOOD:
            # A flood begins: its first frame too is FLOOD_FRAME after its first delta, not
            # a frame of its own FRAME after it (a whole screen of text, 5 KB, a frame's CPU).
            self._flooding, self._last_flush = True, self._first_received
        if self._deltas_wait():
            # Only deltas are queued: fold them now, a little at a time, so that the flush
            # that shows the end of the reply has only the last few left to fold.
            records = self._pending[:FLUSH_SLICE]
            if self._fold_ahead(records):
                self._pending = self._pending[FLUSH_SLICE:]
            self._flush_after(FOLD_EVERY)
            return
        self._flushing = True
        self._last_flush = self._clock()
        self._run(self._flush())

    def _deltas_wait(self) -> bool:
        """While pi floods, deltas are shown FLOOD_FRAME apart: a frame costs about the
        same however many deltas it shows, and fewer frames leave pi and the keys more CPU
        (and an ssh link fewer bytes). Any other record (the end of the message above all)
        is shown at once."""
        return self._flooding and not self._urgent and self._clock() - self._last_flush < FLOOD_FRAME

    async def _flush(self) -> None:
        try:
            for chained in range(CHAINED + 1):
                records, self._pending, self._urgent = self._pending, [], False
                self._flooding, self._received = self._received >= FLOOD, 0
                await self._apply(records)
                # What came during the flush (a reply begun while the message sent was
                # mounting) is shown with it, in the same frame: the views take no frame
                # while a flush runs, and the next flush begins before the frame can.
                if not self._urgent or self._closed() or chained == CHAINED:
                    break
                self._stop_timer()  # (the flush takes the deltas that wait for it too)
                self._last_flush = self._clock()
        finally:
            self._flushing = False
            if self._frames_held and not self._holding:  # the reply's first content is in the views
                self._frames_held = False
                self._hold_frames(0)
            if self._urgent and not self._closed():  # (more of it: next, not a frame after this flush began)
                self._flush_next()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _flush_next(self) -> None:
        """A flush after the current message, not when the frame's timer would have run it."""
        self._stop_timer()
        self._soon(self._start_flush)


async def fold_in_slices(records: list[Any], fold: Callable[[list[Any]], None]) -> None:
    """Fold a big backlog FLUSH_SLICE records at a time, giving the loop (keys) back in
    between."""
    for start in range(0, len(records), FLUSH_SLICE):
        if start:
            await asyncio.sleep(0)
        fold(records[start : start + FLUSH_SLICE])
