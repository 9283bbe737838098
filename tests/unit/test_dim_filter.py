"""TEXTUAL_FILTERS=dim with the terminal's own colours (widgets/engine/dim_filter.py)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import DimFilter as TextualDimFilter

from widgets.engine.dim_filter import DimFilter, use_safe_dim_filter


def test_a_dim_default_colour_keeps_the_terminals_dim_and_an_rgb_one_is_blended() -> None:
    segments = [Segment("own", Style(dim=True)), Segment("rgb", Style(color="#ffffff", bgcolor="#000000", dim=True)),
                Segment("plain", Style(color="red"))]
    out = DimFilter().apply(segments, Color.parse("ansi_default"))
    assert out[0].style is not None and out[0].style.dim, "left for the terminal to dim"
    assert out[1].style is not None and not out[1].style.dim and out[1].style.color.triplet == (127, 127, 127)
    assert out[2] == segments[2]


def test_textuals_filter_is_swapped_in_place() -> None:
    filters = [TextualDimFilter(0.3, enabled=False)]
    use_safe_dim_filter(filters)
    assert type(filters[0]) is DimFilter and filters[0].dim_factor == 0.3 and not filters[0].enabled
