"""Send the terminal only the pieces of lines it does not already show.

Textual repaints every region that was marked dirty, whether or not its text changed: a
transcript that grows by a line, a footer that appears, a pane's class that changes all
repaint the whole transcript, about 12 KB a time at 120x40, though most of it is on the
screen already. `TerminalLines` remembers what was written at each place of each line
(the rendered text of each piece a compositor update writes) and `render` leaves out the
pieces that are there already, so an unchanged line costs nothing on the wire.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from textual.geometry import Offset, Size
from textual.strip import Strip
from widgets.textual_private import ChopsUpdate, CompositorUpdate, LayoutUpdate


def _move_to(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"


class TerminalLines:
    """What the terminal shows: for each line, the pieces written to it, by column."""

    def __init__(self) -> None:
        self._lines: dict[int, dict[int, tuple[int, str]]] = {}  # y -> x -> (end, text)
        self._size: Size | None = None
        self._cursor: Offset | None = None  # where the terminal's cursor was last put

    def forget(self) -> None:
        """The terminal lost what it showed (a resume, a new size): write everything again."""
        self._lines.clear()
        self._cursor = None

    def cursor_moved(self, cursor: Offset) -> bool:
        """True (and now known) when the terminal's cursor is to go elsewhere than it is."""
        moved, self._cursor = cursor != self._cursor, cursor
        return moved

    def _changed(self, y: int, x: int, end: int, text: str) -> bool:
        """True (and now known) when `text` over columns x..end is not what line y shows."""
        line = self._lines.setdefault(y, {})
        if line.get(x) == (end, text):
            return False
        for start in [start for start, (stop, _) in line.items() if start < end and stop > x]:
            del line[start]
        line[x] = (end, text)
        return True

    def render(self, update: CompositorUpdate, console: Console, size: Size) -> str:
        """The terminal sequence for `update`, without the pieces already on screen."""
        if size != self._size:
            self._size = size
            self.forget()
        out: list[str] = []
        if isinstance(update, LayoutUpdate):
            x = update.region.x
            for y, strips in enumerate(update.strips, update.region.y):
                strip = Strip.join(strips)
                text = strip.render(console)
                if text and self._changed(y, x, x + strip.cell_length, text):
                    out += (_move_to(x, y), text)
        elif isinstance(update, ChopsUpdate):
            for y, x1, x2 in update.spans:
                for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items()):
                    if strip is None or x > x2 or end <= x1:
                        continue
                    if not (x2 > x >= x1 and end <= x2):
                        strip = strip.crop(0, min(end, x2) - x)
                        end = x + strip.cell_length
                    text = strip.render(console)
                    if text and self._changed(y, x, end, text):  # (an empty piece writes nothing)
                        out += (_move_to(x, y), text)
        else:
            self.forget()
            return update.render_segments(console)
        return "".join(out)


class UnchangedLeftOut(CompositorUpdate):
    """A compositor update already rendered, with what the terminal shows left out."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: object) -> list[Segment]:
        return [Segment(self.text)]

    def render_segments(self, console: Console) -> str:
        return self.text
