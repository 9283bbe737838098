"""What the terminal already shows is not sent again (app/terminal/unchanged_lines.py)."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Offset, Region, Size
from textual.strip import Strip

from app.terminal.unchanged_lines import TerminalLines

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
