"""The main screen's compositor renders, of each widget, only the rows a partial frame
repaints (widgets/rows_compositor.py): its frames are the ones Textual's own would send."""

from __future__ import annotations

import random
from pathlib import Path

from rich.console import Console
from textual.geometry import Region
from tests.pi_harness import Fake, send, wait_until

from widgets.rows_compositor import RowsCompositor
from widgets.textual_private import ChopsUpdate, Compositor


def frame(compositor: Compositor, regions: list[Region], chops_of, console: Console) -> str:
    crop = Region.from_union(regions).intersection(compositor.size.region)
    spans = list(compositor._regions_to_spans(regions))
    rows = {y for y, _, _ in spans}
    chops = chops_of(crop, rows.__contains__)
    return ChopsUpdate(chops, spans, [cuts[1:] for cuts in compositor.cuts]).render_segments(console)


async def test_partial_frames_are_textuals_own_for_every_shape_of_dirty_regions(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.session.items) > 1 and not app.session.running, what="a reply")
        await pilot.pause()
        compositor = app.main._compositor
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
            textuals = frame(compositor, regions, lambda crop, line: Compositor._render_chops(compositor, crop, line),
                             console)
            assert ours == textuals, regions
        assert any("\x1b[" in frame(compositor, shape, compositor._render_chops, console) for shape in shapes)


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
