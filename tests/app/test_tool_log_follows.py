"""The tool log follows the newest tool, as the transcript follows the stream, until the
user scrolls it or highlights an older tool; F3 highlights the newest at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.pi_harness import Fake, wait_until

from widgets.panes import side as side_panes
from widgets.panes.side import ToolLog


def run_tools(fake: Fake, first: int, count: int) -> None:
    for n in range(first, first + count):
        call = {"toolCallId": f"call_{n}", "toolName": "bash", "args": {"command": f"echo tool {n}"}}
        fake.inject({"type": "tool_execution_start", **call},
                    {"type": "tool_execution_end", **call, "isError": False, "durationMs": 5,
                     "result": {"content": [{"type": "text", "text": f"tool {n}\n"}]}})


def newest_in_view(log: ToolLog) -> bool:
    last = log._index_to_line[log.option_count - 1]
    return log.scroll_y <= last and last + 1 <= log.scroll_y + log.scrollable_content_region.height


async def test_the_tool_log_follows_the_newest_tool_unless_scrolled(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        log = app.query_one(ToolLog)
        run_tools(fake, 1, 15)
        await wait_until(pilot, lambda: log.option_count == 15 and log.border_subtitle == "15", what="15 tools")
        assert log.max_scroll_y > 0, "more tools than the pane shows"
        await wait_until(pilot, lambda: newest_in_view(log), what="the newest tool in view")

        await pilot.press("f3")
        await wait_until(pilot, lambda: log.has_focus and log.highlighted == 14, what="the newest highlighted")
        await pilot.press("up", "up", "up", "up", "up", "up", "up", "up")  # reading an older tool
        chosen = log.get_option_at_index(6).id
        await wait_until(pilot, lambda: log.highlighted == 6 and not newest_in_view(log), what="scrolled up")
        scroll_y = log.scroll_y
        run_tools(fake, 16, 3)
        await wait_until(pilot, lambda: log.option_count == 18, what="three more tools")
        assert log.get_option_at_index(log.highlighted or 0).id == chosen and log.scroll_y == scroll_y, "left alone"

        await pilot.press("end")  # back to the newest: following again
        run_tools(fake, 19, 2)
        await wait_until(pilot, lambda: log.option_count == 20, what="two more tools")
        await wait_until(pilot, lambda: log.highlighted == 19 and newest_in_view(log), what="following again")


async def test_a_rows_title_is_drawn_again_only_when_its_run_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row is drawn again on each tool event; a title (which may count through a whole
    output) is kept until its run changes."""
    drawn: list[str] = []
    real = side_panes.tool_title
    monkeypatch.setattr(side_panes, "tool_title", lambda run, *rest: drawn.append(run.tool_call_id) or real(run, *rest))
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        log = pilot.app.query_one(ToolLog)
        run_tools(fake, 1, 3)
        await wait_until(pilot, lambda: log.option_count == 3, what="3 tools")
        assert sorted(set(drawn)) == ["call_1", "call_2", "call_3"]
        drawn.clear()
        run_tools(fake, 4, 1)
        await wait_until(pilot, lambda: log.option_count == 4, what="a fourth tool")
        assert set(drawn) == {"call_4"}, "the other rows kept their titles"
        assert "echo tool 2" in str(log.get_option_at_index(1).prompt)
