"""Search the transcript, as pi's fullscreen search does.

Ctrl+S (Ctrl+Shift+F where the terminal reports it) opens a bar above the prompt. Typing
finds every occurrence in the messages shown (case-insensitive unless the text has a
capital) and selects the one nearest above the bottom of the view; Enter, Down or Ctrl+G
go to the next one, Shift+Enter, Up or Ctrl+Shift+G to the previous one, wrapping round;
Esc closes the bar. The match is shown as a text selection, and the transcript scrolls
to it (which, like any scroll up, stops it following the stream until the end is
reached again). Searched: the text each widget shows, as lines: a streamed reply's
rendered lines, a plain widget's text.

The messages a long session leaves out (older than the views mounted) are searched in the
model's text: the count says how many of them match, and stepping back past the first
match shown mounts them down to the newest that does.
"""

from __future__ import annotations

from bisect import bisect_right
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

from widgets.markdown.stream import StreamingText
from widgets.transcript.message_views import MessageView
from widgets.engine.wrap import line_breaks
from widgets.transcript.transcript import Transcript


@dataclass(frozen=True, order=True)
class Match:
    place: tuple[int, int, int]  # (widget's place in the transcript, line, column): the order
    widget: Widget = field(compare=False)
    line: int = field(compare=False)
    start: int = field(compare=False)
    end: int = field(compare=False)


def _needle(query: str) -> tuple[str, bool]:
    """What to look for, and whether to fold case: smart case, as pi and vim search."""
    fold = query == query.lower()
    return (query.lower() if fold else query), fold


def find_in_lines(lines: list[str], query: str) -> Iterator[tuple[int, int, int]]:
    """(line, start, end) of each occurrence of `query`, without overlaps; case-insensitive
    unless `query` has a capital letter (smart case)."""
    needle, fold = _needle(query)
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


def earlier_hits(transcript: Transcript, query: str) -> list[int]:
    """Keys of the items the transcript leaves out (oldest first) whose text has `query`."""
    needle, fold = _needle(query)
    return [key for key, text, lowered in transcript.left_out_texts() if needle in (lowered if fold else text)]


def _index_of(matches: list[Match], match: Match) -> int | None:
    """Where `match` (found before the transcript changed) is in `matches`."""
    for index, other in enumerate(matches):
        if (other.widget, other.line, other.start) == (match.widget, match.line, match.start):
            return index
    return None


class SearchBar(Horizontal):
    """The search field and its count; `transcript` is the widget searched (set by the app)."""

    DEFAULT_CSS = """
    SearchBar {
        display: none;
        height: 1;
        background: $boost;
    }
    SearchBar #search-input {
        border: none;
        height: 1;
        width: 1fr;
        padding: 0 1;
    }
    SearchBar #search-count {
        width: auto;
        padding: 0 1;
        color: $text-muted;
    }
    """
    BINDINGS = [
        Binding("escape", "close", "Close search", show=False),
        Binding("down,ctrl+g", "step(1)", "Next match", show=False),
        Binding("up,shift+enter,ctrl+shift+g", "step(-1)", "Previous match", show=False),
    ]

    class Closed(Message):
        """Esc closed the bar: the focus goes back (the app's choice)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.transcript: Transcript | None = None
        self._current: Match | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search the transcript · enter/↓ next · ↑ previous · esc close", id="search-input")
        yield Static("", id="search-count")

    async def open(self, text: str | None = None) -> None:
        """Show the bar, with `text` to find if given, and find."""
        self.display = True
        field = self.query_one(Input)
        if text is not None:
            with field.prevent(Input.Changed):  # (found once, here)
                field.value = text
        field.focus()
        await self._show(0)

    def action_close(self) -> None:
        self.display = False
        self._current = None
        self.screen.selections = {}
        self.post_message(self.Closed())

    async def action_step(self, direction: int) -> None:
        await self._show(direction)

    @on(Input.Changed)
    async def _changed(self, event: Input.Changed) -> None:
        event.stop()
        await self._show(0)

    @on(Input.Submitted)
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self._show(1)

    async def _show(self, direction: int) -> None:
        """Find again (the transcript may have grown) and select the match `direction`
        steps from the current one, or, for a new search, the one nearest above the view's
        bottom. Before the first match shown, the messages left out are next."""
        count = self.query_one("#search-count", Static)
        query = self.query_one(Input).value
        transcript = self.transcript
        if not query or transcript is None:
            self._select(None)
            count.update("")
            return
        matches = find_matches(transcript, query)
        back_past_first = direction < 0 and self._current is not None and _index_of(matches, self._current) == 0
        index = self._pick(transcript, matches, direction)
        if index is None or back_past_first:
            earlier = earlier_hits(transcript, query)
            if earlier:  # mounting hundreds of messages takes a moment: say so first
                count.update("bringing in earlier messages…")
                self.call_after_refresh(self._show_earlier, transcript, query, matches, earlier)
                return
        self._present(transcript, query, matches, index)

    async def _show_earlier(self, transcript: Transcript, query: str, matches: list[Match], earlier: list[int]) -> None:
        if self.query_one(Input).value != query:
            return  # typed on meanwhile: that search has replaced this one
        index, matches = await self._reveal(transcript, query, matches, earlier)
        self._present(transcript, query, matches, index, laid_out=False)

    def _present(
        self, transcript: Transcript, query: str, matches: list[Match], index: int | None, laid_out: bool = True
    ) -> None:
        """Select match `index` and scroll to it (once laid out), and show the count."""
        count = self.query_one("#search-count", Static)
        if index is None:
            self._select(None)
            count.update("no match")
            return
        match = matches[index]
        self._select(match)
        if laid_out:
            self._bring_into_view(match)
        else:  # views just mounted are laid out at the next refresh
            self.call_after_refresh(self._bring_into_view, match)
        left_out = len(earlier_hits(transcript, query)) if transcript.hidden_before else 0
        count.update(f"{index + 1}/{len(matches)}" + (f" · {left_out} earlier" if left_out else ""))

    def _pick(self, transcript: Transcript, matches: list[Match], direction: int) -> int | None:
        """The index of the match to select among those shown (wrapping round), None if none."""
        if not matches:
            return None
        current = self._current
        here = _index_of(matches, current) if current is not None else None
        if current is None or direction == 0:
            bottom = transcript.scroll_y + transcript.scrollable_content_region.height
            above = [i for i, match in enumerate(matches) if self._y(match) < bottom]
            return above[-1] if above else 0
        if direction > 0:
            later = [i for i, match in enumerate(matches) if match > current] if here is None else [here + 1]
            return later[0] if later and later[0] < len(matches) else 0
        earlier = [i for i, match in enumerate(matches) if match < current] if here is None else [here - 1]
        return earlier[-1] if earlier and earlier[-1] >= 0 else len(matches) - 1

    async def _reveal(
        self, transcript: Transcript, query: str, matches: list[Match], earlier: list[int]
    ) -> tuple[int | None, list[Match]]:
        """Mount left-out messages down to the newest that has `query` in what it shows
        (the model's text may have it where the view does not); the match just above the
        first one shown before, and the matches now."""
        first = matches[0] if matches else None
        while earlier:
            await transcript.reveal(earlier.pop())
            matches = find_matches(transcript, query)
            above = _index_of(matches, first) if first is not None else len(matches)
            if above:  # neither None (first gone) nor 0 (nothing above it)
                return above - 1, matches
        return (len(matches) - 1 if matches else None), matches

    def _select(self, match: Match | None) -> None:
        self._current = match
        self.screen.selections = {} if match is None else {
            match.widget: Selection(Offset(match.start, match.line), Offset(match.end, match.line))
        }

    def _bring_into_view(self, match: Match) -> None:
        transcript = self.transcript
        if transcript is not None and match.widget.is_attached:
            y = self._y(match, wrapped=True)
            transcript.scroll_to(y=max(0, y - transcript.scrollable_content_region.height // 3), animate=False)

    def _y(self, match: Match, wrapped: bool = False) -> int:
        """The match's row in the transcript's scrolled content. In a Static, whose lines
        wrap, that is the row of its line's start, or with `wrapped` the row it wraps to
        (the row of a word at the end of a long pasted line, not the line's first)."""
        transcript = self.transcript
        assert transcript is not None
        widget = match.widget
        top = widget.content_region.y - transcript.scrollable_content_region.y + round(transcript.scroll_y)
        row = match.line
        if wrapped and isinstance(widget, Static) and not isinstance(widget, StreamingText):
            row = wrapped_row(str(widget.visual).split("\n"), match.line, match.start, widget.content_region.width)
        return top + min(row, max(0, widget.content_region.height - 1))


def wrapped_row(lines: list[str], line: int, column: int, width: int) -> int:
    """The row of `column` in `lines[line]` once every line is wrapped at `width`, as a Static
    wraps them (from the line's start, for a match in a long line)."""
    if width <= 0 or line >= len(lines):
        return line
    row = sum(len(line_breaks(text, width)) + 1 for text in lines[:line])
    return row + bisect_right(line_breaks(lines[line], width), column)
