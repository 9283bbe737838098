"""A long session through the whole app (fake pi child): 2,000 messages carrying 50 MB of
tool output. The transcript mounts a bounded number of views, each tool call renders a
bounded preview, the app keeps taking keys and scrolling, and the full output of a tool
opens in a view that renders only the rows on screen."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from textual.app import App
from textual.errors import NoWidget
from textual.widget import Widget
from tests.pi_harness import SIZE, Fake, call_view, ready, wait_until

from protocol.wire.spawn import PIPE_SIZE
from widgets.transcript.message_views import MessageView, ToolCallBlock
from widgets.prompt.editor import PromptEditor
from widgets.tools.output import LargeTextView, output_preview, output_rows
from widgets.screens.tool_output_screen import ToolOutputScreen
from widgets.transcript.transcript import MAX_VIEWS, Transcript

TURNS = 500  # x 4 messages = 2,000
HUGE = 20 * 1024 * 1024  # the last tool printed 20 MB ...
EACH = (50 * 1024 * 1024 - HUGE) // (TURNS - 1)  # ... the others share the rest of 50 MB
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def output_of(turn: int, size: int) -> str:
    line = f"turn {turn:04d} output line " + "." * 60 + "\n"
    body = line * (size // len(line))
    return f"FIRST LINE OF TURN {turn}\n" + body + f"LAST LINE OF TURN {turn}\n"


def session_messages() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    stamp = 1795952825000
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        common = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}
        messages += [
            {"role": "user", "content": [{"type": "text", "text": f"Question {turn}"}], "timestamp": stamp},
            {**common, "role": "assistant", "stopReason": "toolUse", "timestamp": stamp + 1, "content": [
                {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": f"make turn-{turn}"}}]},
            {"role": "toolResult", "toolCallId": call_id, "toolName": "bash", "isError": False, "timestamp": stamp + 2,
             "content": [{"type": "text", "text": output_of(turn, HUGE if turn == TURNS - 1 else EACH)}]},
            {**common, "role": "assistant", "stopReason": "stop", "timestamp": stamp + 3,
             "content": [{"type": "text", "text": f"Answer {turn}."}]},
        ]
        stamp += 10
    return messages


def test_preview_work_is_bounded_by_what_it_shows() -> None:
    text = output_of(1, 5 * 1024 * 1024)
    lines = text.count("\n")
    collapsed = output_preview(text, expanded=False).plain
    assert f"{lines - 8:,} more lines" in collapsed and "LAST LINE OF TURN 1" in collapsed
    assert collapsed.count("\n") == 8
    expanded = output_preview(text, expanded=True).plain
    assert "FIRST LINE OF TURN 1" in expanded and "LAST LINE OF TURN 1" in expanded
    assert f"{lines - 120:,} lines hidden" in expanded and expanded.count("\n") <= 122
    one_line = "x" * 3_000_000
    assert len(output_preview(one_line, expanded=True).plain) < 1000, "one huge line is cut"
    assert output_rows("a\n" + "y" * 5000 + "\nb\n") == ["a", "y" * 2000, "y" * 2000, "y" * 1000, "b"]


def shown_at_its_corner(app: App[Any], widget: Widget) -> bool:
    """Whether a click at the widget's top left corner (where Pilot clicks) lands on it."""
    offset = widget.region.offset
    if offset not in app.screen.region:
        return False
    try:
        return app.get_widget_at(*offset)[0] is widget
    except NoWidget:
        return False


async def test_two_thousand_messages_and_fifty_megabytes_of_tool_output(tmp_path: Path) -> None:
    messages = session_messages()
    assert len(messages) == 2000
    assert sum(len(m["content"][0]["text"]) for m in messages if m["role"] == "toolResult") >= 50 * 1024 * 1024 - TURNS * 100
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    fake = Fake(tmp_path, "--messages", str(path))
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        # generous deadlines: 50 MB take a while on a busy machine
        await wait_until(pilot, lambda: app.desk.current.pi.ready and "get_commands" in fake.kinds(), timeout=120, what="start")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) == 2000, timeout=60, what="session loaded")
        transcript = app.query_one(Transcript)
        await wait_until(pilot, lambda: transcript.views, timeout=60, what="views mounted")
        assert len(transcript.views) <= MAX_VIEWS
        assert len(app.query(MessageView)) <= MAX_VIEWS
        blocks = list(app.query(ToolCallBlock))
        assert blocks and len(blocks) <= MAX_VIEWS // 2
        last = blocks[-1]
        assert last.block.tool_call.id == f"call_{TURNS - 1}"
        shown = str(last.render())
        assert "LAST LINE OF TURN 499" in shown and len(shown) < 5_000

        await pilot.press("ctrl+o")  # expand every mounted tool call: still bounded
        assert all(block.expanded for block in app.query(ToolCallBlock))
        sizes = [len(str(block.render())) for block in app.query(ToolCallBlock)]
        assert max(sizes) < 60_000 and "lines hidden" in str(last.render())

        editor = app.query_one(PromptEditor)
        await pilot.press("h", "i")
        assert editor.text == "hi", "keys are handled"
        await wait_until(pilot, lambda: transcript.max_scroll_y > 0, what="the transcript overflows")
        transcript.scroll_home(animate=False)  # applied after the next refresh
        await wait_until(pilot, lambda: transcript.scroll_y == 0, what="the transcript scrolls home")
        await pilot.press("ctrl+home")  # the session's first messages instead of the newest: still bounded
        await wait_until(pilot, lambda: transcript.hidden_before == 0 and transcript.hidden_after > 0, timeout=60,
                         what="the start of the session")
        assert len(transcript.views) <= MAX_VIEWS
        await pilot.press("ctrl+end")  # back to the newest
        await wait_until(pilot, lambda: not transcript.hidden_after and call_view(app, f"call_{TURNS - 1}"),
                         timeout=60, what="the newest messages again")
        last = call_view(app, f"call_{TURNS - 1}")
        assert last is not None

        last.scroll_visible(animate=False)  # applied after the next refresh
        await wait_until(pilot, lambda: shown_at_its_corner(app, last), what="the tool call in view")
        assert await pilot.click(last), "the click lands on the tool call"
        await wait_until(pilot, lambda: isinstance(app.focused, LargeTextView), timeout=60, what="full output screen")
        assert isinstance(app.screen, ToolOutputScreen)
        view = app.screen.query_one(LargeTextView)
        assert view.rows[0] == "FIRST LINE OF TURN 499" and view.rows[-1] == "LAST LINE OF TURN 499"
        assert len(view.rows) > 200_000
        await pilot.press("end")  # scrolls with an animation
        await wait_until(pilot, lambda: view.scroll_y == view.max_scroll_y > 0, what="the end of the output")
        bottom = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]
        assert any("LAST LINE OF TURN 499" in row for row in bottom), "the end of 20 MB is on screen"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ToolOutputScreen), what="the output screen closed")

        await pilot.press("f3", "end", "o")  # the keyboard way: the tool log's highlighted run
        await wait_until(pilot, lambda: isinstance(app.focused, LargeTextView), timeout=60, what="output from the log")
        assert isinstance(app.screen, ToolOutputScreen)
        assert app.screen.query_one(LargeTextView).rows[-1] == "LAST LINE OF TURN 499"


async def test_a_stalled_screen_never_stalls_reading_from_pi(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, fake)
        gate = asyncio.Event()
        render = app.desk.current.show_changes

        async def stalled_screen(changes: Any) -> None:
            await gate.wait()
            await render(changes)

        app.desk.current.show_changes = stalled_screen  # type: ignore[method-assign]
        # 60,000 records of 22 bytes: 1.3 MB, more than pi's stdout pipe holds (pideck widens
        # it to PIPE_SIZE, 1 MiB), so the fake would block if nobody read while the screen is stuck
        count = 60_000
        assert count * len('{"type":"turn_start"}\n') > PIPE_SIZE
        before = app.desk.current.pi.client.records_read
        fake.inject('{"type":"turn_start"}')
        await wait_until(pilot, lambda: app.desk.current.pi.pump.flushing, what="the screen stuck on the first record")
        fake.inject(*(['{"type":"turn_start"}'] * (count - 1)))
        await wait_until(pilot, lambda: app.desk.current.pi.client.records_read >= before + count, timeout=30, what="stdout drained")
        assert app.desk.current.pi.pump.pending, "the screen is behind while the reader is not"
        await pilot.press("o", "k")
        assert app.query_one(PromptEditor).text == "ok", "keys are handled while the screen catches up"
        gate.set()
        await wait_until(pilot, lambda: app.desk.current.pi.model.turns == count and not app.desk.current.pi.pump.pending, timeout=60, what="screen caught up")
