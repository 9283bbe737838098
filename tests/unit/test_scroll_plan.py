"""What a layout that scrolled one container renders over the terminal's moved rows
(widgets/engine/scroll_in_place.py), by geometry alone."""

from __future__ import annotations

from typing import Any

from textual.geometry import Region

from widgets.engine.scroll_in_place import Scroll, plan

VIEW = Region(0, 0, 40, 10)  # the container's view: rows 0-9, columns 0-39 of a 60 x 12 screen


class Node:
    def __init__(self, parent: Node | None = None) -> None:
        self.parent = parent

    @property
    def ancestors_with_self(self) -> list[Node]:
        node: Node | None = self
        found = []
        while node is not None:
            found.append(node)
            node = node.parent
        return found


SCREEN = Node()
CONTAINER = Node(SCREEN)


def messages(*tops: int, height: int = 3) -> dict[Any, tuple[Region, Region]]:
    return {node: (Region(0, top, 40, height), VIEW) for node, top in zip(NODES, tops)}


NODES = [Node(CONTAINER) for _ in range(5)]
BACKGROUND = {SCREEN: (Region(0, 0, 60, 12), Region(0, 0, 60, 12)), CONTAINER: (VIEW, Region(0, 0, 60, 12))}


def no_rows_kept(widget: Any, old: Region, new: Region) -> int:
    return new.height if old.size == new.size else 0


def test_views_that_all_moved_up_a_row_render_only_the_row_that_came_in() -> None:
    drawn = {**BACKGROUND, **messages(-1, 2, 5, 8)}
    now = {**BACKGROUND, **messages(-2, 1, 4, 7)}
    planned = plan(drawn, now, [], no_rows_kept)
    assert planned is not None
    scroll, regions = planned
    assert scroll == Scroll(VIEW, -1)
    assert Region(0, 9, 40, 1) in regions
    covered = {y for region in regions for y in range(region.y, region.bottom)}
    assert covered == {9}, "only the row the scroll brought in"


def test_what_stayed_in_place_over_the_view_is_drawn_again_where_it_is_and_where_it_moved() -> None:
    overlay = Node(SCREEN)
    toast = (Region(10, 4, 20, 2), Region(0, 0, 60, 12))
    drawn = {**BACKGROUND, **messages(-1, 2, 5, 8), overlay: toast}
    now = {**BACKGROUND, **messages(-2, 1, 4, 7), overlay: toast}
    _, regions = plan(drawn, now, [], no_rows_kept) or (None, set())
    assert Region(10, 4, 20, 2) in regions  # it is drawn again over the rows moved under it
    assert Region(10, 3, 20, 2) in regions  # and what the terminal moved of it a row up is drawn over


def test_a_view_taken_away_is_drawn_over_where_the_scroll_moved_it() -> None:
    drawn = {**BACKGROUND, **messages(-1, 2, 5, 8)}
    now = {**BACKGROUND, **messages(-2, 1, 4)}
    _, regions = plan(drawn, now, [], no_rows_kept) or (None, set())
    assert Region(0, 7, 40, 2) in regions  # (its rows in the view, a row up)


def test_what_was_dirty_before_the_layout_moves_with_its_view() -> None:
    drawn = {**BACKGROUND, **messages(-1, 2, 5, 8)}
    now = {**BACKGROUND, **messages(-2, 1, 4, 7)}
    _, regions = plan(drawn, now, [Region(3, 5, 10, 1)], no_rows_kept) or (None, set())
    assert Region(3, 4, 10, 1) in regions


def test_a_layout_that_moved_nothing_together_is_not_a_scroll() -> None:
    drawn = {**BACKGROUND, **messages(0, 3)}
    assert plan(drawn, {**BACKGROUND, **messages(0, 3)}, [], no_rows_kept) is None
    assert plan(drawn, {**BACKGROUND, **messages(0, 4, height=4)}, [], no_rows_kept) is None
    assert plan(drawn, {**BACKGROUND, **messages(-20, -17)}, [], no_rows_kept) is None  # (more than the view)
