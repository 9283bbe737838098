"""SVG snapshots of tool calls drawn by kind, over the fake child answering get_messages
with a session recorded from real pi running every built-in tool (app/scripted_model's
`tool_tour`; tests/fixtures/sessions/tool_kinds.jsonl: the 10,000-line write cut to 300
lines, find's result, which needs an fd this machine lacked, written as pi lists it, and an
extension tool's call added). SVGs in snapshots/test_tool_kinds_snapshots/; update with
`--snapshot-update`, then look at them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SESSIONS, Fake, wait_until

from widgets.transcript.message_views import ToolCallBlock
from widgets.screens.tool_output_screen import ToolOutputScreen

SIZE = (90, 36)


def tour_fake(tmp_path: Path) -> Fake:
    messages = [entry["message"] for line in (SESSIONS / "tool_kinds.jsonl").read_text().splitlines()[1:]
                if (entry := json.loads(line)).get("type") == "message"]  # fmt: skip
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    return Fake(tmp_path, "--messages", str(path))


def at_top(tool_call_id: str) -> Any:
    """Steps that hide the side panes (the tool log's scrolling is not the point here) and
    scroll the transcript so this tool call's message is at the top."""

    async def steps(pilot: Any) -> None:
        app = pilot.app
        if app.desk.current.main.side.display:
            await pilot.press("f2")
        await wait_until(pilot, lambda: not app.desk.current.main.side.display, what="the side panes hidden")
        block = await wait_until(pilot, lambda: next((b for b in app.query(ToolCallBlock) if b.block.tool_call.id == tool_call_id), None),
                                 what=tool_call_id)  # fmt: skip
        await pilot.pause()
        app.desk.current.main.transcript.scroll_to_widget(block.parent, top=True, animate=False, immediate=True)
        await pilot.pause()

    return steps


@pytest.mark.parametrize("tool_call_id", ["tour_edit", "tour_edit_missing", "tour_read", "tour_bash", "tour_grep", "tour_extension"])
def test_tool_kind(snap_compare: Any, tmp_path: Path, tool_call_id: str) -> None:
    assert tour_fake(tmp_path).snap(snap_compare, at_top(tool_call_id), size=SIZE)


def test_edit_in_the_full_output_view(snap_compare: Any, tmp_path: Path) -> None:
    fake = tour_fake(tmp_path)

    async def steps(pilot: Any) -> None:
        await at_top("tour_edit")(pilot)
        block = next(b for b in pilot.app.query(ToolCallBlock) if b.block.tool_call.id == "tour_edit")
        block.on_click()
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ToolOutputScreen), what="the full view")

    assert fake.snap(snap_compare, steps, size=SIZE)
