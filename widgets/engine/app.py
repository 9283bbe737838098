"""An App whose frames reach the terminal through the engine, and what pideck's App asks of
Textual's insides: writing to the terminal, taking a toast off, knowing that it closes.

Where the engine runs, `_display` sends only the pieces of lines the terminal does not show
yet (unchanged_lines.py), and has the terminal move rows itself where a frame only scrolled
the transcript (scroll_in_place.py); Textual's writes every piece of every frame.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import RenderableType
from textual import events
from textual.app import App, ReturnType
from textual.geometry import Size
from textual.notifications import Notification
from textual.screen import Screen

from widgets.engine import ON, install
from widgets.engine.dim_filter import use_safe_dim_filter
from widgets.engine.scroll_in_place import Scroll

if ON:
    from widgets.engine.private import CompositorUpdate
    from widgets.engine.rows_compositor import RowsCompositor
    from widgets.engine.sgr import terminal_erases
    from widgets.engine.unchanged_lines import TerminalLines, UnchangedLeftOut


class EngineApp(App[ReturnType]):
    """pideck's App's base: the engine's patches installed as it is made, its frames through
    the engine where it runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        install()
        if (filters := getattr(self, "_filters", None)) is not None:
            use_safe_dim_filter(filters)  # TEXTUAL_FILTERS=dim with the terminal's own colours
        # what the terminal shows
        self.terminal_lines: TerminalLines | None = TerminalLines(terminal_erases(os.environ.get("TERM", ""))) if ON else None
        self._drawn_by: Screen[Any] | None = None  # the screen whose update the terminal shows

    @property
    def closing(self) -> bool:
        """Textual is closing the app (its widgets are going away)."""
        return bool(getattr(self, "_closing", False))

    def write_to_terminal(self, sequence: str) -> None:
        """Write `sequence` to the terminal as it is (nothing where there is none)."""
        if (driver := getattr(self, "_driver", None)) is not None:
            driver.write(sequence)

    def unnotify(self, notification: Notification) -> None:
        """Take a toast off the screen before its time (where Textual lacks the way, it stays
        until its time runs out)."""
        if (unnotify := getattr(self, "_unnotify", None)) is not None:
            unnotify(notification)

    def forget_terminal(self) -> None:
        """The terminal lost what it showed (the shell had it): the next frames write it all."""
        if self.terminal_lines is not None:
            self.terminal_lines.forget()

    def _on_resize(self, event: events.Resize) -> None:
        """A web page's size that is not the one its driver heard last is put right before
        Textual's handler sees it: the driver posts the size it starts at a step late, after
        the page's own when pideck starts fast (a held pi: nothing to spawn), and the main
        screen, told both, laid out for one, then the other, for ever, drawing nothing (both
        modes: the page hangs either way)."""
        latest = latest_page_size(getattr(self, "_driver", None), event)
        if latest is not event:
            event.prevent_default()  # (Textual's App._on_resize is not called with it)
            self.post_message(latest)

    def can_move_rows(self, screen: Screen[Any], scroll: Scroll) -> bool:
        """Whether `screen`'s next update may have the terminal move rows itself: the engine
        runs, it is the screen shown, alone, and drew what the terminal shows."""
        return (self.terminal_lines is not None and self._to_terminal_lines() and screen is self.screen
                and len(self.screen_stack) == 1 and self._drawn_by is screen
                and self.terminal_lines.can_move_rows(scroll, self.size))

    if ON:
        def _to_terminal_lines(self) -> bool:
            """Updates go through `terminal_lines` (not while Textual would write none itself)."""
            return (self._running and not self._closed and not self._batch_count
                    and self._driver is not None and not self.is_headless and not self.is_inline)

        def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
            """Textual's, sending only the pieces of lines the terminal does not show yet."""
            compositor, lines = screen._compositor, self.terminal_lines
            if isinstance(renderable, CompositorUpdate) and lines is not None and self._to_terminal_lines():
                text = lines.render(renderable, self.console, self.size)
                self._drawn_by = screen
                if isinstance(compositor, RowsCompositor):
                    compositor.drawn(True)
                if not lines.cursor_moved(self.cursor_position) and not text:
                    return  # (the terminal's own cursor may be shown: Textual moves it after each update)
                renderable = UnchangedLeftOut(text)
            elif renderable is not None:
                self._drawn_by = None
                if isinstance(compositor, RowsCompositor):
                    compositor.drawn(False)
            super()._display(screen, renderable)


def latest_page_size(driver: object, event: events.Resize) -> events.Resize:
    """`event`, or one of the size a web driver last heard from its page where that differs."""
    if type(driver).__name__ != "WebDriver":
        return event
    size = getattr(driver, "_size", None)
    if not (isinstance(size, tuple) and len(size) == 2 and all(isinstance(n, int) and n > 0 for n in size)):
        return event
    latest = Size(*size)
    return event if latest == event.size else events.Resize(latest, latest)
