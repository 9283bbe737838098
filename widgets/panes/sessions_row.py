"""The row of open sessions above the conversation, shown once a second one is open: each
session's number (its Alt key), state symbol and name, and `held` for a pi the holder keeps;
the one shown is highlighted, one that needs you stands out. Clicking a session shows it."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from protocol.state.desk import SYMBOLS, Mark, SessionLine
from widgets.colors import palette

# The palette role of each mark's symbol (and of the name, for those that need the user).
ROLES = {
    Mark.NEEDS_YOU: "warning", Mark.FAILED: "error", Mark.EXITED: "error", Mark.STARTING: "muted",
    Mark.WORKING: "accent", Mark.DONE: "success", Mark.IDLE: "muted",
}  # fmt: skip
SEPARATOR = "  "


def row_text(lines: list[SessionLine]) -> tuple[Text, list[tuple[int, int, int]]]:
    """The row's text and where each session is in it (start, end, number), for clicks."""
    text = Text(no_wrap=True, overflow="ellipsis")
    spans: list[tuple[int, int, int]] = []
    for line in lines:
        if text:
            text.append(SEPARATOR)
        start = len(text)
        role = ROLES[line.mark]
        label = Text()
        label.append(f"{line.number} ", palette.style("muted"))
        label.append(SYMBOLS[line.mark] + " ", palette.style(role))
        label.append(line.name, palette.style(role) if line.mark in (Mark.NEEDS_YOU, Mark.FAILED) else "")
        if line.mark is Mark.NEEDS_YOU:
            label.append(" needs you", palette.style(role))
        if line.held is not None:
            label.append(" held", palette.style("muted"))
        if line.current:
            label.stylize("reverse")
        text.append_text(label)
        spans.append((start, len(text), line.number))
    return text, spans


class SessionsRow(Static):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text()

    class Chosen(Message):
        """A session was clicked."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._spans: list[tuple[int, int, int]] = []
        self._shown: list[tuple[int, str, Mark, bool, int | None]] = []

    def show_lines(self, lines: list[SessionLine]) -> None:
        """The sessions as they are now (none: the row hides)."""
        key = [(line.number, line.name, line.mark, line.current, line.held) for line in lines]
        if key == self._shown:
            return
        self._shown = key
        self.display = bool(lines)
        text, self._spans = row_text(lines)
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        for start, end, number in self._spans:
            if start <= event.x < end:
                self.post_message(self.Chosen(number))
                return
