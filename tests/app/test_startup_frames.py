"""What start-up draws once pi answers: its rows filled in place, in a frame that is not
late, and the markdown renderer imported beside it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from tests.pi_harness import SIZE, Fake, ready, wait_until
from widgets.engine.frame_timer import FrameTimer
from widgets.markdown.stream import RENDERER
from widgets.panes.side import StatsPane


async def test_pi_s_answers_fill_the_session_pane_s_rows_without_a_layout(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--hold-state")  # pi answers get_state only when told
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "get_state" in fake.kinds(), what="pideck asked for pi's state")
        stats = app.query_one(StatsPane)
        await pilot.pause()
        waiting = str(stats.content).split("\n")
        assert "…" in waiting[0] and stats.size.height == len(waiting), "the rows pi fills, there already"
        layouts: list[bool] = []
        refresh = stats.refresh

        def counting(*regions: object, repaint: bool = True, layout: bool = False, recompose: bool = False) -> object:
            layouts.append(layout)
            return refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)  # type: ignore[arg-type]

        stats.refresh = counting  # type: ignore[method-assign]
        fake.inject("#fake:release-state")
        await ready(pilot, fake)
        shown = str(stats.content).split("\n")
        assert "…" not in str(stats.content) and shown[0].startswith("model"), "pi's model in the first row"
        assert len(shown) == len(waiting) and layouts and not any(layouts), "repainted in place"


@pytest.mark.engine
async def test_the_main_screen_draws_a_refresh_after_a_pause_in_time(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        assert isinstance(pilot.app.desk.current.main._update_timer, FrameTimer)


async def test_the_markdown_renderer_is_imported_in_a_thread_once_the_session_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    imported: list[bool] = []
    monkeypatch.delitem(sys.modules, RENDERER, raising=False)
    monkeypatch.setattr("app.desk.desk.import_renderer",
                        lambda: imported.append(threading.current_thread() is not threading.main_thread()))
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        await wait_until(pilot, lambda: imported, what="the renderer imported aside")
        assert imported == [True] and not pilot.app.desk.current.pi.model.items, "in a thread, before any reply"


async def test_a_session_s_screen_shown_the_first_time_is_not_styled_twice(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Its widgets were styled as they were mounted; Textual's first ScreenResume styled
    every one of them again (and a theme set since restyles the app's every widget anyway)."""
    from app.main_screen import MainScreen

    whole: list[bool] = []
    update = MainScreen.update_node_styles
    monkeypatch.setattr(MainScreen, "update_node_styles", lambda self, animate=True: (whole.append(True), update(self, animate))[1])
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        await pilot.pause()
        assert not whole, "the whole screen restyled as it was first shown"
