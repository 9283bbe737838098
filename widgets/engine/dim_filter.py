"""Textual's dim filter (`TEXTUAL_FILTERS=dim`, for terminals that cannot dim) made safe
for the terminal's own colours.

Textual's blends a dim segment's colour towards its background, and fails on a colour
that is the terminal's default (the system theme draws with those): it has no RGB value
to blend. Such a segment keeps its dim attribute for the terminal to apply.
"""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual import filter as textual_filter
from textual.color import Color


def _blendable(style: Style, background: RichColor) -> bool:
    behind = background if style.bgcolor is None or style.bgcolor.is_default else style.bgcolor
    return style.color is not None and style.color.triplet is not None and behind.triplet is not None


class DimFilter(textual_filter.DimFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        behind = background.rich_color
        return [
            Segment(text, textual_filter.dim_style(style, background, self.dim_factor), None)
            if style is not None and style.dim and _blendable(style, behind) else Segment(text, style, control)
            for text, style, control in segments
        ]


def use_safe_dim_filter(filters: list[textual_filter.LineFilter]) -> None:
    """Swap Textual's dim filter in `filters` (an App's `_filters`) for this one."""
    for index, line_filter in enumerate(filters):
        if type(line_filter) is textual_filter.DimFilter:
            filters[index] = DimFilter(line_filter.dim_factor, enabled=line_filter.enabled)
