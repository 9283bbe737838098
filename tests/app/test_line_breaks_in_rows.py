"""A row never holds a line break: U+2028/U+2029 (legal in JSON strings and in JavaScript
files), a newline in a file name, and the other characters `str.splitlines` splits on, in
every view that builds rows (the full-output view of each tool kind, the Changes view, the
transcript's tool calls, the tool log), drawn through Pilot."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.strip import Strip

from protocol.state.branch_calls import run_call
from protocol.state.file_changes import file_changes
from protocol.wire.messages import TextContent, ToolResult
from protocol.state.session_model import ToolRun
from tests.pi_harness import wait_until
from tests.screen_app import ScreenApp
from widgets.screens.changes_screen import ChangesScreen, DiffView
from widgets.tools.code_lines import code_lines
from widgets.text.safe import ROW_BREAK, one_row
from widgets.panes.side import tool_row, tool_title
from widgets.tools.kinds import Call, kind_of
from widgets.tools.output import LargeTextView
from widgets.screens.tool_output_screen import ToolOutputScreen

BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
ODD_NAME = "/p/we\u2028ird\nname\x85.js"
JS_LINE = 'const s = "a\u2028b\u2029c";'


def holds_break(text: str) -> bool:
    return any(char in text for char in BREAKS)


def strip_text(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)


def edit_run(path: str = ODD_NAME) -> ToolRun:
    diff = f"  1 // head\n- 2 old\n+ 2 {JS_LINE}\n  3 {JS_LINE}\n  4 tail"
    result = ToolResult(content=[TextContent(text="Successfully replaced 1 block(s).")],
                        details={"diff": diff, "patch": f"@@ -1,4 +1,4 @@\n // head\n-old\n+{JS_LINE}\n {JS_LINE}\n tail\n"})
    args = {"path": path, "edits": [{"oldText": "old", "newText": JS_LINE}]}
    return ToolRun("call_edit", "edit", args, 0.0, 0, output="Successfully replaced 1 block(s).", result=result, done=True)


def runs() -> list[ToolRun]:
    code = f"// one\n{JS_LINE}\n// three\n"
    read = ToolRun("call_read", "read", {"path": ODD_NAME}, 0.0, 0, output=code, result=ToolResult(content=[TextContent(text=code)]), done=True)
    write = ToolRun("call_write", "write", {"path": ODD_NAME, "content": code}, 0.0, 0, output="ok", result=ToolResult(), done=True)
    bash = ToolRun("call_bash", "bash", {"command": f"cat {ODD_NAME}"}, 0.0, 0, output=f"\x1b[31m{JS_LINE}\x1b[0m\nnext\n",
                   result=ToolResult(), done=True)  # fmt: skip
    grep = ToolRun("call_grep", "grep", {"pattern": "a\u2028b"}, 0.0, 0, output=f"x.js:2: {JS_LINE}\n", result=ToolResult(), done=True)
    ls = ToolRun("call_ls", "ls", {"path": "/p"}, 0.0, 0, output="we\u2028ird\nname.js\nsrc/\n", result=ToolResult(), done=True)
    other = ToolRun("call_mcp", "mcp_fetch", {"url": "u\u2028v", "body": JS_LINE}, 0.0, 0, output=JS_LINE, result=ToolResult(), done=True)
    return [edit_run(), read, write, bash, grep, ls, other]


def test_one_row_shows_every_line_break_as_one_mark() -> None:
    assert one_row("a\nb\u2028c\u2029d") == f"a{ROW_BREAK}b{ROW_BREAK}c{ROW_BREAK}d"
    assert not holds_break(one_row("x" + BREAKS + "y"))
    assert len(one_row(JS_LINE)) == len(JS_LINE), "one character for one: styles computed on the line stay in place"


def test_highlighted_code_keeps_a_row_per_line_and_its_colours() -> None:
    rows = code_lines(["// one", JS_LINE, "// three"], "javascript")
    assert len(rows) == 3 and not any(holds_break(row.plain) for row in rows)
    assert rows[1].spans, "the line with U+2028 is highlighted, not shown plain"


@pytest.mark.parametrize("run", runs(), ids=lambda run: run.name)
def test_titles_bodies_and_full_views_of_every_kind_hold_no_break(run: ToolRun) -> None:
    call = Call(run.name, run.args, run, "/p")
    kind = kind_of(run.name)
    assert not holds_break(kind.title(call).plain)
    for expanded in (False, True):
        assert not any(holds_break(line) for line in kind.body(call, expanded).plain.split("\n"))
    full = kind.full(call)
    view = LargeTextView(full.text, full.style)
    shown = [view._shown(index) for index in range(len(view.rows))]
    assert not any(holds_break(row) for row in shown), "each of the full view's rows is one line"
    if full.style is not None:
        styled = [full.style(index, row) for index, row in enumerate(shown)]
        assert [row.plain for row in styled] == shown, "each row styled as it shows"
    assert not any(holds_break(line) for line in tool_row(run, tool_title(run, 40, "/p"), 40).plain.split("\n"))


@pytest.mark.parametrize("run", runs(), ids=lambda run: run.name)
async def test_the_full_output_view_draws_each_kind_row_by_row(run: ToolRun) -> None:
    call = Call(run.name, run.args, run, "/p")
    kind = kind_of(run.name)
    full = kind.full(call)
    app = ScreenApp(ToolOutputScreen(kind.title(call), full.text, full.style))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await wait_until(pilot, lambda: app.screen.query(LargeTextView).first(), what="the output screen")
        await wait_until(pilot, lambda: view.size.height > 0, what="the view laid out")
        drawn = [strip_text(view.render_line(y)) for y in range(view.size.height)]
        assert not any(holds_break(row) for row in drawn)
        assert "const s" in "".join(drawn) or run.name in ("ls", "grep") and "ird" in "".join(drawn)
        title = app.screen.query_one("#tool-output-title")
        assert title.size.height == 1, "the title is one row"


async def test_the_changes_view_draws_odd_names_and_lines_on_their_rows() -> None:
    screen = ChangesScreen(file_changes([run_call(edit_run())], "/p"), copy=lambda text: None)
    async with ScreenApp(screen).run_test(size=(100, 30)) as pilot:
        view = await wait_until(pilot, lambda: screen.is_mounted and screen.query_one(DiffView), what="the view")
        await wait_until(pilot, lambda: view.size.height > 0, what="drawn")
        drawn = [strip_text(view.render_line(y)) for y in range(len(view.rows))]
        assert not any(holds_break(row) for row in drawn)
        assert any(f"we{ROW_BREAK}ird{ROW_BREAK}name" in row for row in drawn), "the file's name on one row, all of it"
        assert sum("const s" in row for row in drawn) == 2
        option = screen.query_one("#changes-files").get_option_at_index(0).prompt
        assert isinstance(option, Text) and len(option.plain.split("\n")) == 2, "a file in the list: its name, then its counts"
        assert not any(holds_break(line) for line in option.plain.split("\n"))


def test_any_styler_row_count_mismatch_is_survived() -> None:
    """A styler asked for a row it has no line for gives the row plain (never IndexError)."""
    run = edit_run()
    full = kind_of("edit").full(Call("edit", run.args, run, "/p"))
    assert full.style is not None
    assert isinstance(full.style(10_000, "x"), Text)
