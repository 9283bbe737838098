"""The screen's frame timer: a frame at once when the frames before it kept to the frame
rate, else as soon as they would.

The rate is kept over a few frames, not between each two: after a pause, up to `BURST`
frames are drawn at once, one after the other, before frames wait a frame's time apart.
A short reply is three frames in 20 ms: the prompt emptied at Enter, the message sent,
then the answer. Each waiting a frame's time after the one before, the answer reached
the screen 50 ms after Enter (pi's own TUI: 20 ms). A flood keeps to the rate, as before.

Textual's update timer (a `Timer` that is paused between frames) keeps to a grid of frame
times that it steps over when it was paused: a refresh soon after a frame drawn at once
waits for the grid point after the next one, one to two frame times (17 to 33 ms at 60 fps).
A delta right after the frame before it (the last tokens of a reply, the model's name
after the frames of start-up, a key typed while a reply streams) was drawn a frame late.
"""

from __future__ import annotations

from textual.timer import EventTargetGone, Timer
from textual.widget import Widget
from widgets.textual_private import textual_time as _time

BURST = 3  # frames drawn at once after a pause


class FrameTimer(Timer):
    """Paused until a refresh resumes it; its callback (the screen's frame) pauses it again."""

    def __init__(self, screen: Widget, interval: float) -> None:
        super().__init__(screen, interval, name="screen_update", callback=getattr(screen, "_on_timer_update"), pause=True)
        self.last_tick = 0.0
        self.credit = 0.0  # frames that may be drawn at once, from last_tick: one more each frame's time

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
