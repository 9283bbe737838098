"""A read-only modal page for `/hotkeys` and `/session`: a title and a Rich renderable.

Esc, Enter or q closes it; the body scrolls when it is taller than the screen.
Callers build the renderable from pideck's own data and pass foreign text through `safe`.
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from widgets.text.page_keys import PagedScroll


class InfoScreen(ModalScreen[None]):
    CSS_PATH = "info_screen.tcss"
    AUTO_FOCUS = "#info-body"
    BINDINGS = [
        Binding("escape,enter,q", "dismiss(None)", "Close"),
    ]

    def __init__(self, title: str, body: RenderableType, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="info"):
            yield Static(self.title_text, id="info-title", markup=False)
            with PagedScroll(id="info-body"):
                yield Static(self.body, id="info-content")
            yield Static("↑↓ PgUp PgDn scroll · Esc close", id="info-hint")
        yield Footer()
