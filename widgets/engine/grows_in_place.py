"""Keep a growing widget's painted rows when only its height changes, and lay it out once.

Textual forgets every cached row of a widget whose size or virtual size changed, and
asks for another layout. A streaming reply, the message around it and the transcript
holding them grow by a few rows per frame, so each frame would render every row on
screen again, although only the rows at the bottom changed: those above the bottom
border and padding keep their content, and a scrolling container's own rows (its
background) do not depend on what it holds.

The layout it asks for is needless too unless the widget scrolls: a widget's virtual size
is what its scrollbars measure, and the layout that gave the widget its size is the one
that set it. Every widget mounted had a second layout for it (its virtual size was 0 x 0
before the first): a message and its header, blocks and footer, each 4 to 10 ms a reply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Region, Size
from textual.widget import Widget

from widgets.engine import ON

# A mixin, not a Widget subclass: as a base class of its own it would bring Widget's
# default CSS in ahead of the widget's real base (a scrolling container would stop scrolling).
_Base = Widget if TYPE_CHECKING else object


class GrowsInPlace(_Base):
    """For a widget whose rows keep their content when its height (not width) or its
    virtual size changes, and that refreshes the rows whose content it changes itself.
    List it before the widget's Textual base class."""

    @property
    def scrolls(self) -> bool:
        """It may show scrollbars (what does not scroll clips or shows what overflows it)."""
        styles = self.styles
        return styles.overflow_x in ("auto", "scroll") or styles.overflow_y in ("auto", "scroll")

    if ON:  # (else Textual's: every row painted again)
        def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
            old = self._size
            if not self.scrolls:
                layout = False  # (its size came from the layout that gives it this virtual size)
            if size.width != old.width or not old.height or (size == old and virtual_size == self.virtual_size):
                return super()._size_updated(size, virtual_size, container_size, layout)
            # Set first, so that Textual (here and in the virtual_size watcher) marks no row dirty.
            self._size = size
            self.set_reactive(Widget.virtual_size, virtual_size)
            super()._size_updated(size, virtual_size, container_size, layout)
            if self.is_scrollable:
                self._scroll_update(virtual_size)
            if size.height != old.height:
                top = max(0, min(old.height, size.height) - self.styles.gutter.bottom)
                rows = Region(0, top, size.width, max(old.height, size.height) - top)
                self._dirty_regions.add(rows)
                self._repaint_regions.add(rows)
                self._styles_cache.set_dirty(rows)
            return True
