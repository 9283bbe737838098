"""Numbers typed or sent from outside never close the app: `/copy code N` with another
script's digit or 5,000 digits, and `/diff` of a patch whose hunk header has 5,000-digit
numbers (protocol/numbers.py parses them)."""

from __future__ import annotations

import json
from pathlib import Path

from protocol.state.branch_calls import run_call
from protocol.state.file_changes import file_changes
from protocol.wire.messages import TextContent, ToolResult
from protocol.state.session_model import ToolRun
from tests.pi_harness import Fake, notes, send, wait_until
from tests.screen_app import ScreenApp
from widgets.screens.changes_screen import ChangesScreen, DiffView

HUGE = "9" * 5000


async def test_copy_code_with_odd_numbers_says_how_to_use_it(tmp_path: Path) -> None:
    answer = json.dumps({"text": "One:\n\n```\nprint(1)\n```\n"})
    fake = Fake(tmp_path, "--answer", f"get_last_assistant_text={answer}")
    async with fake.run() as pilot:
        app = pilot.app
        for count, number in enumerate(("²", "٣", HUGE, "0"), 1):
            await send(pilot, f"/copy code {number}")
            await wait_until(pilot, lambda c=count: sum("Usage: /copy" in note for note in notes(app)) == c,
                             what=f"/copy code {number[:5]}")  # fmt: skip
            assert app.is_running
        await send(pilot, "/copy code 1")
        await wait_until(pilot, lambda: any("Copied code block 1 of 1" in note for note in notes(app)), what="a good number")


async def test_diff_of_a_hunk_header_with_huge_numbers_opens() -> None:
    patch = f"--- a/x.py\n+++ b/x.py\n@@ -{HUGE},2 +{HUGE},2 @@\n same\n-old\n+new\n"
    run = ToolRun("call_edit", "edit", {"path": "/p/x.py", "edits": [{"oldText": "old", "newText": "new"}]}, 0.0, 0,
                  output="ok", result=ToolResult(content=[TextContent(text="ok")], details={"patch": patch}), done=True)  # fmt: skip
    screen = ChangesScreen(file_changes([run_call(run)], "/p"), copy=lambda text: None)
    async with ScreenApp(screen).run_test(size=(100, 30)) as pilot:
        view = await wait_until(pilot, lambda: screen.is_mounted and screen.query_one(DiffView), what="the view")
        await wait_until(pilot, lambda: view.size.height > 0, what="drawn")
        rows = [view.render_line(y).text for y in range(len(view.rows))]
        assert any("-old" in row.replace(" ", "") for row in rows) and any(HUGE[:50] in row for row in rows)
