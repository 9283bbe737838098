"""Tool output that may be huge: a bounded preview for the transcript, and a screen that
shows all of it, rendering only the lines in view.

`output_preview` keeps a tool call's block small whatever the output size (the last
lines, or the first and last lines when expanded, each cut to a screen-friendly
length) and says how much it left out. `ToolOutputScreen` opens on a click on the
tool call (or `o` in the tool log) and scrolls through everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Offset, Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.widgets import Footer, Static

from widgets.safe_text import clean
from widgets.selection_marks import mark_selection

PREVIEW_LINES = 8  # collapsed: the last lines
EXPANDED_HEAD = 60  # expanded: the first and last lines
EXPANDED_TAIL = 60
PREVIEW_LINE_CHARS = 400  # a longer line is cut in the preview
WRAP = 2000  # the full view splits longer lines into rows of this many characters


@dataclass
class ShowToolOutput(Message):
    """Open the full output of a tool call."""

    tool_call_id: str


def _cut(line: str) -> str:
    """A long line's end, after "…": where a line ends is what a preview shows last."""
    return line if len(line) <= PREVIEW_LINE_CHARS else "…" + line[-PREVIEW_LINE_CHARS:]


def _first_lines(text: str, count: int) -> list[str]:
    """The first `count` lines, each at most its last PREVIEW_LINE_CHARS + 1 characters."""
    lines: list[str] = []
    start = 0
    while len(lines) < count and start <= len(text):
        end = text.find("\n", start)
        if end == -1:
            lines.append(text[max(start, len(text) - PREVIEW_LINE_CHARS - 1) :])
            break
        lines.append(text[max(start, end - PREVIEW_LINE_CHARS - 1) : end])
        start = end + 1
    return lines


def _last_lines(text: str, count: int) -> list[str]:
    """The last `count` lines, each at most its last PREVIEW_LINE_CHARS + 1 characters."""
    lines: list[str] = []
    end = len(text)
    while len(lines) < count and end >= 0:
        start = text.rfind("\n", 0, end) + 1
        lines.append(text[max(start, end - PREVIEW_LINE_CHARS - 1) : end])
        if start == 0:
            break
        end = start - 1
    return lines[::-1]


def output_preview(output: str, expanded: bool, style: str = "") -> Text:
    """At most PREVIEW_LINES (or EXPANDED_HEAD + EXPANDED_TAIL) lines of `output`, cleaned,
    with a note of how many lines were left out. Work is bounded by what is shown, not by
    the size of `output` (apart from counting its lines)."""
    output = output[:-1] if output.endswith("\n") else output
    total = output.count("\n") + 1
    text = Text()
    if expanded and total > EXPANDED_HEAD + EXPANDED_TAIL:
        head, tail = _first_lines(output, EXPANDED_HEAD), _last_lines(output, EXPANDED_TAIL)
        text.append(clean("\n".join(map(_cut, head))) + "\n", style)
        hidden = total - EXPANDED_HEAD - EXPANDED_TAIL
        text.append(f"… {hidden:,} lines hidden · click to see all …\n", "dim italic")
        text.append(clean("\n".join(map(_cut, tail))), style)
    elif expanded:
        text.append(clean("\n".join(map(_cut, _first_lines(output, total)))), style)
    else:
        if total > PREVIEW_LINES:
            text.append(f"… {total - PREVIEW_LINES:,} more lines (ctrl+o expands, click shows all)\n", "dim")
        text.append(clean("\n".join(map(_cut, _last_lines(output, PREVIEW_LINES)))), style)
    return text


def output_rows(output: str) -> list[str]:
    """`output` split into lines, lines longer than WRAP split into rows of WRAP characters."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if all(len(line) <= WRAP for line in lines):
        return lines
    rows: list[str] = []
    for line in lines:
        if len(line) <= WRAP:
            rows.append(line)
        else:
            rows.extend(line[start : start + WRAP] for start in range(0, len(line), WRAP))
    return rows


class LargeTextView(ScrollView, can_focus=True):
    """Read-only plain text of any size: only the rows in view are cleaned and rendered."""

    def __init__(self, text: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows = output_rows(text)
        width = max((len(row) for row in self.rows), default=0)
        self.virtual_size = Size(width + 1, len(self.rows))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, style)
        piece = self._shown(index)[scroll_x : scroll_x + width]
        strip = Strip([Segment(piece, style)]).crop_extend(0, width, style)
        strip = mark_selection(self, self.text_selection, index, strip, origin=scroll_x)
        return strip.apply_offsets(scroll_x, index)  # after the selection split it: each piece its own offset

    def _shown(self, index: int) -> str:
        """Row `index` as shown: cleaned, tabs expanded."""
        return clean(self.rows[index]).expandtabs(4)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text; only the rows it spans are read (the output may be huge)."""
        first = selection.start.y if selection.start is not None else 0
        last = min(selection.end.y if selection.end is not None else len(self.rows), len(self.rows) - 1)
        rows = "\n".join(self._shown(index) for index in range(first, last + 1))
        up = Offset(0, first)
        return Selection(selection.start and selection.start - up, selection.end and selection.end - up).extract(rows), "\n"


class ToolOutputScreen(ModalScreen[None]):
    """Everything a tool printed, scrollable; Esc or q closes it."""

    CSS_PATH = "tool_output.tcss"
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, output: str) -> None:
        super().__init__()
        self.title_text = title
        self.output = output

    def compose(self) -> ComposeResult:
        with Vertical(id="tool-output"):
            view = LargeTextView(self.output, id="tool-output-text")
            header = Text(clean(self.title_text)[:200], "bold")
            header.append(f"   {len(view.rows):,} lines · {len(self.output):,} characters", "dim")
            yield Static(header, id="tool-output-title")
            yield view
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(LargeTextView).focus()
