"""A diff of a hundred thousand lines: the edit's block, its counts and the Changes view
read only what they show. pi's display diff becomes `DiffLine`s only for the rows drawn,
and the Changes view makes `Row`s a chunk at a time, its line numbers still right far
down (End)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.screen_app import ScreenApp

import protocol.state.tool_diffs as tool_diffs
import widgets.screens.changes_screen as changes_screen
from protocol.state.branch_calls import run_call
from protocol.state.file_changes import file_changes
from protocol.wire.messages import ToolResult
from protocol.state.session_model import ToolRun
from widgets.screens.changes_screen import ChangesScreen, DiffView
from widgets.tools.kinds import DIFF_PREVIEW, Call, kind_of

LINES = 100_000


def big_edit() -> tuple[str, str]:
    """pi's display diff and patch of an edit that changed every tenth of LINES lines."""
    width = len(str(LINES))
    diff, patch = [], [f"@@ -1,{LINES} +1,{LINES} @@"]
    for number in range(1, LINES + 1):
        code = f"value_{number} = compute({number})"
        if number % 10 == 5:
            diff += [f"-{number:>{width}} {code}", f"+{number:>{width}} {code.replace('compute', 'measure')}"]
            patch += [f"-{code}", f"+{code.replace('compute', 'measure')}"]
        else:
            diff.append(f" {number:>{width}} {code}")
            patch.append(f" {code}")
    return "\n".join(diff), "--- a.py\n+++ a.py\n" + "\n".join(patch) + "\n"


def edit_run() -> ToolRun:
    diff, patch = big_edit()
    args = {"path": "a.py", "edits": [{"oldText": "a", "newText": "b"}]}
    return ToolRun("call_1", "edit", args, 0.0, 0, result=ToolResult(content=[], details={"diff": diff, "patch": patch}), done=True)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many DiffLine and Row objects were made."""
    counts = {"DiffLine": 0, "Row": 0}

    def counting(module: Any, name: str) -> None:
        original = getattr(module, name)

        def make(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, make)

    counting(tool_diffs, "DiffLine")
    counting(changes_screen, "Row")
    return counts


def test_an_edit_of_a_huge_diff_reads_only_the_rows_it_shows(made: dict[str, int]) -> None:
    run = edit_run()
    call = Call("edit", run.args, run)
    kind = kind_of("edit")
    title = kind.title(call).plain
    assert f"+{LINES // 10} −{LINES // 10}" in title
    body = kind.body(call, expanded=False).plain.split("\n")
    assert len(body) == DIFF_PREVIEW + 1 and "more lines" in body[-1]
    assert made["DiffLine"] <= 4 * DIFF_PREVIEW, "only the rows shown are read"


async def test_the_changes_view_of_a_huge_diff_makes_rows_as_they_are_drawn(made: dict[str, int]) -> None:
    files = file_changes([run_call(edit_run())], "/p")
    assert (files[0].added, files[0].removed) == (LINES // 10, LINES // 10)
    app = ScreenApp(ChangesScreen(files, copy=lambda text: None))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        assert len(view.rows) == LINES + LINES // 10 + 3  # file title, change header, hunk header
        assert made["Row"] <= 2 * changes_screen.CHUNK, "a chunk of rows, not every row"
        await pilot.press("end")
        await pilot.pause()
        last = view.render_line(view.cursor - view.scroll_offset.y).text
        assert f"{LINES} value_{LINES} = compute({LINES})" in last, "numbered right at the end"
        assert made["Row"] <= 4 * changes_screen.CHUNK
