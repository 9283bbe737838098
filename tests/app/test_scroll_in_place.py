"""A layout that scrolls the transcript is drawn as a scroll of the terminal's rows and
what the scroll does not bring (widgets/engine/scroll_in_place.py): after every frame, the
terminal shows what a repaint of the whole screen would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.screen import ModalScreen

from widgets.engine.unchanged_lines import TerminalLines
from tests.pi_harness import Fake, send, wait_until
from tests.unit.test_unchanged_lines import Grid
from widgets.engine.rows_compositor import RowsCompositor, ScrolledUpdate
from widgets.engine.scroll_in_place import Scroll
from widgets.panes.side import SPINNER
from widgets.engine.private import CompositorUpdate, LayoutUpdate

pytestmark = pytest.mark.engine  # (what the engine does in Textual's place)


class Terminal:
    """The app's updates, through its `TerminalLines`, on a `Grid`; each checked against a
    repaint of the whole screen as the compositor would draw it now."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.grid = Grid(app.size.width, app.size.height)
        self.scrolls: list[ScrolledUpdate] = []
        self.frames = 0
        self.wrong: list[tuple[int, list[str], list[str]]] = []
        app._to_terminal_lines = lambda: True  # (a headless app sends its terminal nothing)
        app._display = self.display

    def display(self, screen: Any, renderable: Any) -> None:
        app = self.app
        compositor = screen._compositor
        if not isinstance(renderable, CompositorUpdate) or not isinstance(compositor, RowsCompositor):
            return
        if isinstance(renderable, ScrolledUpdate):
            self.scrolls.append(renderable)
        self.grid.feed(app.terminal_lines.render(renderable, app.console, app.size))
        app._drawn_by = screen
        compositor.drawn(True)
        self.frames += 1
        whole = compositor.size.region
        repaint = Grid(whole.width, whole.height)
        chops = compositor._render_chops(whole, lambda y: True)
        repaint.feed(TerminalLines().render(LayoutUpdate([chop.values() for chop in chops], whole), app.console,
                                            compositor.size))
        status = screen.status.region.y
        differ = [y for y, (a, b) in enumerate(zip(repaint.rows(), self.grid.rows()))
                  if a != b and not (y == status and spun(a) == spun(b))]
        if [y for y in differ if not pending(compositor, y)]:
            self.wrong.append((self.frames, repaint.rows(), self.grid.rows()))


def spun(row: str) -> str:
    """The status line without its spinner's glyph, which the clock picks on whichever frame
    comes: in about 1 of 10 runs on a loaded machine the repaint here drew the step after
    the one the frame drew, with nothing of the line waiting to be repainted."""
    return row.translate({ord(glyph): "*" for glyph in SPINNER})


def pending(compositor: RowsCompositor, y: int) -> bool:
    """Row `y` is a widget's that has asked to be repainted since this frame was made: the
    next frame draws it. (The test's send loads the editor, which Textual repaints once its
    refresh reaches the screen, at idle: a frame for another widget in between drew the
    editor as it had been, while the repaint here reads its new text.)"""
    return any(widget._repaint_required or widget._dirty_regions
               for widget, (region, _clip) in compositor.visible_widgets.items() if region.y <= y < region.bottom)


def first_difference(expected: list[str], shown: list[str]) -> str:
    y = next(y for y, (a, b) in enumerate(zip(expected, shown)) if a != b)
    return f"row {y}:\n  repaint {expected[y]!r}\n  shown   {shown[y]!r}"


@pytest.mark.parametrize("panes", ["side panes", "no side panes"])
async def test_replies_streamed_at_a_models_pace_leave_every_frame_as_a_repaint_would(tmp_path: Path, panes: str) -> None:
    fake = Fake(tmp_path, "--rate", "1/80")
    async with fake.run(size=(120, 30)) as pilot:
        app = pilot.app
        if panes == "no side panes":  # (the toast is over the transcript then)
            await pilot.press("f2")
        terminal = Terminal(app)
        app.screen.refresh()  # a whole frame first: the grid knows every cell
        await wait_until(pilot, lambda: terminal.frames, what="a whole frame")
        app.notify("A toast over the transcript, which stays where it is while the rows move.", timeout=60)
        for _ in range(3):
            await send(pilot, "Show me some markdown.")
            await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle, what="the reply")
        await pilot.pause()
        if terminal.wrong:
            frame, expected, shown = terminal.wrong[0]
            raise AssertionError(f"{len(terminal.wrong)} of {terminal.frames} frames wrong, first {frame}: "
                                 + first_difference(expected, shown))
        assert terminal.scrolls, "no layout was drawn as a scroll of the terminal's rows"
        transcript = app.desk.current.main.transcript.region
        rendered = sum(x2 - x1 for update in terminal.scrolls for y, x1, x2 in update.spans
                       if transcript.y <= y < transcript.bottom)  # cells of the transcript's rows
        assert rendered < len(terminal.scrolls) * transcript.area / 2, "what the scroll brings was rendered again"


async def test_no_scroll_of_the_terminals_rows_while_a_dialog_is_over_the_screen(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        compositor = app.desk.current.main._compositor
        assert isinstance(compositor, RowsCompositor) and compositor.scroller is not None
        view = Region(0, 0, 80, 10)
        app._to_terminal_lines = lambda: True
        app._drawn_by = app.desk.current.main
        app.terminal_lines.can_move_rows = lambda scroll, size: True  # (whatever the terminal shows)
        assert compositor.scroller(Scroll(view, -1))
        await app.push_screen(ModalScreen())
        await wait_until(pilot, lambda: len(app.screen_stack) > 1, what="the dialog")
        assert not compositor.scroller(Scroll(view, -1))


async def test_two_layouts_before_an_update_leave_out_nothing_changed_between_them(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=(120, 30)) as pilot:
        app = pilot.app
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle, what="the reply")
        await pilot.pause()
        compositor = app.desk.current.main._compositor
        transcript = app.desk.current.main.transcript
        compositor.scroller = lambda scroll: True  # (whatever the terminal shows)
        compositor.drawn(True)
        # as drawn a row lower: the transcript's views have since moved up a row together
        compositor._drawn = {widget: (region.translate((0, 1)), clip) if widget.parent is transcript else (region, clip)
                             for widget, (region, clip) in compositor._drawn.items()}
        compositor.reflow(app.desk.current.main, app.desk.current.main.size)
        status = app.desk.current.main.status.region
        compositor._dirty_regions.add(status)  # changed between the two layouts
        compositor.reflow(app.desk.current.main, app.desk.current.main.size)
        planned = compositor._scroll_in_place(set(compositor._dirty_regions))
        assert planned is None or any(region.contains_region(status) for region in planned[1]), \
            "the status line, changed between the layouts, is not drawn"
