"""A screen whose frames the engine makes, where it runs: its compositor renders only the
rows a frame repaints (rows_compositor.py), its frame timer draws the frame after a pause at
once (frame_timer.py), and the scrollbar of `scrollbar_owner` is painted in the frame of the
layout that moved its thumb.
"""

from __future__ import annotations

from typing import Any

from textual.screen import UPDATE_PERIOD, Screen, ScreenResultType
from textual.widget import Widget

from widgets.engine import ON
from widgets.engine.scroll_in_place import Scroll

if ON:
    from widgets.engine.frame_timer import FrameTimer, start_frame_timer
    from widgets.engine.rows_compositor import RowsCompositor


class EngineScreen(Screen[ScreenResultType]):
    """pideck's main screen's base (see above); where the engine does not run, Textual's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if ON:
            self._compositor = RowsCompositor()  # (nothing laid out yet)
            self._compositor.scroller = self._can_move_rows
        self._frame_timer: FrameTimer | None = None  # started by the first refresh
        self.scrollbar_owner: Widget | None = None  # a widget whose scrollbar moves with most frames

    def hold_frames(self, seconds: float) -> None:
        """No frame for up to `seconds` (0: frames again): what mounts meanwhile is laid out
        once (where the engine runs; Textual's frames come as they come)."""
        if ON:
            self._update_timer.hold(seconds)

    def _can_move_rows(self, scroll: Scroll) -> bool:
        """Whether the terminal may move the rows of `scroll` itself (the app says)."""
        can = getattr(self.app, "can_move_rows", None)  # (an EngineApp's; not a test's)
        return can is not None and bool(can(self, scroll))

    if ON:
        @property
        def _update_timer(self) -> FrameTimer:
            """Textual's, but the frame after a pause is not drawn a frame late (frame_timer.py)."""
            if self._frame_timer is None:
                self._frame_timer = start_frame_timer(self, UPDATE_PERIOD)
            return self._frame_timer

        def _compositor_refresh(self) -> None:
            """Textual's, with the scrollbar of `scrollbar_owner` in the frame whose layout moved
            its thumb: its refresh would wait for a frame of its own (1.5 ms, after each line a
            reply adds to the transcript)."""
            owner = self.scrollbar_owner
            bar = None if owner is None else owner._vertical_scrollbar
            if bar is not None and bar._repaint_required and bar in self._compositor.visible_widgets:
                bar._repaint_required = False
                self._compositor.update_widgets({bar})
            super()._compositor_refresh()
