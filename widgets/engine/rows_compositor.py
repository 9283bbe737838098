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

A layout places only the widgets in view, as Textual's scroll does (`reflow_visible`):
Textual's places every widget mounted, and a long session's transcript keeps about a
thousand, most of them far above the screen, so a one-line reply there took 9 ms to
place them, where one in a new session took 4. The map of every widget is made only when
something asks where a widget out of view is (Textual's `full_map`, made when asked).
A widget that only went out of view is not told it is hidden (Textual's Hide blurs it):
only one taken off the screen or out of the display is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from textual.errors import NoWidget
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from widgets.engine.grows_in_place import GrowsInPlace
from widgets.engine.scroll_in_place import Placement, Scroll, plan
from widgets.engine.private import ChopsUpdate, Compositor, MapGeometry, ReflowResult

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


def displayed(widget: Widget, root: Widget) -> bool:
    """Whether `widget` is still on `root` and displayed (out of the last layout only out of view)."""
    node: object = widget
    while node is not root:
        if not isinstance(node, Widget) or not node.is_mounted or not node.display:
            return False
        node = node.parent
    return True


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
        """Textual's `reflow`, of the widgets in view only: what changed, was hidden, shown or
        resized, against what the last layout placed (so a widget back in view is shown, and
        resized if it was: Textual's showed a widget once, when first placed)."""
        if self._earlier is None:
            self._earlier = self._dirty_regions.copy()
        else:  # a second layout before an update: what changed between them is drawn as Textual would
            self._drawn = None
        self._cuts = self._layers = self._layers_visible = self._visible_widgets = None
        self.root, self.size = parent, size
        old_map = self._visible_map if self._visible_map is not None else self._full_map
        new_map, widgets = self._arrange_root(parent, size, visible_only=True)
        hidden = {widget for widget in self.widgets - widgets if not displayed(widget, parent)}
        self._visible_map, self.widgets, self._full_map_invalidated = new_map, widgets, True
        changes = new_map.items() ^ old_map.items()
        if size.region not in self._dirty_regions:
            self._dirty_regions.update(
                region for region in (geometry.clip.intersection(geometry.region) for _, geometry in changes) if region)
        resized = {widget for widget, (region, *_) in changes
                   if widget in old_map and widget in new_map and old_map[widget].region.size != region.size}
        self._marked = self._dirty_regions.copy()
        return ReflowResult(hidden=hidden, shown=new_map.keys() - old_map.keys(), resized=resized)

    def find_widget(self, widget: Widget) -> MapGeometry:
        """Textual's, but the map of every widget is not made to look for one the last layout
        placed nowhere: the map could not have it either."""
        if self._full_map_invalidated and self._visible_map is not None and self._placed_nowhere(widget):
            raise NoWidget("Widget is not in layout")
        return super().find_widget(widget)

    def _placed_nowhere(self, widget: Widget) -> bool:
        """Whether the last layout placed `widget` nowhere, off screen included: its branch
        left the arrangement of the nearest widget in view (mounted since, as a reply's first
        delta refreshes its block before the layout, or out of the display, as the completion
        menu), or it is the scrollbar of one in view, placed with it if shown at all."""
        visible = cast("Mapping[Widget, MapGeometry]", self._visible_map)
        node: object = widget
        below: Widget | None = None
        while node not in visible:
            if not isinstance(node, Widget) or not node.display:
                return True  # off its screen, or on a branch out of the display
            node, below = node.parent, node
        return below is not None and below not in self.widgets  # (what that layout arranged)

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
