"""The bar shown above the editor while pi is not running: what happened and a restart button."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Static

from widgets.colors import palette
from widgets.text.safe import clean


class CrashBar(Horizontal):
    """Hidden while pi runs. `show(reason)` displays it; the button runs `app.restart_pi`."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    def compose(self) -> ComposeResult:
        yield Static(id="crash-reason")
        yield Button("Restart pi (ctrl+r)", id="crash-restart", variant="warning", action="screen.restart_pi")

    def show(self, reason: str, detail: str = "") -> None:
        text = Text()
        text.append(clean(reason), "bold")
        text.append("\n")
        text.append(
            clean(detail) or "The transcript and your prompt stay here; restart pi to resume this session.",
            palette.style("muted"),
        )
        self.query_one("#crash-reason", Static).update(text)
        button = self.query_one("#crash-restart", Button)
        button.disabled = False
        button.label = "Restart pi (ctrl+r)"
        self.display = True

    def restarting(self) -> None:
        button = self.query_one("#crash-restart", Button)
        button.disabled = True
        button.label = "Restarting…"

    def hide(self) -> None:
        self.display = False
