"""A vertical scrollbar drawn straight to strips.

Textual renders a scrollbar like any widget: each row goes through the generic CSS
line renderer (borders, padding, tint), about 50 µs a row here. A transcript that
follows a stream moves its thumb every frame, so its bar was redrawn whole every
frame, at more cost than the streaming text. Its rows are one-cell segments that
`ScrollBarRender.render_bar` already builds; this bar turns them into strips directly.
"""

from __future__ import annotations

from rich.color import Color
from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

from widgets.engine import ON


class StripScrollBar(ScrollBar):
    _strips: tuple[tuple[object, ...], list[Strip]] | None = None
    """The bar's rows, and what they were drawn for (drawn again only when that changes)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        renderable = self.render()
        if not self.vertical or not isinstance(renderable, ScrollBarRender):
            return super().render_lines(crop)
        strips = self._bar_strips(renderable)
        return [strip.crop(crop.x, crop.right) for strip in strips[crop.y : crop.bottom]]

    def _bar_strips(self, renderable: ScrollBarRender) -> list[Strip]:
        width, height = self.size
        _, background = self.background_colors
        filters = self.get_line_filters()
        base = self.visual_style.rich_style  # what Textual puts under a widget's content
        key = (width, height, renderable.virtual_size, renderable.window_size, renderable.position,
               renderable.style, base, background, tuple(filters))
        if self._strips is not None and self._strips[0] == key:
            return self._strips[1]
        style = self.app.console.get_style(renderable.style)
        bar = renderable.render_bar(
            size=height,
            virtual_size=renderable.virtual_size,
            window_size=renderable.window_size,
            position=renderable.position,
            thickness=width,
            vertical=True,
            back_color=style.bgcolor or Color.parse("#555555"),
            bar_color=style.color or Color.parse("bright_magenta"),
        )
        strips = []
        for segment in bar.segments:
            strip = Strip([Segment(segment.text, base + segment.style)], width)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip)
        self._strips = (key, strips)
        return strips


def use_strip_scrollbar(widget: Widget) -> ScrollBar:
    """`widget`'s vertical scrollbar as a `StripScrollBar` (what `Widget.vertical_scrollbar`
    does, with this class), where the engine runs; else Textual's."""
    if not ON:
        return Widget.vertical_scrollbar.fget(widget)  # type: ignore[attr-defined]
    if widget._vertical_scrollbar is None:
        bar = widget._vertical_scrollbar = StripScrollBar(
            vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical
        )
        bar.display = False
        widget.app._start_widget(widget, bar)
    return widget._vertical_scrollbar
