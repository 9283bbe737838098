"""Tool output that may be huge: a bounded preview for the transcript, and a screen that
shows all of it, rendering only the lines in view.

`output_preview` keeps a tool call's block small whatever the output size (the last
lines, or the first and last lines when expanded, each cut to a screen-friendly
length) and says how much it left out. `widgets.screens.tool_output_screen` opens on a click on the
tool call (or `o` in the tool log) and scrolls through everything.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Offset, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from widgets.markdown.lines import _one_cell_each
from widgets.text.page_keys import PagesAtOnce
from widgets.text.safe import SEQUENCE_LIMIT, clean_lines, one_row, spanning
from widgets.text.selection_marks import mark_selection

PREVIEW_LINES = 8  # collapsed: the last lines
EXPANDED_HEAD = 60  # expanded: the first and last lines
EXPANDED_TAIL = 60
PREVIEW_LINE_CHARS = 400  # a longer line is cut in the preview
WRAP = 2000  # the full view splits longer lines into rows of about this many characters
STYLED_LINE_ROWS = 10  # a line split into more rows than this shows plain in the full view


@dataclass
class ShowToolOutput(Message):
    """Open the full output of a tool run (by its key, tool_runs.run_key)."""

    run_key: str


_SGR = re.compile(r"(?:\x1b\[|\x9b)[0-9;:]*m")


def _piece(text: str, start: int, end: int) -> str:
    """Line `text[start:end]` as a preview shows it: a line longer than PREVIEW_LINE_CHARS
    its end after "…" (where a line ends is what a preview shows last), never cut inside a
    control sequence (its parameters would show as text), the colours set before the cut
    kept (the SGR sequences of the 64 KB before it)."""
    if end - start <= PREVIEW_LINE_CHARS:
        return text[start:end]
    cut = end - PREVIEW_LINE_CHARS
    if sequence := spanning(text, cut, start):
        cut = sequence[0]
    colours = "".join(_SGR.findall(text, max(start, cut - SEQUENCE_LIMIT), cut))
    return "…" + colours + text[cut:end]


def _first_lines(text: str, count: int) -> list[str]:
    """The first `count` lines, each as `_piece` cuts it."""
    lines: list[str] = []
    start = 0
    while len(lines) < count and start <= len(text):
        end = text.find("\n", start)
        if end == -1:
            lines.append(_piece(text, start, len(text)))
            break
        lines.append(_piece(text, start, end))
        start = end + 1
    return lines


def _last_lines(text: str, count: int) -> list[str]:
    """The last `count` lines, each as `_piece` cuts it."""
    lines: list[str] = []
    end = len(text)
    while len(lines) < count and end >= 0:
        start = text.rfind("\n", 0, end) + 1
        lines.append(_piece(text, start, end))
        if start == 0:
            break
        end = start - 1
    return lines[::-1]


def output_preview(output: str, expanded: bool, style: str = "", render: Callable[[str, str], Text] | None = None) -> Text:
    """At most PREVIEW_LINES (or EXPANDED_HEAD + EXPANDED_TAIL) lines of `output`, cleaned
    (or made into text by `render(lines, style)`, which must clean them), with a note of how
    many lines were left out. Work is bounded by what is shown, not by the size of `output`
    (apart from counting its lines)."""
    shown = render or _plain
    output = output[:-1] if output.endswith("\n") else output
    total = output.count("\n") + 1
    text = Text()
    if expanded and total > EXPANDED_HEAD + EXPANDED_TAIL:
        head, tail = _first_lines(output, EXPANDED_HEAD), _last_lines(output, EXPANDED_TAIL)
        text.append_text(shown("\n".join(head), style))
        hidden = total - EXPANDED_HEAD - EXPANDED_TAIL
        text.append(f"\n… {hidden:,} lines hidden · click to see all …\n", "dim italic")
        text.append_text(shown("\n".join(tail), style))
    elif expanded:
        text.append_text(shown("\n".join(_first_lines(output, total)), style))
    else:
        if total > PREVIEW_LINES:
            text.append(f"… {total - PREVIEW_LINES:,} more lines (ctrl+o expands, click shows all)\n", "dim")
        text.append_text(shown("\n".join(_last_lines(output, PREVIEW_LINES)), style))
    return text


def _plain(lines: str, style: str) -> Text:
    return Text(clean_lines(lines), style)


def output_rows(output: str) -> list[str]:
    """`output` split into lines, lines longer than WRAP split into rows (`split_rows`)."""
    return split_rows(output)[0]


def split_rows(output: str) -> tuple[list[str], list[int] | None]:
    """`output` split into lines, and lines longer than WRAP into rows of about WRAP
    characters, never inside a control sequence (each row is cleaned on its own); with
    each row's line, or None when no line was split (each row is its line)."""
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if all(len(line) <= WRAP for line in lines):
        return lines, None
    rows: list[str] = []
    line_of: list[int] = []
    for index, line in enumerate(lines):
        start = 0
        while len(line) - start > WRAP:
            end = start + WRAP
            while end < len(line) and (sequence := spanning(line, end, start)) is not None:
                if sequence[0] > start:
                    end = sequence[0]
                    break
                end = sequence[1] + WRAP  # a row that begins with a long sequence: its text after it
            rows.append(line[start:end])
            start = end
        if start < len(line) or not line:
            rows.append(line[start:])
        line_of.extend([index] * (len(rows) - len(line_of)))
    return rows, line_of


def _pieces(line: str, width: int) -> list[str]:
    """`line` cut into rows of `width` cells: after the row's last space, if it has one."""
    if not _one_cell_each(line):
        return chop_cells(line, width)
    pieces, start = [], 0
    while len(line) - start > width:
        space = line.rfind(" ", start, start + width)
        end = space + 1 if space > start else start + width
        pieces.append(line[start:end])
        start = end
    return [*pieces, line[start:]]


def _row_count(line: str, width: int) -> int:
    """The rows `_pieces` cuts `line` into, measuring it only when it may not fit one."""
    if len(line) <= width and (_one_cell_each(line) or len(line) * 2 <= width or cell_len(line) <= width):
        return 1
    return len(_pieces(line, width))


RowStyler = Callable[[int, str], Text]
STYLED_ROWS = 2000  # styled rows kept; scrolling far away styles them again


class LargeTextView(PagesAtOnce, ScrollView, can_focus=True):
    """Read-only text of any size, its lines wrapped at the view's width: only the rows in
    view are cleaned and rendered (each line is measured once per width). With `styler`,
    a row in view is styled by `styler(line index, line as shown)` (once: the result is
    kept), which must keep the line's characters (a line it changes shows plain). A line
    longer than WRAP is split into rows; the styler styles the whole line (up to
    STYLED_LINE_ROWS rows: longer ones show plain) and each row shows its part."""

    DEFAULT_CSS = "LargeTextView { overflow-x: hidden; scrollbar-gutter: stable; }"

    def __init__(self, text: str, styler: RowStyler | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rows, self._line_of = split_rows(text)
        self.styler = styler
        self._styled: dict[int, Text] = {}
        self._styled_line: tuple[int, Text] | None = None  # the last split line styled, by its index
        self._width = 0  # the width the lines are wrapped at
        self._ends: list[int] = []  # per line, the screen rows it and the lines above take

    @property
    def line_count(self) -> int:
        """The text's lines (a line longer than WRAP takes more than one of `rows`)."""
        return self._line_of[-1] + 1 if self._line_of else len(self.rows)

    def on_resize(self) -> None:
        self._wrap()

    def _wrap(self) -> None:
        """Count each line's screen rows at the view's width; the top line stays on top."""
        width = self.scrollable_content_region.width
        if width == self._width or width < 1:
            return
        top = self._line_at(self.scroll_offset.y) if self._ends else 0
        self._width, self._ends, total = width, [], 0
        for index, row in enumerate(self.rows):
            shown = row if _one_cell_each(row) else self._shown(index)
            total += _row_count(shown, width)
            self._ends.append(total)
        self.virtual_size = Size(width, total)
        self.scroll_to(y=self._ends[top - 1] if top else 0, animate=False, immediate=True)

    def _line_at(self, y: int) -> int:
        return bisect_right(self._ends, y)

    def render_line(self, y: int) -> Strip:
        self._wrap()
        width, style = self._width, self.rich_style
        row = self.scroll_offset.y + y
        index = self._line_at(row)
        if index >= len(self.rows):
            return Strip.blank(width, style)
        pieces = _pieces(self._shown(index), width)
        part = row - (self._ends[index - 1] if index else 0)
        start = sum(map(len, pieces[:part]))
        if self.styler is None:
            strip = Strip([Segment(pieces[part], style)])
        else:
            piece = self._styled_row(index)[start : start + len(pieces[part])]
            strip = Strip(Segment.apply_style(piece.render(self.app.console, end=""), style))
        strip = strip.crop_extend(0, width, style)
        strip = mark_selection(self, self.text_selection, index, strip, origin=start)
        return strip.apply_offsets(start, index)  # after the selection split it: each piece its own offset

    def _styled_row(self, index: int) -> Text:
        styled = self._styled.get(index)
        if styled is None:
            shown = self._shown(index)
            styled = self._style(index, shown)
            if styled.plain != shown:
                styled = Text(shown)
            if len(self._styled) >= STYLED_ROWS:
                self._styled.clear()
            self._styled[index] = styled
        return styled

    def _style(self, index: int, shown: str) -> Text:
        """Row `index` styled as part of its line."""
        if self.styler is None:
            return Text(shown)
        if self._line_of is None:
            return self.styler(index, shown)
        line = self._line_of[index]
        first, end = bisect_left(self._line_of, line), bisect_right(self._line_of, line)
        if end - first == 1:
            return self.styler(line, shown)
        if end - first > STYLED_LINE_ROWS:
            return Text(shown)
        pieces = [self._shown(row) for row in range(first, end)]
        if self._styled_line is None or self._styled_line[0] != line:
            whole = "".join(pieces)
            styled = self.styler(line, whole)
            self._styled_line = (line, styled if styled.plain == whole else Text(whole))
        start = sum(map(len, pieces[: index - first]))
        return self._styled_line[1][start : start + len(shown)]

    def _shown(self, index: int) -> str:
        """Line `index` as shown: cleaned (one row), tabs expanded."""
        return one_row(self.rows[index]).expandtabs(4)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text; only the rows it spans are read (the output may be huge)."""
        first = selection.start.y if selection.start is not None else 0
        last = min(selection.end.y if selection.end is not None else len(self.rows), len(self.rows) - 1)
        rows = "\n".join(self._shown(index) for index in range(first, last + 1))
        up = Offset(0, first)
        return Selection(selection.start and selection.start - up, selection.end and selection.end - up).extract(rows), "\n"
