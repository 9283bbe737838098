"""What the terminal already shows is not sent again (widgets/engine/unchanged_lines.py)."""

from __future__ import annotations

import random
import re

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Offset, Region, Size
from textual.strip import Strip

from widgets.engine.unchanged_lines import TerminalLines

SIZE = Size(20, 3)
CONSOLE = Console(force_terminal=True, color_system="truecolor", width=20)


def strip(text: str, bold: bool = False) -> Strip:
    return Strip([Segment(text, Style(bold=bold))])


def full(*lines: str) -> LayoutUpdate:
    return LayoutUpdate([[strip(line.ljust(20))] for line in lines], Region(0, 0, 20, len(lines)))


def chops(y: int, pieces: dict[int, Strip]) -> ChopsUpdate:
    """An update of line y of SIZE, its pieces by column (each piece's end is the next's start)."""
    columns = sorted(pieces)
    ends = [*columns[1:], SIZE.width]
    lines = [{0: None} for _ in range(SIZE.height)]
    chop_ends = [[SIZE.width] for _ in range(SIZE.height)]
    lines[y], chop_ends[y] = dict(pieces), ends
    return ChopsUpdate(lines, [(y, 0, SIZE.width)], chop_ends)


def test_a_repaint_of_lines_the_terminal_shows_sends_nothing() -> None:
    lines = TerminalLines()
    first = lines.render(full("one", "two", "three"), CONSOLE, SIZE)
    assert "one" in first and "three" in first
    assert lines.render(full("one", "two", "three"), CONSOLE, SIZE) == ""


def test_only_the_line_that_changed_is_sent_with_where_it_goes() -> None:
    lines = TerminalLines()
    lines.render(full("one", "two", "three"), CONSOLE, SIZE)
    again = lines.render(full("one", "2", "three"), CONSOLE, SIZE)
    assert again.startswith("\x1b[2;1H") and "2" in again
    assert "one" not in again and "three" not in again


def test_a_piece_written_over_part_of_a_line_makes_that_line_unknown_there() -> None:
    lines = TerminalLines()
    lines.render(full("abcdefghij"), CONSOLE, Size(20, 1))
    lines.render(chops(0, {0: strip("x" * 5), 5: strip("y" * 15)}), CONSOLE, SIZE)
    # line 0 as the first update wrote it is no longer on screen: the full line goes again
    assert "abcdefghij" in lines.render(full("abcdefghij", "", ""), CONSOLE, SIZE)


def test_pieces_of_a_line_are_compared_one_by_one_style_included() -> None:
    lines = TerminalLines()
    lines.render(chops(1, {0: strip("left "), 5: strip("right")}), CONSOLE, SIZE)
    assert lines.render(chops(1, {0: strip("left "), 5: strip("right")}), CONSOLE, SIZE) == ""
    bold = lines.render(chops(1, {0: strip("left "), 5: strip("right", bold=True)}), CONSOLE, SIZE)
    assert bold.startswith("\x1b[2;6H") and "left" not in bold


def test_a_new_size_or_forget_sends_everything_again() -> None:
    lines = TerminalLines()
    lines.render(full("one", "two", "three"), CONSOLE, SIZE)
    assert "two" in lines.render(full("one", "two", "three"), CONSOLE, Size(20, 4))
    lines.forget()
    assert "two" in lines.render(full("one", "two", "three"), CONSOLE, Size(20, 4))


def test_the_cursor_moving_is_a_change_until_forgotten() -> None:
    lines = TerminalLines()
    assert lines.cursor_moved(Offset(3, 1))
    assert not lines.cursor_moved(Offset(3, 1))
    assert lines.cursor_moved(Offset(4, 1))
    lines.forget()
    assert lines.cursor_moved(Offset(4, 1))


def test_an_empty_piece_sends_no_move_and_leaves_what_the_line_shows() -> None:
    lines = TerminalLines()
    lines.render(chops(1, {0: strip("left "), 5: strip("right")}), CONSOLE, SIZE)
    assert lines.render(chops(1, {0: strip("left "), 5: Strip([])}), CONSOLE, SIZE) == ""
    # the empty piece did not make the terminal's "right" unknown: sent again, it costs nothing
    assert lines.render(chops(1, {0: strip("left "), 5: strip("right")}), CONSOLE, SIZE) == ""


# --- scrolling: the terminal moves rows itself ---------------------------------------------

class Grid:
    """Just enough of a terminal for these updates: CUP, DECSTBM, LF, RI, SGR, ECH, CUF and
    text. Each cell keeps its character and the SGR sequences in force when it was written."""

    SEQUENCE = re.compile(r"\x1b\[([0-9;]*)([HrmXC])|\n|\x1bM")

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[("?", "")] * width for _ in range(height)]  # unknown until written
        self.x = self.y = 0
        self.top, self.bottom = 0, height - 1
        self.style = ""

    def feed(self, data: str) -> None:
        at = 0
        for match in self.SEQUENCE.finditer(data):
            self._text(data[at:match.start()])
            at = match.end()
            if match[0] == "\n":  # on the bottom margin, the region scrolls up
                if self.y == self.bottom:
                    del self.cells[self.top]
                    self.cells.insert(self.bottom, [(" ", self.style)] * self.width)
                else:
                    self.y += 1
                continue
            if match[0] == "\x1bM":  # reverse index: on the top margin, the region scrolls down
                if self.y == self.top:
                    del self.cells[self.bottom]
                    self.cells.insert(self.top, [(" ", self.style)] * self.width)
                else:
                    self.y -= 1
                continue
            params, final = match[1], match[2]
            numbers = [int(n) for n in params.split(";") if n]
            if final == "H":
                self.y, self.x = numbers[0] - 1, numbers[1] - 1
            elif final == "X":  # erased: blanks in the style in force, the cursor stays
                for x in range(self.x, min(self.x + numbers[0], self.width)):
                    self.cells[self.y][x] = (" ", self.style)
            elif final == "C":  # (at most to the right edge)
                self.x = min(self.x + numbers[0], self.width - 1)
            elif final == "r":
                self.top, self.bottom = (numbers[0] - 1, numbers[1] - 1) if numbers else (0, self.height - 1)
                self.x = self.y = 0
            else:
                self.style = "" if params in ("", "0") else self.style + match[0]
        self._text(data[at:])

    def _text(self, text: str) -> None:
        assert "\x1b" not in text, repr(text)
        for char in text:  # a wide character takes its cell and the next, which shows nothing
            for x in range(self.x, min(self.x + cell_len(char), self.width)):
                self.cells[self.y][x] = (char if x == self.x else "", self.style)
            self.x += cell_len(char)

    def rows(self) -> list[str]:
        return ["".join(char for char, _ in row) for row in self.cells]


def screen_update(rows: dict[int, dict[int, str]], width: int, height: int, cuts: list[int],
                  spans: list[tuple[int, int, int]] | None = None) -> ChopsUpdate:
    """Rows (y -> x -> text, one piece per cut) of a screen cut at `cuts` (from 0)."""
    chops = [dict.fromkeys(cuts) for _ in range(height)]
    for y, pieces in rows.items():
        for x, text in pieces.items():
            chops[y][x] = strip(text)
    if spans is None:
        spans = [(y, 0, width) for y in sorted(rows)]
    return ChopsUpdate(chops, spans, [[*cuts[1:], width] for _ in range(height)])


TRANSCRIPT, SIDE, ROWS = 20, 10, 12  # columns, columns, rows of the screen below
CUTS = [0, TRANSCRIPT]


def transcript_rows(lines: list[str], side: list[str]) -> dict[int, dict[int, str]]:
    return {y: {0: lines[y].ljust(TRANSCRIPT), TRANSCRIPT: side[y].ljust(SIDE)} for y in range(len(side))}


def paint(terminal: TerminalLines, grid: Grid, rows: dict[int, dict[int, str]], **spans: object) -> str:
    out = terminal.render(screen_update(rows, TRANSCRIPT + SIDE, ROWS, CUTS, **spans), CONSOLE,
                          Size(TRANSCRIPT + SIDE, ROWS))
    grid.feed(out)
    return out


def test_a_transcript_that_scrolls_by_a_line_is_one_scroll_and_its_new_row() -> None:
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    words = [f"line {n}" for n in range(40)]
    side = ["│ stats", "│ model x", "│", "│", "│ queue", "│", "│", "│", "│", "│ tools", "", "status"]
    paint(terminal, grid, transcript_rows([*words[:10], "", ""], side))
    for first in range(1, 6):  # the transcript (rows 0..9) scrolls a line at a time
        shown = words[first:first + 10]
        rows = {y: {0: shown[y].ljust(TRANSCRIPT)} for y in range(10)}
        out = paint(terminal, grid, rows, spans=[(y, 0, TRANSCRIPT) for y in range(10)])
        assert "\x1b[1;10r\x1b[10;1H\n\x1b[r" in out, "the terminal moves the rows"
        assert shown[-1] in out and shown[0].ljust(TRANSCRIPT) not in out, "only the new row is sent"
        assert "model x" in out and "queue" in out and "tools" in out, "the side pane's rows that moved are written back"
        assert grid.rows() == [(shown + ["", ""])[y].ljust(TRANSCRIPT) + side[y].ljust(SIDE) for y in range(ROWS)]


def test_a_scroll_is_sent_only_when_fewer_bytes_than_the_repaint() -> None:
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    side = [f"│ side {y}" for y in range(ROWS)]  # every row beside the transcript differs

    def row(y: int) -> str:  # (dots, not blanks: a long run of blanks is sent as an erase, a few bytes)
        return f"t{y}".ljust(TRANSCRIPT, ".")

    paint(terminal, grid, transcript_rows([row(y) for y in range(ROWS)], side))
    # four rows that are the ones below them: five side rows to write back would cost more
    out = paint(terminal, grid, {y: {0: row(y + 1)} for y in range(4)},
                spans=[(y, 0, TRANSCRIPT) for y in range(4)])
    assert "\x1b[r" not in out and len(re.findall(r"\x1b\[\d+;\d+H", out)) == 4, "repainted: four moves, four rows"
    assert grid.rows()[:5] == [row(y + 1) + side[y].ljust(SIDE) for y in range(4)] + \
        [row(4) + side[4].ljust(SIDE)]
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    paint(terminal, grid, transcript_rows([row(y) for y in range(ROWS)], side))
    out = paint(terminal, grid, {y: {0: row(y + 1)} for y in range(ROWS - 2)},
                spans=[(y, 0, TRANSCRIPT) for y in range(ROWS - 2)])
    assert "\x1b[1;11r\x1b[11;1H\n\x1b[r" in out, "ten rows are worth it"
    assert grid.rows() == [row(min(y + 1, y if y >= ROWS - 2 else ROWS)) + side[y].ljust(SIDE)
                           for y in range(ROWS)], "rows 10 and 11, not repainted, as they were"


def test_rows_with_a_column_never_written_are_not_scrolled() -> None:
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    lines = [f"row {y}" for y in range(ROWS)]
    paint(terminal, grid, {y: {0: lines[y].ljust(TRANSCRIPT)} for y in range(ROWS)},
          spans=[(y, 0, TRANSCRIPT) for y in range(ROWS)])  # the side was never written
    out = paint(terminal, grid, {y: {0: lines[y + 1].ljust(TRANSCRIPT)} for y in range(ROWS - 1)},
                spans=[(y, 0, TRANSCRIPT) for y in range(ROWS - 1)])
    assert "\x1b[r" not in out


def test_the_whole_screen_is_never_scrolled() -> None:
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    lines = [f"row {y}" for y in range(ROWS + 1)]
    paint(terminal, grid, transcript_rows(lines[:ROWS], [""] * ROWS))
    out = paint(terminal, grid, transcript_rows(lines[1:], [""] * ROWS))
    assert "\x1b[r" not in out and grid.rows()[0].startswith("row 1")


def test_any_run_of_updates_leaves_the_screen_a_repaint_would() -> None:
    pick = random.Random(2026)
    scrolls = backwards = 0
    for _ in range(200):
        terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
        words = [f"w{n} " + "x" * pick.randrange(12) for n in range(200)]
        side = [pick.choice(["│", "│ a", "│ b", ""]) for _ in range(ROWS)]
        first, sent, repainted = 0, 0, 0
        paint(terminal, grid, transcript_rows(words[:ROWS], side))
        for _ in range(8):
            first = max(0, first + pick.choice([0, 1, 1, 2, 3, 7, -1, -3]))  # following the end, or back
            if pick.random() < 0.3:
                side[pick.randrange(ROWS)] = pick.choice(["│ c", "│", "│ dd"])
            bottom = pick.randint(4, ROWS)  # the transcript's rows: 0..bottom-1
            shown = words[first:first + bottom] + [""] * (ROWS - bottom)
            rows = transcript_rows(shown, side)
            out = paint(terminal, grid, rows)
            expected = [shown[y].ljust(TRANSCRIPT) + side[y].ljust(SIDE) for y in range(ROWS)]
            assert grid.rows() == expected, out
            scrolls += "\x1b[r" in out
            backwards += "\x1bM" in out
            fresh = TerminalLines()
            fresh.forget()
            sent, repainted = sent + len(out), repainted + len(fresh.render(
                screen_update(rows, TRANSCRIPT + SIDE, ROWS, CUTS), CONSOLE, Size(TRANSCRIPT + SIDE, ROWS)))
        assert sent <= repainted
    assert scrolls > 100 and backwards > 20, "the runs scrolled, both ways"


def test_a_full_frames_row_goes_in_one_and_a_partial_frames_pieces_each_where_they_go() -> None:
    lines = TerminalLines()
    update = LayoutUpdate([[strip("left "), strip("mid  "), strip("right")]], Region(0, 0, 15, 1))
    first = lines.render(update, CONSOLE, SIZE)
    assert first.count("\x1b[1;") == 1 and "left mid  right" in first.replace("\x1b[0m", "")
    again = lines.render(chops(0, {0: strip("left "), 5: strip("MID  "), 10: strip("RIGHT")}), CONSOLE, SIZE)
    assert again.startswith("\x1b[1;6H") and again.count("\x1b[1;") == 2, "two pieces, each put where it goes"


def test_a_transcript_scrolled_back_is_moved_down_by_reverse_indexes() -> None:
    terminal, grid = TerminalLines(), Grid(TRANSCRIPT + SIDE, ROWS)
    words = [f"line {n}" for n in range(40)]
    side = ["│ stats", "│ model x", "│", "│", "│ queue", "│", "│", "│", "│", "│ tools", "", "status"]
    paint(terminal, grid, transcript_rows([*words[10:20], "", ""], side))
    shown = words[7:17]  # three lines back: Page Up, a wheel step
    out = paint(terminal, grid, {y: {0: shown[y].ljust(TRANSCRIPT)} for y in range(10)},
                spans=[(y, 0, TRANSCRIPT) for y in range(10)])
    assert "\x1b[1;10r\x1b[1;1H\x1bM\x1bM\x1bM\x1b[r" in out
    assert all(word in out for word in shown[:3]) and shown[3].ljust(TRANSCRIPT) not in out, "only the rows come back in"
    assert grid.rows() == [(shown + ["", ""])[y].ljust(TRANSCRIPT) + side[y].ljust(SIDE) for y in range(ROWS)]
