"""A layout that scrolls the transcript, drawn as a scroll of the terminal's rows.

A reply that adds a line to an anchored transcript moves every view in it up a row, and
Textual's layout marks every moved region dirty: each frame rendered every transcript row
again, from the widgets' caches (4 to 5 ms, after each line a reply adds), only for
`unchanged_lines` to find them moved and send a scroll. Here, when the views of one
scrolling container all moved by the same rows, the frame renders only what the move does
not bring: the rows scrolled in, what changed, and whatever did not move with the rest;
the update says which rows the terminal is to move (`Scroll`), and the terminal moves them.

`plan` is pure geometry; the compositor gives it what it last drew and what it draws now.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

from textual.geometry import Region
from textual.widget import Widget

Placement = tuple[Region, Region]  # a widget's region and clip, on the screen


class Scroll(NamedTuple):
    view: Region  # the scrolling container's columns on its view's rows: the terminal moves those rows (the whole width)
    shift: int  # rows the content moved: negative is up


def _rows(region: Region, top: int, bottom: int) -> Region:
    """The rows top..bottom of `region`."""
    top, bottom = max(region.y, top), min(region.bottom, bottom)
    return Region(region.x, top, region.width, max(0, bottom - top))


def _less(region: Region, kept: Region) -> Iterable[Region]:
    """`region` less the rows of it `kept` covers (or all of it, where the columns differ)."""
    if not kept or kept.x != region.x or kept.width != region.width:
        yield region
        return
    yield _rows(region, region.y, kept.y)
    yield _rows(region, kept.bottom, region.bottom)


def plan(
    drawn: Mapping[Widget, Placement],
    now: Mapping[Widget, Placement],
    earlier: Iterable[Region],
    kept_rows: Callable[[Widget, Region, Region], int],
) -> tuple[Scroll, set[Region]] | None:
    """The scroll, and the regions to render with it, when the children of one container
    moved together by some rows since `drawn` (else None). `earlier`: what was dirty before
    the layout (in the places `drawn` shows). `kept_rows(widget, old, new)`: how many of a
    widget's top rows keep their content when its region goes from old to new (all of them
    when its size is the same)."""
    votes: Counter[tuple[Region, int]] = Counter()
    voters: dict[tuple[Region, int], Widget] = {}
    for widget, (region, clip) in now.items():
        old = drawn.get(widget)
        if old is None or old == (region, clip) or old[1] != clip:
            continue
        shift = region.y - old[0].y
        if shift and region.x == old[0].x and region.width == old[0].width and kept_rows(widget, old[0], region):
            votes[clip, shift] += 1  # (the container's children share its clip)
            voters.setdefault((clip, shift), widget)
    if not votes:
        return None
    (view, shift), _ = votes.most_common(1)[0]
    container = voters[view, shift].parent
    if not view or abs(shift) >= view.height or container not in now:
        return None
    # The rows move across the container's whole width: its padding, borders and background
    # are the same on every row of its view, and its scrollbars are drawn again.
    outer = now[container][1].intersection(now[container][0])
    view = Region(outer.x, view.y, outer.width, view.height)
    background = set(container.ancestors_with_self)  # behind the view, whose rows move with it (its background)
    regions: set[Region] = set()
    if shift < 0:
        regions.add(_rows(view, view.bottom + shift, view.bottom))  # the rows scrolled in
    else:
        regions.add(_rows(view, view.y, view.y + shift))
    for region in earlier:  # what was dirty: in the view, it moved with what it showed
        regions.add(region)
        if moved := region.intersection(view).translate((0, shift)).intersection(view):
            regions.add(moved)
    for widget in now.keys() | drawn.keys():
        if widget in background:
            continue
        new, old = now.get(widget), drawn.get(widget)
        shown = new[1].intersection(new[0]) if new else Region()
        was = old[1].intersection(old[0]) if old else Region()
        if new == old:
            if shown.overlaps(view):  # it stayed where it was: the terminal moved what it showed
                regions.update((shown, shown.translate((0, shift))))
            continue
        if new and old and new[0].x == old[0].x and new[0].width == old[0].width and new[0].y - old[0].y == shift:
            region = old[0]
            keep = kept_rows(widget, region, new[0])
            kept = was.intersection(Region(region.x, region.y, region.width, keep)).translate((0, shift))
            regions.update(_less(shown, kept.intersection(view)))
            continue
        regions.add(shown)
        regions.add(was)
        regions.add(was.translate((0, shift)))
    return Scroll(view, shift), {region for region in regions if region}
