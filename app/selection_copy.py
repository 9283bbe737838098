"""Copying the text selected with the mouse (OSC 52, so it works over ssh), as pi's
fullscreen mode does: at once when a drag ends, unless pi's `fullscreenCopyOnSelect`
setting is false, and with Ctrl+C, which then also ends the selection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from app.notifier import Notifier


class SelectionCopy:
    """`searching` says the transcript's search marks its matches as selections (not copied)."""

    def __init__(self, app: App[Any], on_select: bool, searching: Callable[[], bool]) -> None:
        self.app = app
        self.on_select = on_select
        self._searching = searching
        self._tell = Notifier(app.notify)
        self._copied: Any = None  # the screen's selections last copied, not to copy them twice

    def selected(self) -> None:
        """A mouse button went up: copy what a drag selected, if anything, once."""
        screen = self.app.screen
        if self.on_select and screen.selections is not self._copied and not self._searching():
            self._copied = screen.selections
            if text := screen.get_selected_text():
                self._copy(text)

    def copy(self) -> bool:
        """Ctrl+C: copy the selection and end it; False if there is none."""
        screen = self.app.screen
        text = screen.get_selected_text()
        if not text:
            return False
        self._copy(text)
        screen.clear_selection()
        return True

    def _copy(self, text: str) -> None:
        self.app.copy_to_clipboard(text)
        self._tell.say(f"Copied {len(text):,} characters", timeout=2)
