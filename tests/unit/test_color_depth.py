"""Which colours a terminal is sent (widgets/colors/depth.py) and whether it is sent ECH
(widgets/engine/sgr.py), from its environment."""

from __future__ import annotations

import pytest
from rich.color import Color, ColorType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color as TextualColor
from textual.filter import ANSIToTruecolor, Monochrome, NoColor
from rich.terminal_theme import DEFAULT_TERMINAL_THEME

from widgets.colors.depth import Depth, SixteenColors, depth_for, filters_for
from widgets.engine.sgr import terminal_erases


@pytest.mark.parametrize(("environ", "depth"), [
    ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, Depth.AS_DETECTED),
    ({"TERM": "tmux-256color"}, Depth.AS_DETECTED),
    ({"TERM": "dumb"}, Depth.NONE),
    ({"TERM": "vt100", "COLORTERM": "truecolor"}, Depth.NONE),
    ({"TERM": "vt220"}, Depth.NONE),
    ({"TERM": "vt525"}, Depth.AS_DETECTED),
    ({"TERM": "linux", "COLORTERM": "truecolor"}, Depth.SIXTEEN),
    ({"TERM": "xterm-256color", "NO_COLOR": "1"}, Depth.NONE),
    ({"TERM": "xterm-256color", "NO_COLOR": ""}, Depth.NONE),  # (present: as Textual reads it)
    ({"TERM": "dumb", "TEXTUAL_COLOR_SYSTEM": "truecolor"}, Depth.AS_DETECTED),  # the user's own choice
])
def test_the_depth_follows_the_terminal(environ: dict[str, str], depth: Depth) -> None:
    assert depth_for(environ) is depth


@pytest.mark.parametrize(("term", "erases"), [
    ("xterm-256color", True), ("tmux-256color", True), ("screen", True), ("linux", True), ("vt220", True),
    ("vt100", False), ("vt102", False), ("VT100-AM", False), ("vt52", False), ("dumb", False), ("sun", False),
])
def test_ech_only_where_the_terminal_has_it(term: str, erases: bool) -> None:
    assert terminal_erases(term) is erases


def test_sixteen_colours_are_the_nearest_of_the_terminal_s_own() -> None:
    style = Style(color=Color.from_rgb(250, 10, 10), bgcolor=Color.from_rgb(0, 0, 0), bold=True)
    [segment] = SixteenColors().apply([Segment("x", style)], TextualColor(0, 0, 0))
    assert segment.style is not None and segment.style.bold
    assert segment.style.color is not None and segment.style.color.type is ColorType.STANDARD
    assert segment.style.bgcolor is not None and segment.style.bgcolor.type is ColorType.STANDARD
    assert segment.style.color.number in (1, 9)  # red, or bright red


def test_without_colour_textual_s_greys_are_not_worked_out() -> None:
    filters = [ANSIToTruecolor(DEFAULT_TERMINAL_THEME), Monochrome()]
    chosen = filters_for(Depth.NONE, filters)
    assert [type(f) for f in chosen] == [ANSIToTruecolor, NoColor]
    assert filters_for(Depth.AS_DETECTED, filters) == filters
