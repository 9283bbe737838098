"""Search the transcript, as pi's fullscreen search does.

Ctrl+S (Ctrl+Shift+F where the terminal reports it) opens a bar above the prompt. Typing
finds every occurrence in the messages shown (case-insensitive unless the text has a
capital) and selects the one nearest above the bottom of the view; Enter, Down or Ctrl+G
go to the next one, Shift+Enter, Up or Ctrl+Shift+G to the previous one, wrapping round;
Esc closes the bar. The match is shown as a text selection, and the transcript scrolls
to it (which, like any scroll up, stops it following the stream until the end is
reached again). Searched: the text each widget shows, as lines: a streamed reply's
rendered lines, a plain widget's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Offset
from textual.message import Message
from textual.selection import Selection
from textual.widget import Widget
from textual.widgets import Input, Static

from widgets.markdown_stream import StreamingText
from widgets.message_views import MessageView


@dataclass(frozen=True, order=True)
class Match:
    place: tuple[int, int, int]  # (widget's place in the transcript, line, column): the order
    widget: Widget = field(compare=False)
    line: int = field(compare=False)
    start: int = field(compare=False)
    end: int = field(compare=False)


def find_in_lines(lines: list[str], query: str) -> Iterator[tuple[int, int, int]]:
    """(line, start, end) of each occurrence of `query`, without overlaps; case-insensitive
    unless `query` has a capital letter (smart case)."""
    fold = query == query.lower()
    needle = query.lower() if fold else query
    for y, line in enumerate(lines):
        lowered = line.lower() if fold else line
        haystack = lowered if len(lowered) == len(line) else line  # offsets must stay the line's
        start = haystack.find(needle)
        while start >= 0 and needle:
            yield y, start, start + len(needle)
            start = haystack.find(needle, start + len(needle))


def searched_widgets(transcript: Widget) -> Iterator[Widget]:
    """The transcript's widgets that show text, in order (a message's header, blocks, footer)."""
    for child in transcript.children:
        if not child.display:
            continue
        if isinstance(child, MessageView):
            yield from (widget for widget in child.children if widget.display)
        else:
            yield child


def widget_lines(widget: Widget) -> list[str] | None:
    """What `widget` shows as lines of text, in the coordinates its selection uses."""
    if isinstance(widget, StreamingText):
        return widget.visible_text().split("\n")
    if isinstance(widget, Static):
        return str(widget.visual).split("\n")
    return None


def find_matches(transcript: Widget, query: str) -> list[Match]:
    matches = []
    for place, widget in enumerate(searched_widgets(transcript)):
        lines = widget_lines(widget)
        if lines is not None:
            for line, start, end in find_in_lines(lines, query):
                matches.append(Match((place, line, start), widget, line, start, end))
    return matches


class SearchBar(Horizontal):
    """The search field and its count; `transcript` is the widget searched (set by the app)."""

    BINDINGS = [
        Binding("escape", "close", "Close search", show=False),
        Binding("down,ctrl+g", "step(1)", "Next match", show=False),
        Binding("up,shift+enter,ctrl+shift+g", "step(-1)", "Previous match", show=False),
    ]

    class Closed(Message):
        """Esc closed the bar: the focus goes back (the app's choice)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.transcript: Widget | None = None
        self._current: Match | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search the transcript · enter/↓ next · ↑ previous · esc close", id="search-input")
        yield Static("", id="search-count")

    def open(self) -> None:
        self.display = True
        self.query_one(Input).focus()
        self._show(0)

    def action_close(self) -> None:
        self.display = False
        self._current = None
        self.screen.selections = {}
        self.post_message(self.Closed())

    def action_step(self, direction: int) -> None:
        self._show(direction)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show(0)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._show(1)

    def _show(self, direction: int) -> None:
        """Find again (the transcript may have grown) and select the match `direction`
        steps from the current one, or, for a new search, the one nearest above the view's
        bottom."""
        count = self.query_one("#search-count", Static)
        query = self.query_one(Input).value
        transcript = self.transcript
        matches = find_matches(transcript, query) if query and transcript is not None else []
        if not matches:
            self._current = None
            self.screen.selections = {}
            count.update("no match" if query else "")
            return
        assert transcript is not None
        if self._current is None or direction == 0:
            bottom = transcript.scroll_y + transcript.scrollable_content_region.height
            above = [i for i, match in enumerate(matches) if self._y(match) < bottom]
            index = above[-1] if above else 0
        elif direction > 0:
            later = [i for i, match in enumerate(matches) if match > self._current]
            index = later[0] if later else 0
        else:
            earlier = [i for i, match in enumerate(matches) if match < self._current]
            index = earlier[-1] if earlier else len(matches) - 1
        match = self._current = matches[index]
        self.screen.selections = {match.widget: Selection(Offset(match.start, match.line), Offset(match.end, match.line))}
        transcript.scroll_to(y=max(0, self._y(match) - transcript.scrollable_content_region.height // 3), animate=False)
        count.update(f"{index + 1}/{len(matches)}")

    def _y(self, match: Match) -> int:
        """The match's line in the transcript's scrolled content (a wrapped plain line: its
        widget's line at most)."""
        transcript = self.transcript
        assert transcript is not None
        widget = match.widget
        top = widget.content_region.y - transcript.scrollable_content_region.y + round(transcript.scroll_y)
        return top + min(match.line, max(0, widget.content_region.height - 1))
