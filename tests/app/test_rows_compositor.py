"""The main screen's compositor renders, of each widget, only the rows a partial frame
repaints (widgets/rows_compositor.py): its frames are the ones Textual's own would send."""

from __future__ import annotations

import random
from typing import Any
from pathlib import Path

from rich.console import Console
from textual.geometry import Region
from tests.pi_harness import Fake, send, wait_until

from app.terminal.unchanged_lines import TerminalLines
from widgets.message_views import TextBlock
from widgets.rows_compositor import RowsCompositor
from widgets.textual_private import ChopsUpdate, Compositor


def frame(compositor: Compositor, regions: list[Region], chops_of, console: Console) -> list[tuple[int, int, int, str]]:
    """The pieces of lines pideck would write for a partial frame over `regions` (what
    `TerminalLines` sends, before it leaves out what the terminal shows)."""
    crop = Region.from_union(regions).intersection(compositor.size.region)
    spans = list(compositor._regions_to_spans(regions))
    rows: dict[int, list[tuple[int, int]]] = {}
    for y, x1, x2 in spans:
        rows.setdefault(y, []).append((x1, x2))
    chops = chops_of(crop, rows.__contains__, rows)
    return TerminalLines._chops_pieces(ChopsUpdate(chops, spans, [cuts[1:] for cuts in compositor.cuts]), console)


async def replied(pilot: Any) -> RowsCompositor:
    """The main screen's compositor once a markdown reply is on screen."""
    app = pilot.app
    await send(pilot, "Show me some markdown.")
    await wait_until(pilot, lambda: len(app.session.items) > 1 and not app.session.running, what="a reply")
    await pilot.pause()
    return app.main._compositor


async def test_partial_frames_are_textuals_own_for_every_shape_of_dirty_regions(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = await replied(pilot)
        assert isinstance(compositor, RowsCompositor)
        console, width, height = app.console, app.size.width, app.size.height
        shapes = [[Region(3, height - 7, 70, 1), Region(0, height - 1, width, 1)],  # a streamed line and the status
                  [Region(0, 0, width, height)], [Region(width - 30, 2, 30, 1)]]
        pick = random.Random(7)
        for _ in range(60):
            shapes.append([Region(x := pick.randrange(width), y := pick.randrange(height),
                                  pick.randint(1, width - x), pick.randint(1, min(4, height - y)))
                           for _ in range(pick.randint(1, 3))])
        for regions in shapes:
            ours = frame(compositor, regions, compositor._render_chops, console)
            textuals = frame(compositor, regions,
                             lambda crop, line, spans: Compositor._render_chops(compositor, crop, line), console)
            assert ours == textuals, regions
        assert any(frame(compositor, shape, compositor._render_chops, console) for shape in shapes)
        update = compositor.render_partial_update()  # (nothing dirty now)
        compositor._dirty_regions.add(Region(0, 0, width, height))
        update = compositor.render_partial_update()
        assert isinstance(update, ChopsUpdate) and TerminalLines._chops_pieces(update, console)


async def test_a_frame_asks_only_the_widgets_on_its_rows(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = app.main._compositor
        asked: list[str] = []
        editor = app.main.editor
        original = type(editor).render_lines

        def render_lines(widget, crop):  # noqa: ANN001, ANN202
            asked.append(widget.id)
            return original(widget, crop)

        editor.render_lines = render_lines.__get__(editor)
        top, bottom = editor.region.y, editor.region.bottom
        regions = [Region(0, top - 2, 10, 1), Region(0, bottom + 1, 10, 1)]  # above and below the prompt
        frame(compositor, regions, compositor._render_chops, app.console)
        assert asked == []
        frame(compositor, [Region(0, top + 1, 10, 1)], compositor._render_chops, app.console)
        assert asked == ["editor"]


async def test_a_streamed_line_asks_only_its_text_block_not_the_containers_around_it(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = await replied(pilot)
        block = next(block for block in app.main.query(TextBlock) if block.region.height > 1)
        line = Region(block.region.x, block.region.bottom - 1, block.region.width, 1)  # its last line, as it streams
        asked: list[object] = []
        for widget in compositor.visible_widgets:
            original = widget.render_lines
            widget.render_lines = (lambda crop, widget=widget, original=original:  # type: ignore[method-assign]
                                   asked.append(widget) or original(crop))
        try:
            pieces = frame(compositor, [line], compositor._render_chops, app.console)
        finally:
            for widget in compositor.visible_widgets:
                del widget.render_lines
        assert pieces and asked == [block], [type(widget).__name__ for widget in asked]


async def test_a_layout_arranges_every_widget_once(tmp_path: Path) -> None:
    """The map a layout made is the full map: a widget that asks for its region in the
    same frame (a message mounted since the last frame) does not have it made again."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = app.main._compositor
        await replied(pilot)
        counts = {"layouts": 0, "whole": 0}
        reflow, arrange = compositor.reflow, compositor._arrange_root

        def counted_reflow(parent, size):  # noqa: ANN001, ANN202
            counts["layouts"] += 1
            return reflow(parent, size)

        def counted_arrange(root, size, visible_only=True):  # noqa: ANN001, ANN202
            counts["whole"] += not visible_only
            return arrange(root, size, visible_only)

        compositor.reflow, compositor._arrange_root = counted_reflow, counted_arrange
        try:
            await replied(pilot)  # a message sent, a reply mounted and streamed
        finally:
            del compositor.reflow, compositor._arrange_root
        assert counts["layouts"] >= 2 and counts["whole"] == counts["layouts"], counts
