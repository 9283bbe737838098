"""A line a reply adds is drawn in one frame, its scrollbar with it, and the stats at a run's
end in a frame without a layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pi_harness import Fake, send, wait_until
from widgets.panes import side as side_panes


async def test_the_scrollbar_moves_in_the_frame_of_the_layout_that_moved_it(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--rate", "1/20")
    async with fake.run(size=(100, 18)) as pilot:
        app = pilot.app
        screen = app.desk.current.main
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running, what="a first reply")
        bar = screen.transcript.vertical_scrollbar
        assert bar.display, "the transcript overflows"
        frames: list[set[object]] = []
        refresh = screen._compositor_refresh

        def counting() -> None:
            frames.append(set(screen._dirty_widgets))
            refresh()

        screen._compositor_refresh = counting  # type: ignore[method-assign]
        layouts = 0
        layout = screen._refresh_layout

        def laying_out(*args: object, **kwargs: object) -> None:
            nonlocal layouts
            layouts += 1
            layout(*args, **kwargs)  # type: ignore[arg-type]

        screen._refresh_layout = laying_out  # type: ignore[method-assign]
        await send(pilot, "Again.")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 3 and not app.desk.current.pi.model.running, what="a second reply")
        await pilot.pause()
        assert layouts >= 3, "lines were added"
        assert frames and not [frame for frame in frames if frame == {bar}], "no frame of the scrollbar alone"


async def test_the_stats_at_a_run_s_end_take_no_layout(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        stats = app.desk.current.main.stats
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running, what="a reply")
        await wait_until(pilot, lambda: "↓0" not in str(stats.content), what="the stats of the run")
        shown = str(stats.content)
        stats.refresh_stats()
        assert not stats._layout_required, "unchanged: nothing to do"
        stats._shown = stats._shown.copy()
        stats._shown.plain = stats._shown.plain.replace("$", "€")  # figures changed, rows as many
        stats._made_of = None  # (as if the figures it was made of had changed)
        stats.refresh_stats()
        assert str(stats.content) == shown and not stats._layout_required
        stats._shown = stats._shown[: stats._shown.plain.rindex("\n")]  # a row fewer shown
        stats._made_of = None
        stats.refresh_stats()
        assert stats._layout_required, "a row more: laid out"


async def test_the_deltas_usage_does_not_rebuild_the_session_pane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Usage comes with every delta and changes none of the pane's rows: they were built
    again each time (a tenth of a reply's drawing at a model's pace)."""
    fake = Fake(tmp_path, "--rate", "1/60")  # (a record a frame and more: on a loaded machine, flushes of one delta still)
    async with fake.run() as pilot:
        app = pilot.app
        stats = app.desk.current.main.stats
        builds: list[object] = []
        refresh = stats.refresh_stats
        clean = side_panes.clean

        def counting_clean(text: str) -> str:
            builds.append(text)
            return clean(text)

        def refreshing() -> None:
            builds.clear()
            refresh()
            rebuilt.append(bool(builds))

        rebuilt: list[bool] = []
        monkeypatch.setattr(side_panes, "clean", counting_clean)
        stats.refresh_stats = refreshing  # type: ignore[method-assign]
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle,
                         what="a reply")
        assert len(rebuilt) > 10, "refreshed as the deltas came"
        assert sum(rebuilt) <= 3, "its rows built again for each delta"


async def test_the_session_pane_shows_a_state_changed_in_place(tmp_path: Path) -> None:
    """pi's state is changed in place (a thinking level cycled): the rows are built again."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        stats = pilot.app.desk.current.main.stats
        state = pilot.app.desk.current.pi.model.state
        assert state is not None and "thinking medium" in str(stats.content)
        state.thinking_level = "high"
        stats.refresh_stats()
        assert "thinking high" in str(stats.content)
