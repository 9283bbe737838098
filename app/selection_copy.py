"""Copying the text selected with the mouse (OSC 52, so it works over ssh), as pi's
fullscreen mode does: at once when a drag ends, unless pi's `fullscreenCopyOnSelect`
setting is false, and with Ctrl+C, which then also ends the selection."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


class SelectionCopy:
    def __init__(self, app: PideckApp, on_select: bool) -> None:
        self.app = app
        self.on_select = on_select
        self._copied: Any = None  # the screen's selections last copied, not to copy them twice

    def selected(self) -> None:
        """A mouse button went up: copy what a drag selected, if anything, once."""
        screen = self.app.screen
        if self.on_select and screen.selections is not self._copied and not self.app.searching:
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
        self.app.notify(f"Copied {len(text):,} characters", timeout=2)
