"""A compositor that renders, of each widget, only the rows and pieces a frame repaints.

Textual's partial update takes the box around every dirty region and asks each widget
that box touches for all of its visible rows, then drops the rows outside the dirty ones.
A reply streaming into the transcript's last line while the spinner turns on the status
line makes a box from that line to the bottom of the screen: the transcript, the prompt,
the footer and the side panes each render every row they show (from their caches, but
row by row), about 15 widgets per frame for two changed lines. Here a widget is asked
only for its rows from the frame's first to its last repainted one, and not at all when
none of the pieces it shows on them (its chops: a row is cut where widgets begin and
end) is in a repainted span and not painted already by a widget in front. A streamed
line is then the text block's row alone, where the message, the transcript and the
containers around it each rendered theirs too (7 widgets a frame), though only the
block's columns are sent.

A layout that only scrolled the transcript renders only what the scroll does not bring
(widgets/scroll_in_place.py): its update is a `ScrolledUpdate`, and the terminal moves
the rows, when `scroller` says it can.

A layout also keeps the map of every widget it made. Textual's reflow leaves the map
marked stale when a refresh before it had marked it so (a widget mounted since the last
frame), and the first widget to ask for its region after the layout, in the same frame,
had every widget laid out again: a message sent or begun was laid out twice, 1 to 3 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from widgets.grows_in_place import GrowsInPlace
from widgets.scroll_in_place import Placement, Scroll, plan
from widgets.textual_private import ChopsUpdate, Compositor, ReflowResult

Spans = Mapping[int, list[tuple[int, int]]]  # row -> the columns (x, end) it repaints


class ScrolledUpdate(ChopsUpdate):
    """A partial update drawn over the terminal's rows moved by `scroll`."""

    def __init__(self, chops: Sequence[Mapping[int, Strip | None]], spans: list[tuple[int, int, int]],
                 chop_ends: list[list[int]], scroll: Scroll) -> None:
        super().__init__(chops, spans, chop_ends)
        self.scroll = scroll


def kept_rows(widget: Widget, old: Region, new: Region) -> int:
    """Top rows of a widget that keep their content as its region goes from old to new."""
    if old.size == new.size:
        return new.height
    if isinstance(widget, GrowsInPlace) and old.width == new.width:
        return max(0, min(old.height, new.height) - widget.styles.gutter.bottom)
    return 0


class RowsCompositor(Compositor):
    scroller: Callable[[Scroll], bool] | None = None
    """Whether the terminal can move rows itself, and the next update goes to it (the app's)."""

    def __init__(self) -> None:
        super().__init__()
        self._drawn: dict[Widget, Placement] | None = None  # what the terminal shows, as this compositor drew it
        self._earlier: set[Region] | None = None  # what was dirty before a layout since then
        self._marked: set[Region] = set()  # ... and after it

    def drawn(self, shown: bool) -> None:
        """This compositor's update went to the terminal (or, not `shown`, elsewhere)."""
        self._drawn = dict(self.visible_widgets) if shown else None
        self._earlier = None

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        """Textual's; the map it made of every widget is the full map (it is `full_map`'s own
        arrangement, `visible_only=False`)."""
        if self._earlier is None:
            self._earlier = self._dirty_regions.copy()
        else:  # a second layout before an update: what changed between them is drawn as Textual would
            self._drawn = None
        result = super().reflow(parent, size)
        self._full_map_invalidated = False
        self._marked = self._dirty_regions.copy()
        return result

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        self._drawn = self._earlier = None  # (a scroll of the user's: drawn as Textual does)
        return super().reflow_visible(parent, size)

    def render_partial_update(self) -> ChopsUpdate | None:
        """Textual's, but the spans reach `_render_chops` (which is given only the rows)."""
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        scroll = self._scroll_in_place(update_regions)
        if scroll is not None:
            scroll, update_regions = scroll
        crop = Region.from_union(update_regions).intersection(self.size.region)
        spans = list(self._regions_to_spans(update_regions))
        by_row: dict[int, list[tuple[int, int]]] = {}
        for y, x1, x2 in spans:
            by_row.setdefault(y, []).append((x1, x2))
        chops = self._render_chops(crop, by_row.__contains__, by_row)
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends) if scroll is None else ScrolledUpdate(chops, spans, chop_ends, scroll)

    def _scroll_in_place(self, dirty: set[Region]) -> tuple[Scroll, set[Region]] | None:
        """The scroll the terminal is to make, and what to render over it, when the layouts
        since the last update moved one container's views together."""
        if self._drawn is None or self._earlier is None or self.scroller is None:
            return None
        planned = plan(self._drawn, self.visible_widgets, self._earlier, kept_rows)
        if planned is None or not self.scroller(planned[0]):
            return None
        scroll, regions = planned
        screen = self.size.region
        later = dirty - self._marked  # refreshed since the layout
        return scroll, {clipped for region in (*regions, *later) if (clipped := region.intersection(screen))}

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool],
                      spans: Spans | None = None) -> Sequence[Mapping[int, Strip]]:
        """With `spans`, the chops outside them are left empty (None): nothing writes them."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        # Of each repainted row, the chops (by where they start) that a span repaints and no
        # widget painted yet: a widget is asked for a row only if one of them is its.
        unpainted = None if spans is None else {
            y: {start for start, end in zip(cuts[y], cuts[y][1:]) if any(x1 < end and start < x2 for x1, x2 in row)}
            for y, row in spans.items()
        }
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop_overlaps(clip):
                continue
            shown = region.intersection(clip)  # (whole columns: a frame's span may start inside a chop)
            x, width = shown.x, shown.width
            first_cut, last_cut = x, x + width
            lines = range(max(shown.y, crop.y), min(shown.bottom, crop.bottom))
            if unpainted is None:
                rows = [y for y in lines if is_rendered_line(y)]
            else:
                rows = [y for y in lines if (left := unpainted.get(y)) and any(first_cut <= start < last_cut for start in left)]
            if not rows:
                continue
            top, bottom = rows[0], rows[-1] + 1
            strips = widget.render_lines(Region(x - region.x, top - region.y, width, bottom - top))
            for y, strip in zip(range(top, bottom), strips):
                if not is_rendered_line(y):
                    continue
                chops_line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                painted = []
                # front to back: the first strip for a cut wins
                for cut, piece in zip(final_cuts, strip.divide([cut - x for cut in final_cuts[1:]])):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece
                        painted.append(cut)
                if unpainted is not None:
                    unpainted[y].difference_update(painted)
        return cast("Sequence[Mapping[int, Strip]]", chops)
