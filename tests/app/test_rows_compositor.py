"""The main screen's compositor renders, of each widget, only the rows a partial frame
repaints (widgets/engine/rows_compositor.py): its frames are the ones Textual's own would send."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from pathlib import Path

import pytest
from rich.color import ColorSystem
from rich.console import Console
from textual.geometry import Region
from tests.pi_harness import Fake, send, wait_until

from widgets.engine.unchanged_lines import TerminalLines
from widgets.transcript.message_views import TextBlock
from widgets.engine.rows_compositor import RowsCompositor
from widgets.engine.private import ChopsUpdate, Compositor

pytestmark = pytest.mark.engine  # (what the engine does in Textual's place)


def frame(compositor: Compositor, regions: list[Region], chops_of, console: Console) -> list[tuple[int, int, int, str]]:
    """The pieces of lines pideck would write for a partial frame over `regions` (what
    `TerminalLines` sends, before it leaves out what the terminal shows)."""
    crop = Region.from_union(regions).intersection(compositor.size.region)
    spans = list(compositor._regions_to_spans(regions))
    rows: dict[int, list[tuple[int, int]]] = {}
    for y, x1, x2 in spans:
        rows.setdefault(y, []).append((x1, x2))
    chops = chops_of(crop, rows.__contains__, rows)
    return TerminalLines._chops_pieces(ChopsUpdate(chops, spans, [cuts[1:] for cuts in compositor.cuts]), ColorSystem.TRUECOLOR, True)


@contextmanager
def whole_maps(compositor: Compositor) -> Iterator[list[bool]]:
    """The arrangements `compositor` makes inside the block, in order: True for a map of
    every widget, False for one of the widgets in view."""
    arrange, made = compositor._arrange_root, []

    def counted(root, size, visible_only=True):  # noqa: ANN001, ANN202
        made.append(not visible_only)
        return arrange(root, size, visible_only)

    compositor._arrange_root = counted
    try:
        yield made
    finally:
        del compositor._arrange_root


async def replied(pilot: Any) -> RowsCompositor:
    """The main screen's compositor once a markdown reply is on screen."""
    app = pilot.app
    await send(pilot, "Show me some markdown.")
    await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running, what="a reply")
    await pilot.pause()
    return app.desk.current.main._compositor


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
        assert isinstance(update, ChopsUpdate) and TerminalLines._chops_pieces(update, ColorSystem.TRUECOLOR, True)


async def test_a_frame_asks_only_the_widgets_on_its_rows(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = app.desk.current.main._compositor
        asked: list[str] = []
        editor = app.desk.current.main.editor
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
        block = next(block for block in app.desk.current.main.query(TextBlock) if block.region.height > 1)
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


async def test_a_layout_places_only_the_widgets_in_view(tmp_path: Path) -> None:
    """A reply in a transcript taller than the screen lays out none of the views above the
    screen and makes no map of every widget; a view that went out of view is not hidden
    (Textual's Hide blurs a widget); the region of one out of view is still its own."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor, transcript = app.desk.current.main._compositor, app.desk.current.main.transcript
        for _ in range(4):
            await replied(pilot)
        assert transcript.virtual_size.height > 2 * transcript.size.height
        inside = set(transcript.query("*"))
        placed, hidden = [], set()
        reflow = compositor.reflow

        def counted_reflow(parent, size):  # noqa: ANN001, ANN202
            result = reflow(parent, size)
            mounted = set(transcript.query("*"))
            placed.append((len(mounted.intersection(compositor._visible_map)), len(mounted)))
            hidden.update(result.hidden)
            return result

        compositor.reflow = counted_reflow
        try:
            with whole_maps(compositor) as made:
                await replied(pilot)  # a message sent, a reply mounted and streamed
        finally:
            del compositor.reflow
        assert placed and all(0 < laid < mounted / 2 for laid, mounted in placed) and not any(made), (placed, made)
        left = inside - set(compositor._visible_map)
        assert left and not hidden & inside, hidden & inside
        first = next(iter(transcript.views.values()))
        full, _ = Compositor._arrange_root(compositor, app.desk.current.main, compositor.size, visible_only=False)
        assert first not in compositor._visible_map and first.region == full[first].region
        assert first.region.bottom <= 0


async def test_a_widget_mounted_since_the_layout_is_not_looked_for_in_a_map_of_every_widget(tmp_path: Path) -> None:
    """A reply's first delta refreshes its block before the layout that places it: the
    refresh asks where the block is, and that made the map of every widget (7 to 17 ms in
    a long session). It is found nowhere at once, and where it is after the layout."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor, screen = app.desk.current.main._compositor, app.desk.current.main
        await replied(pilot)
        view = list(app.desk.current.main.transcript.views.values())[-1]
        with whole_maps(compositor) as made:
            screen._refresh_layout = lambda *args, **kwargs: None  # no layout until the block has asked
            try:
                block = TextBlock("a first delta")
                await view.mount(block)
                block.refresh(layout=True)
                assert block.is_mounted and block.region == Region() and not any(made), made
            finally:
                del screen._refresh_layout
            screen.refresh(layout=True)
            await wait_until(pilot, lambda: block in compositor.visible_widgets, what="the block laid out")
        assert block.region.height >= 1 and block.region.y >= view.region.y and not any(made), made
