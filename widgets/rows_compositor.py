"""A compositor that renders, of each widget, only the rows a frame repaints.

Textual's partial update takes the box around every dirty region and asks each widget
that box touches for all of its visible rows, then drops the rows outside the dirty ones.
A reply streaming into the transcript's last line while the spinner turns on the status
line makes a box from that line to the bottom of the screen: the transcript, the prompt,
the footer and the side panes each render every row they show (from their caches, but
row by row), about 15 widgets per frame for two changed lines. Here a widget is asked
only for its rows from the frame's first to its last repainted one, and not at all when
it has none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

from textual.geometry import Region
from textual.strip import Strip
from widgets.textual_private import Compositor


class RowsCompositor(Compositor):
    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        crop_overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            if not crop_overlaps(clip):
                continue
            shown = region.intersection(clip)  # (whole columns: a frame's span may start inside a chop)
            rows = [y for y in range(max(shown.y, crop.y), min(shown.bottom, crop.bottom)) if is_rendered_line(y)]
            if not rows:
                continue
            top, bottom = rows[0], rows[-1] + 1
            x, width = shown.x, shown.width
            strips = widget.render_lines(Region(x - region.x, top - region.y, width, bottom - top))
            first_cut, last_cut = x, x + width
            for y, strip in zip(range(top, bottom), strips):
                if not is_rendered_line(y):
                    continue
                chops_line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                # front to back: the first strip for a cut wins
                for cut, piece in zip(final_cuts, strip.divide([cut - x for cut in final_cuts[1:]])):
                    if chops_line.get(cut) is None:
                        chops_line[cut] = piece
        return cast("Sequence[Mapping[int, Strip]]", chops)
