"""A TextArea that draws no cursor of its own where the terminal shows its own (pi's
showHardwareCursor): Textual has no public way to hide the drawn one in an editable area."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TextArea

# A mixin, not a TextArea subclass: as a base class of its own it would bring TextArea's
# default CSS in ahead of the widget's own (see grows_in_place.py).
_Base = TextArea if TYPE_CHECKING else object


class HardwareCursor(_Base):
    """For a TextArea, listed before it: with `hardware_cursor` set, the cursor is not drawn
    (the terminal shows its own there: Textual puts it at the cursor)."""

    hardware_cursor = False

    @property
    def _draw_cursor(self) -> bool:
        return not self.hardware_cursor and super()._draw_cursor
