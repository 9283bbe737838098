"""A piece of a line sets its styles only where they change, to the same cells (widgets/engine/sgr.py)."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st
from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from widgets.engine import sgr

TRUE = ColorSystem.TRUECOLOR
TOKENS = re.compile(r"\x1b\[([0-9;]*)m|\x1b\]8;[^;]*;([^\x1b]*)\x1b\\|\x1b\[(\d+)([XC])|(.)", re.S)
DEFAULT = (frozenset(), None, None, None, "")


def cells(rendered: str, start: tuple = DEFAULT) -> tuple[list[tuple[str, tuple]], tuple]:
    """Each character with the style a terminal draws it in (attributes, colours, link), and
    the style in effect at the end: a small SGR interpreter, which knows erasing (ECH: blanks
    in the current background, no attributes) and stepping right (CUF)."""
    attrs, fg, bg, ul, link = start
    attrs = set(attrs)
    drawn: list[tuple[str, tuple]] = []
    at = 0  # the cursor's cell
    for match in TOKENS.finditer(rendered):
        params, url, count, final, char = match.groups()
        if char is not None:
            drawn[at : at + 1] = [(char, (frozenset(attrs), fg, bg, ul, link))]
            at += 1
        elif final == "X":
            drawn[at : at + int(count)] = [(" ", (frozenset(), None, bg, None, ""))] * int(count)
        elif final == "C":
            at += int(count)
            assert at <= len(drawn), "stepped over cells nothing wrote"
        elif url is not None:
            link = url
        else:
            codes = [int(code or 0) for code in params.split(";")]
            while codes:
                code = codes.pop(0)
                if code == 0:
                    attrs, fg, bg, ul = set(), None, None, None
                elif 1 <= code <= 9:
                    attrs.add(code)
                elif code == 22:
                    attrs -= {1, 2}
                elif 23 <= code <= 29:
                    attrs.discard(code - 20)
                elif code in (38, 48, 58):
                    colour = tuple(codes[:2] if codes[0] == 5 else codes[:4])
                    del codes[: len(colour)]
                    fg, bg, ul = (colour, bg, ul) if code == 38 else (fg, colour, ul) if code == 48 else (fg, bg, colour)
                elif code == 39:
                    fg = None
                elif code == 49:
                    bg = None
                elif code == 59:
                    ul = None
                elif 30 <= code <= 37 or 90 <= code <= 97:
                    fg = (code,)
                elif 40 <= code <= 47 or 100 <= code <= 107:
                    bg = (code,)
    return drawn, (frozenset(attrs), fg, bg, ul, link)


COLOURS = st.one_of(
    st.none(), st.just(Color.default()), st.integers(0, 255).map(Color.from_ansi),
    st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)).map(lambda rgb: Color.from_rgb(*rgb)),
)
STYLES = st.one_of(st.none(), st.builds(
    Style, color=COLOURS, bgcolor=COLOURS, bold=st.booleans(), dim=st.booleans(), italic=st.booleans(),
    underline=st.booleans(), reverse=st.booleans(), strike=st.booleans(),
    link=st.one_of(st.none(), st.just("https://example.com/a")),
))
TEXTS = st.one_of(st.text("ab │─", max_size=4), st.integers(1, 30).map(" ".__mul__),
                  st.integers(10, 20).map(lambda count: "a" + " " * count + "b"))
STRIPS = st.lists(st.tuples(TEXTS, STYLES), max_size=8).map(
    lambda parts: Strip([Segment(text, style) for text, style in parts]))


@given(STRIPS, st.sampled_from([ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD]))
def test_every_cell_is_drawn_as_textual_draws_it_and_the_piece_ends_reset(strip: Strip, system: ColorSystem) -> None:
    ours, ours_end = cells(sgr.render(strip, system))
    textual, textual_end = cells("".join(
        Strip.render_style(style, text, system) if style else text for text, style, _ in strip))
    assert ours == textual
    assert ours_end[:4] == textual_end[:4] == DEFAULT[:4]


def test_a_border_in_one_colour_sets_it_once_and_resets_once() -> None:
    grey = Style(color="bright_black", bgcolor="default")
    strip = Strip([Segment("╭", grey), Segment("─", grey), Segment(" Session ", Style(color="green", bgcolor="default")),
                   Segment("────", grey), Segment("╮", grey)])
    rendered = sgr.render(strip, TRUE)
    assert rendered == "\x1b[90m╭─\x1b[0;32m Session \x1b[0;90m────╮\x1b[0m"
    assert len(rendered) < len(strip.render_style(grey, "╭", TRUE)) * 4  # Textual's: a set and a reset each


def test_default_colours_after_a_reset_send_nothing() -> None:
    plain = Style(color="default", bgcolor="default")
    assert sgr.render(Strip([Segment("text   ", plain)]), TRUE) == "text   "
    assert sgr.after_reset("2;39;49") == "2"
    assert sgr.after_reset("38;5;39;48;2;49;39;59;1") == "38;5;39;48;2;49;39;59;1"  # colour values, not defaults


def test_a_strip_rendered_again_is_the_same_text_from_the_cache() -> None:
    strip = Strip([Segment("x", Style(bold=True))])
    assert sgr.render(strip, TRUE) is sgr.render(strip, TRUE)
    assert sgr.render(strip, ColorSystem.STANDARD) == "\x1b[1mx\x1b[0m"


def test_long_blanks_in_the_default_style_are_erased_and_stepped_over_others_written() -> None:
    plain, shaded = Style(color="default", bgcolor="default"), Style(bgcolor="blue")
    row = Strip([Segment("end", plain), Segment(" " * 60, None), Segment("│", Style(color="bright_black"))])
    assert sgr.render(row, TRUE) == "end\x1b[60X\x1b[60C\x1b[90m│\x1b[0m"
    assert sgr.render(Strip([Segment(" " * (sgr.ERASE_FROM - 1), plain)]), TRUE) == " " * (sgr.ERASE_FROM - 1)
    assert sgr.render(Strip([Segment(" " * 40, shaded)]), TRUE) == "\x1b[44m" + " " * 40 + "\x1b[0m"  # (ECH: no such colour on a non-BCE terminal)
    assert sgr.render(Strip([Segment(" " * 40, Style(reverse=True))]), TRUE) == "\x1b[7m" + " " * 40 + "\x1b[0m"


def test_the_same_cells_cut_into_other_segments_are_the_same_text() -> None:
    """What the terminal shows is known by the text that drew it (unchanged_lines.py): blanks
    cut in two are erased as one run, as they were written as one before."""
    plain = Style(color="default", bgcolor="default")
    whole = Strip([Segment("a", plain), Segment(" " * 14, None), Segment("b", plain)])
    cut = Strip([Segment("a", plain), Segment(" " * 6, None), Segment(" " * 8, plain), Segment("b", None)])
    assert sgr.render(whole, TRUE) == sgr.render(cut, TRUE) == "a\x1b[14X\x1b[14Cb"
