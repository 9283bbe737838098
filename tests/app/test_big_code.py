"""Big code in tool calls (fake pi child): a one-token change in a minified line of
200 KB, a write of a one-line file of megabytes. The screen never waits on them: keys
echo at once, a collapsed block lays out only the rows it shows, highlighting and the
word diff stay bounded per line, and the full view styles only the rows in view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.syntax import Syntax
from tests.pi_harness import Fake, ready, wait_until

from widgets.tools.code_lines import HIGHLIGHT_CHARS
from widgets.transcript.message_views import ToolCallBlock
from widgets.prompt.editor import PromptEditor
from widgets.tools.kinds import CODE_PREVIEW, DIFF_PREVIEW
from widgets.tools.output import PREVIEW_LINE_CHARS, LargeTextView, ShowToolOutput

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
COMMON = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}


def minified(count: int, renamed: int | None = None) -> str:
    return "".join(f"var {'renamed' if i == renamed else 'v'}{i}=f(a{i % 7},\"s{i}\");" for i in range(count))


def session(tmp_path: Path, name: str, args: dict[str, Any], details: Any) -> Fake:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Go."}], "timestamp": 1},
        {**COMMON, "role": "assistant", "stopReason": "toolUse", "timestamp": 2,
         "content": [{"type": "toolCall", "id": "call_1", "name": name, "arguments": args}]},
        {"role": "toolResult", "toolCallId": "call_1", "toolName": name, "isError": False, "timestamp": 3,
         "details": details, "content": [{"type": "text", "text": "Done."}]},
        {**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": 4, "content": [{"type": "text", "text": "All done."}]},
    ]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    return Fake(tmp_path, "--messages", str(path))


def block(app: Any) -> ToolCallBlock:
    return app.query_one(ToolCallBlock)


@pytest.fixture
def highlighted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of the longest line of each text given to the highlighter."""
    lengths: list[int] = []
    original = Syntax.highlight

    def highlight(self: Syntax, code: str, *args: Any, **kwargs: Any) -> Any:
        lengths.append(max(map(len, code.split("\n")), default=0))
        return original(self, code, *args, **kwargs)

    monkeypatch.setattr(Syntax, "highlight", highlight)
    return lengths


async def test_a_one_token_change_in_a_200_kb_line_shows_at_once_around_the_change(tmp_path: Path) -> None:
    old, new = minified(9000), minified(9000, renamed=4500)
    assert len(old) > 200_000
    fake = session(tmp_path, "edit", {"path": "app.min.js", "edits": [{"oldText": "v4500", "newText": "renamed4500"}]},
                   {"diff": f"-1 {old}\n+1 {new}", "patch": f"--- app.min.js\n+++ app.min.js\n@@ -1 +1 @@\n-{old}\n+{new}\n"})
    async with fake.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot, fake)
        app = pilot.app
        await pilot.press("x")
        await wait_until(pilot, lambda: app.query_one(PromptEditor).text == "x", what="the key echoed")
        tool = await wait_until(pilot, lambda: app.query(ToolCallBlock) and block(app), what="the edit shown")
        await wait_until(pilot, lambda: tool.region.height > 0, what="the edit laid out")
        body = tool.render().plain.split("\n")[1:]  # type: ignore[union-attr]
        assert len(body) == 2 and all(len(row) <= PREVIEW_LINE_CHARS + 10 for row in body), "each line cut to a window"
        assert "renamed4500" in body[1] and "v4500" in body[0], "the window holds the change"
        assert tool.region.height <= DIFF_PREVIEW + 2 + 2 * (PREVIEW_LINE_CHARS // 90 + 1)


async def test_a_write_of_a_one_line_megabyte_file_lays_out_only_what_it_shows(tmp_path: Path, highlighted: list[int]) -> None:
    content = minified(60_000)
    assert len(content) > 1_000_000
    fake = session(tmp_path, "write", {"path": "app.min.js", "content": content}, None)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        await ready(pilot, fake)
        app = pilot.app
        await pilot.press("x")
        await wait_until(pilot, lambda: app.query_one(PromptEditor).text == "x", what="the key echoed")
        tool = await wait_until(pilot, lambda: app.query(ToolCallBlock) and block(app), what="the write shown")
        await wait_until(pilot, lambda: tool.region.height > 0, what="the write laid out")
        assert tool.region.height <= CODE_PREVIEW + 2 + PREVIEW_LINE_CHARS // 90 + 1, "a collapsed block wraps only what it shows"
        assert max(highlighted, default=0) <= PREVIEW_LINE_CHARS + 1
        app.desk.current.main.post_message(ShowToolOutput(tool.run_key))
        view = await wait_until(pilot, lambda: app.screen.query(LargeTextView) and app.screen.query_one(LargeTextView))
        await wait_until(pilot, lambda: view.region.height > 0 and view._styled, what="the full view drawn")
        assert max(highlighted) <= HIGHLIGHT_CHARS, "a line too long to highlight shows plain"
        assert len(view._styled) <= view.region.height, "only the rows in view are styled"
        view.scroll_page_down(animate=False)
        await wait_until(pilot, lambda: view.scroll_offset.y > 0, what="a page down")
        await pilot.pause()
        assert len(view._styled) <= 2 * view.region.height
