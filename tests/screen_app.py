"""A tiny app that shows one screen, for tests of a screen on its own (no pideck, no pi)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen


class ScreenApp(App[None]):
    """Pushes `first` when it starts; `results` collects what it dismisses with. No command
    palette: its Ctrl+P is a key of some screens, as in pideck (where F1 opens it)."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, first: Screen[Any]) -> None:
        super().__init__()
        self.first = first
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)
