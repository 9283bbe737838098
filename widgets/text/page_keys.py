"""Page Up and Page Down that move the view a page for every press, however fast they come.

Textual's page actions scroll after the next frame, a page from where the view is when
the key is read: presses that came faster than frames (a key held down, keys typed ahead
over ssh or sent by tmux in one write) all went to the same place, and the view moved one
page for several. Here each press scrolls at once, a page on from where the last one was
going (animated as Textual's, where animations are on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.actions import SkipAction
from textual.containers import VerticalScroll
from textual.widget import Widget

# A mixin, not a Widget subclass: as a base class of its own it would bring Widget's
# default CSS in ahead of the widget's real base (as widgets/engine/grows_in_place.py says).
_Base = Widget if TYPE_CHECKING else object


class PagesAtOnce(_Base):
    """List it before the widget's Textual base class."""

    page_animate: ClassVar[bool] = True
    """Whether a page scrolls as an animation (Textual's page keys do)."""

    def action_page_up(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.page(-1)

    def action_page_down(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.page(1)

    def page(self, pages: int) -> None:
        """Up (< 0) or down `pages` pages from where the last scroll was going."""
        self.scroll_to(y=self.scroll_target_y + pages * self.scrollable_content_region.height,
                       animate=self.page_animate, immediate=True)


class PagedScroll(PagesAtOnce, VerticalScroll):
    """Textual's VerticalScroll, its page keys a page for every press."""
