"""The screen's frame timer: a frame at once when the frames before it kept to the frame
rate, else as soon as they would.

The rate is kept over a few frames, not between each two: after a pause, up to `BURST`
frames are drawn at once, one after the other, before frames wait a frame's time apart.
A short reply is two frames close together: the prompt emptied at Enter, then the message
sent with the answer (see `hold`). Each waiting a frame's time after the one before, the
answer had reached the screen 50 ms after Enter (pi's own TUI: 20 ms). A flood keeps to the
rate, as before.

Textual's update timer (a `Timer` that is paused between frames) keeps to a grid of frame
times that it steps over when it was paused: a refresh soon after a frame drawn at once
waits for the grid point after the next one, one to two frame times (17 to 33 ms at 60 fps).
A delta right after the frame before it (the last tokens of a reply, the model's name
after the frames of start-up, a key typed while a reply streams) was drawn a frame late.

Frames can be held for a moment (`hold`): what is mounted meanwhile is laid out once, in the
frame after `release` or the hold's end, whichever comes first.
"""

from __future__ import annotations

import asyncio

from textual.timer import EventTargetGone, Timer
from textual.widget import Widget
from widgets.engine.private import textual_time as _time

BURST = 3  # frames drawn at once after a pause


class FrameTimer(Timer):
    """Paused until a refresh resumes it; its callback (the screen's frame) pauses it again."""

    def __init__(self, screen: Widget, interval: float) -> None:
        super().__init__(screen, interval, name="screen_update", callback=getattr(screen, "_on_timer_update"), pause=True)
        self.last_tick = 0.0
        self.credit = 0.0  # frames that may be drawn at once, from last_tick: one more each frame's time
        self._held_until = 0.0
        self._free = asyncio.Event()  # set unless frames are held
        self._free.set()

    def hold(self, seconds: float) -> None:
        """No frame for up to `seconds` from now (0: frames again, as `release`)."""
        if seconds <= 0:
            self.release()
            return
        self._held_until = _time.get_time() + seconds
        self._free.clear()

    def release(self) -> None:
        self._held_until = 0.0
        self._free.set()

    def _credit(self, now: float) -> float:
        return min(BURST, self.credit + (now - self.last_tick) / self._interval)

    def delay(self, now: float) -> float:
        """Seconds before the next frame may be drawn."""
        return max(0.0, (1 - self._credit(now)) * self._interval)

    def _drawn(self, now: float) -> None:
        self.credit = max(0.0, self._credit(now) - 1)
        self.last_tick = now

    async def _run(self) -> None:
        # The first frame waits a frame's time after the first refresh, as Textual's does: the
        # screen is being mounted, and a frame at once would lay out a part of it (25 ms more
        # of start-up, each of its layouts redone).
        await self._active.wait()
        self.last_tick = _time.get_time()
        while True:
            await self._active.wait()
            if (held := self._held_until - _time.get_time()) > 0:
                try:
                    await asyncio.wait_for(self._free.wait(), held)
                except TimeoutError:
                    self.release()
                if not self._active.is_set():
                    continue  # a layout drew the frame meanwhile
            if (wait := self.delay(_time.get_time())) > 0:
                await _time.sleep(wait)
                if not self._active.is_set():
                    continue  # a layout drew the frame meanwhile (it pauses the timer)
            self._drawn(_time.get_time())
            try:
                await self._tick(next_timer=self.last_tick, count=0)
            except EventTargetGone:
                break


def start_frame_timer(screen: Widget, interval: float) -> FrameTimer:
    """A FrameTimer for `screen`, running, stopped with the screen's other timers."""
    timer = FrameTimer(screen, interval)
    timer._start()
    screen._timers.add(timer)
    return timer
