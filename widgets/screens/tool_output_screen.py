"""Everything a tool printed (or any long text), on a screen of its own: only the lines in view are drawn."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from widgets.text.safe import one_row
from widgets.tools.output import LargeTextView, RowStyler


class ToolOutputScreen(ModalScreen[None]):
    """Everything a tool printed, scrollable; Esc or q closes it."""

    CSS_PATH = "tool_output_screen.tcss"
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str | Text, output: str, styler: RowStyler | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.output = output
        self.styler = styler

    def compose(self) -> ComposeResult:
        with Vertical(id="tool-output"):
            view = LargeTextView(self.output, self.styler, id="tool-output-text")
            header = self.title_text[:200] if isinstance(self.title_text, Text) else Text(one_row(self.title_text)[:200], "bold")
            header.append(f"   {view.line_count:,} lines · {len(self.output):,} characters", "dim")
            yield Static(header, id="tool-output-title")
            yield view
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(LargeTextView).focus()
