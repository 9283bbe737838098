"""Draws a text selection (the mouse's or a search match) over lines a widget renders itself."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget


def mark_selection(widget: Widget, selection: Selection | None, y: int, strip: Strip, origin: int = 0) -> Strip:
    """`strip`, line `y` of `widget` from character `origin` on, with the part `selection`
    covers on the selection's background over the text's own colours (Textual's selection
    foreground is transparent)."""
    span = selection.get_span(y) if selection is not None else None
    if span is None:
        return strip
    text = strip.text
    start, end = max(0, span[0] - origin), len(text) if span[1] == -1 else min(span[1] - origin, len(text))
    if start >= end:
        return strip
    if not text.isascii():  # the span counts characters, `divide` cells
        start, end = cell_len(text[:start]), cell_len(text[:end])
    style = Style(bgcolor=widget.screen.get_component_rich_style("screen--selection").bgcolor)
    before, selected, after = strip.divide([start, end, strip.cell_length])
    marked = Strip(Segment.apply_style(selected, post_style=style), selected.cell_length)
    return Strip.join([before, marked, after])
