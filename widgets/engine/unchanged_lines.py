"""Send the terminal only the pieces of lines it does not already show.

Textual repaints every region that was marked dirty, whether or not its text changed: a
transcript that grows by a line, a footer that appears, a pane's class that changes all
repaint the whole transcript, about 12 KB a time at 120x40, though most of it is on the
screen already. `TerminalLines` remembers what was written at each place of each line
(the rendered text of each piece a compositor update writes) and `render` leaves out the
pieces that are there already, so an unchanged line costs nothing on the wire.

A transcript that scrolls by a line repaints every row it shows, each the row below it was.
The terminal can move those rows itself: scrolling margins (DECSTBM) around them, then a
line feed on the bottom margin per line, and only the rows that are new are sent, about
0.3 KB where the repaint was 4 KB. Margins span the whole width, so the side panes beside the transcript move too: what
they showed on the rows that moved is written back, from what was sent before, where it
differs from what moved in. A scroll is sent only when all of this is fewer bytes than the
repaint, and only over rows whose every column is known.
"""

from __future__ import annotations

from collections import Counter

from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from textual.geometry import Offset, Size

from widgets.engine import sgr
from widgets.engine.rows_compositor import ScrolledUpdate
from widgets.engine.scroll_in_place import Scroll
from widgets.engine.private import ChopsUpdate, CompositorUpdate, LayoutUpdate


SCROLL_ROWS = 4  # rows an update repaints from which it may be a scroll

Piece = tuple[int, int, int, str]  # y, x, end, rendered text


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"


def _scroll(top: int, bottom: int, shift: int) -> str:
    """Rows top..bottom moved by `shift` rows, up (blank rows in at the bottom) or down,
    margins reset after: line feeds on the bottom margin or reverse indexes (RI) on the top
    one, as on a VT100 (the Linux console has no SU or SD)."""
    margins = f"\x1b[0m\x1b[{top + 1};{bottom + 1}r"
    if shift > 0:
        return f"{margins}\x1b[{bottom + 1};1H" + "\n" * shift + "\x1b[r"
    return f"{margins}\x1b[{top + 1};1H" + "\x1bM" * -shift + "\x1b[r"


def _covers(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """The spans (x, end) together cover columns start..end."""
    for x, stop in sorted(spans):
        if x > start:
            return False
        start = max(start, stop)
        if start >= end:
            return True
    return start >= end


class TerminalLines:
    """What the terminal shows: for each line, the pieces written to it, by column."""

    def __init__(self, erase: bool = True) -> None:
        self.erase = erase  # the terminal has ECH: runs of blanks may be erased (sgr.py)
        self._lines: dict[int, dict[int, tuple[int, str]]] = {}  # y -> x -> (end, text)
        self._size: Size | None = None
        self._cursor: Offset | None = None  # where the terminal's cursor was last put

    def forget(self) -> None:
        """The terminal lost what it showed (a resume, a new size): write everything again."""
        self._lines.clear()
        self._cursor = None

    def cursor_moved(self, cursor: Offset) -> bool:
        """True (and now known) when the terminal's cursor is to go elsewhere than it is."""
        moved, self._cursor = cursor != self._cursor, cursor
        return moved

    def _changed(self, y: int, x: int, end: int, text: str) -> bool:
        """True (and now known) when `text` over columns x..end is not what line y shows."""
        line = self._lines.setdefault(y, {})
        if line.get(x) == (end, text):
            return False
        for start in [start for start, (stop, _) in line.items() if start < end and stop > x]:
            del line[start]
        line[x] = (end, text)
        return True

    def render(self, update: CompositorUpdate, console: Console, size: Size) -> str:
        """The terminal sequence for `update`, without the pieces already on screen."""
        if size != self._size:
            self._size = size
            self.forget()
        system = console._color_system or ColorSystem.TRUECOLOR  # (as Textual's Strip.render)
        if isinstance(update, LayoutUpdate):
            pieces = self._layout_pieces(update, system, self.erase)
        elif isinstance(update, ChopsUpdate):
            pieces = self._chops_pieces(update, system, self.erase)
        else:
            self.forget()
            return update.render_segments(console)
        out: list[str] = []
        if isinstance(update, ScrolledUpdate):
            out.append(self._move_rows(update.scroll))
        elif len({piece[0] for piece in pieces}) >= SCROLL_ROWS:
            out.append(self._scroll(pieces, size))
        # Each piece of a partial frame is put where it goes, as Textual does (a character the
        # terminal draws wider than Python counts moves nothing after it); the pieces of a full
        # frame's row that follow each other go in one, as Textual writes a full frame's rows.
        whole_rows = isinstance(update, LayoutUpdate)
        after: tuple[int, int] | None = None  # the row and column the last piece written ends at
        for y, x, end, text in pieces:
            if self._changed(y, x, end, text):
                out += (text,) if whole_rows and after == (y, x) else (_move_to(x, y), text)
                after = (y, end)
        return "".join(out)

    def can_move_rows(self, scroll: Scroll, size: Size) -> bool:
        """Whether the terminal can move the rows of `scroll.view` itself: every column of
        them is known, no piece beside the view reaches into it, and they are not the whole
        screen (some terminals would keep the rows scrolled off in their scrollback)."""
        view = scroll.view
        if size != self._size or (view.y <= 0 and view.bottom >= size.height) or view.bottom > size.height:
            return False
        for y in range(view.y, view.bottom):
            line = self._lines.get(y, {})
            if not _covers([(x, end) for x, (end, _) in line.items()], 0, size.width):
                return False
            if any(x < view.right and end > view.x and (x < view.x or end > view.right) for x, (end, _) in line.items()):
                return False
        return True

    def _move_rows(self, scroll: Scroll) -> str:
        """The terminal's rows of the view moved by the scroll, and what is beside the view
        on them written back where it was."""
        view, shift = scroll
        top, bottom = view.y, view.bottom - 1
        before = self._shift_rows(top, bottom, -shift)
        out = [_scroll(top, bottom, -shift)]
        for y in range(top, bottom + 1):
            for x, (end, text) in before[y].items():
                if (end <= view.x or x >= view.right) and self._changed(y, x, end, text):
                    out += (_move_to(x, y), text)
        return "".join(out)

    def _shift_rows(self, top: int, bottom: int, shift: int) -> dict[int, dict[int, tuple[int, str]]]:
        """What rows top..bottom show, as `_scroll(top, bottom, shift)` moves them (each row
        takes the one `shift` below it, rows scrolled in are unknown); what they showed before."""
        lines = self._lines
        before = {y: lines.get(y, {}) for y in range(top, bottom + 1)}
        for y in range(top, bottom + 1):
            lines[y] = dict(before[y + shift]) if top <= y + shift <= bottom else {}  # (before stays as it was)
        return before

    @staticmethod
    def _layout_pieces(update: LayoutUpdate, system: ColorSystem, erase: bool) -> list[Piece]:
        """One piece per chop (a row's strips, cut where widgets begin and end), as the partial
        updates after it cut the rows: a piece of theirs then replaces one of these whole."""
        pieces = []
        for y, strips in enumerate(update.strips, update.region.y):
            x = update.region.x
            for strip in strips:
                end = x + strip.cell_length
                if text := sgr.render(strip, system, erase):
                    pieces.append((y, x, end, text))
                x = end
        return pieces

    @staticmethod
    def _chops_pieces(update: ChopsUpdate, system: ColorSystem, erase: bool) -> list[Piece]:
        pieces = []
        for y, x1, x2 in update.spans:
            for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    strip = strip.crop(0, min(end, x2) - x)
                    end = x + strip.cell_length
                if text := sgr.render(strip, system, erase):  # (an empty piece writes nothing)
                    pieces.append((y, x, end, text))
        return pieces

    def _scroll(self, pieces: list[Piece], size: Size) -> str:
        """If `pieces` are mostly rows the terminal shows lower down (a transcript that follows
        its end) or higher up (one scrolled back): the scroll that moves them into place and
        the rows beside them written back (what the terminal then shows is known), else ""."""
        lines = self._lines
        showing: dict[tuple[int, int, str], list[int]] = {}
        for y, line in lines.items():
            for x, (end, text) in line.items():
                showing.setdefault((x, end, text), []).append(y)
        votes: Counter[int] = Counter()
        for y, x, end, text in pieces:
            if lines.get(y, {}).get(x) != (end, text):
                votes.update(row - y for row in showing.get((x, end, text), ()) if row != y)
        if not votes:
            return ""
        shift = votes.most_common(1)[0][0]
        moved = [y for y, x, end, text in pieces
                 if lines.get(y + shift, {}).get(x) == (end, text) != lines.get(y, {}).get(x)]
        if len(set(moved)) < SCROLL_ROWS:
            return ""
        # the rows that move, from the first one written to to the last one read (or back)
        top, bottom = (min(moved), max(moved) + shift) if shift > 0 else (min(moved) + shift, max(moved))
        top, bottom = max(0, top), min(bottom, size.height - 1)
        if top == 0 and bottom == size.height - 1:
            return ""  # (the whole screen: some terminals would keep the rows in their scrollback)
        after = {y: lines.get(y + shift, {}) if top <= y + shift <= bottom else {} for y in range(top, bottom + 1)}
        written: dict[int, list[tuple[int, int]]] = {}
        for y, x, end, _ in pieces:
            written.setdefault(y, []).append((x, end))
        back: list[Piece] = []  # what the rows showed that the update does not write over
        for y in range(top, bottom + 1):
            line, over = lines.get(y, {}), written.get(y, [])
            if not _covers([*((x, end) for x, (end, _) in line.items()), *over], 0, size.width):
                return ""  # a column nobody knows: moved, it would be as unknown elsewhere
            back += [(y, x, end, text) for x, (end, text) in line.items()
                     if after[y].get(x) != (end, text) and not _covers(over, x, end)]

        def cost(shown: dict[int, dict[int, tuple[int, str]]], items: list[Piece]) -> int:
            return sum(len(text) + 8 for y, x, end, text in items if shown.get(y, lines.get(y, {})).get(x) != (end, text))

        scroll = _scroll(top, bottom, shift)
        if len(scroll) + cost(after, back) + cost(after, pieces) >= cost({}, pieces):
            return ""
        self._shift_rows(top, bottom, shift)
        out = [scroll]
        for y, x, end, text in back:
            self._changed(y, x, end, text)
            out += (_move_to(x, y), text)
        return "".join(out)


class UnchangedLeftOut(CompositorUpdate):
    """A compositor update already rendered, with what the terminal shows left out."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: object) -> list[Segment]:
        return [Segment(self.text)]

    def render_segments(self, console: Console) -> str:
        return self.text
