"""Tool calls drawn by kind, on what the REAL pi's tools return (app/scripted_model's
`tool_tour`: edit, a failed edit, write, a 10,000-line write, read, a binary read, bash
with colours and injected controls, grep, find, ls on a scratch project inside pi's cwd):
the rendered rows' text and the styles of their segments, live and after /resume."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.style import Style
from rich.text import Text
from tests.pi_harness import SIZE, PiHarness, has_role, quiesce, send, tool_run, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model.scenarios import tool_tour, write_tour_project
from widgets.transcript.message_views import ToolCallBlock
from widgets.screens.session_picker import SessionPicker
from widgets.panes.side import ToolLog
from widgets.tools.output import LargeTextView
from widgets.screens.tool_output_screen import ToolOutputScreen

pytestmark = pytest.mark.pi

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, file=io.StringIO())
SGR = re.compile(r"\x1b\[[0-9;]*m")


def blocks(app: PideckApp) -> dict[str, Text]:
    return {block.block.tool_call.id: block.content for block in app.query(ToolCallBlock) if isinstance(block.content, Text)}


def row(text: Text, start: str) -> tuple[int, str]:
    """The offset and text of the first row of `text` that starts with `start`."""
    at = 0
    for line in text.plain.split("\n"):
        if line.startswith(start):
            return at, line
        at += len(line) + 1
    raise AssertionError(f"no row starting {start!r} in:\n{text.plain}")


def style_at(text: Text, offset: int) -> Style:
    return text.get_style_at_offset(CONSOLE, offset)


def only_sgr_reaches_the_terminal(text: Text) -> None:
    CONSOLE.file = io.StringIO()
    CONSOLE.print(text)
    written = SGR.sub("", CONSOLE.file.getvalue())
    assert "\x1b" not in written and "\x07" not in written and "\u202e" not in written, repr(written[:400])


def check_tour(app: PideckApp, project: str, *, live: bool) -> None:
    shown = blocks(app)
    bigger = {"tour_edit", "tour_edit_missing", "tour_write", "tour_write_big", "tour_read", "tour_read_binary", "tour_bash", "tour_ls"}
    assert bigger <= set(shown), sorted(shown)

    edit = shown["tour_edit"]
    assert edit.plain.split("\n")[0].startswith(f"✓ edit {project}/long.py +2 −1")
    at, removed = row(edit, "- ")
    assert re.fullmatch(r"-\s+5 def step_2\(value\):", removed), removed
    assert has_role(style_at(edit, at), "toolDiffRemoved") and has_role(style_at(edit, at + len(removed) - 1), "toolDiffRemoved")
    word = at + removed.index("step_2")
    assert has_role(style_at(edit, word), "toolDiffEmphasis") and not has_role(style_at(edit, at + removed.index("def")), "toolDiffEmphasis")
    at, added = row(edit, "+ ")
    assert re.fullmatch(r"\+\s+5 def step_two\(value\):", added), added
    assert has_role(style_at(edit, at), "toolDiffAdded") and has_role(style_at(edit, at + added.index("step_two")), "toolDiffEmphasis")
    at, context = row(edit, "    4 ")  # a context row: marker blank, its number aligned with the others
    assert has_role(style_at(edit, at + 4), "lineNumber") and has_role(style_at(edit, at + len(context) - 1), "toolDiffContext")
    assert re.search(r"\n\s+⋯\n", edit.plain), "pi's skip of unchanged lines"
    at, fiftieth = row(edit, "+ 102 ")
    assert fiftieth.endswith("# the fiftieth step") and has_role(style_at(edit, at + 8), "toolDiffAdded")
    assert '"oldText"' not in edit.plain, "the arguments stay in the full-output view"

    failed = shown["tour_edit_missing"]
    assert failed.plain.startswith(f"✗ edit {project}/long.py")
    at, error = row(failed, "Could not find")
    assert has_role(style_at(failed, at), "error")
    at, asked = row(failed, "- no such text")
    assert has_role(style_at(failed, at), "toolDiffRemoved") and "+ x" in failed.plain

    write = shown["tour_write"]
    assert write.plain.split("\n")[0].startswith(f"✓ write {project}/hello.py · 2 lines")
    at, first = row(write, "1 def hello")
    assert has_role(style_at(write, at), "lineNumber") and has_role(style_at(write, at + 2), "syntaxKeyword")
    big = shown["tour_write_big"]
    assert big.plain.split("\n")[0].startswith(f"✓ write {project}/big.py · 10,000 lines")
    assert "… 9,992 more lines" in big.plain and len(big.plain.split("\n")) < 15

    read = shown["tour_read"]
    assert read.plain.split("\n")[0].startswith(f"✓ read {project}/long.py:11-16")
    at, line = row(read, "11 def step_5(value):")
    assert has_role(style_at(read, at), "lineNumber") and has_role(style_at(read, at + 3), "syntaxKeyword")
    assert "16     return value + 7" in read.plain
    binary = shown["tour_read_binary"]
    assert binary.plain.startswith(f"✓ read {project}/data.bin") and "\x00" not in binary.plain and "\n 1 " not in binary.plain

    bash = shown["tour_bash"]
    assert bash.plain.startswith("✓ $ printf") and "exit 0" in bash.plain.split("\n")[0]
    at, colours = row(bash, "red bold green orange")
    assert style_at(bash, at).color is not None and style_at(bash, at).color.number == 1
    assert style_at(bash, at + 4).bold and style_at(bash, at + 4).color.number == 2
    assert style_at(bash, at + colours.index("orange")).color.number == 208
    output = bash.plain.split("\n", 1)[1]  # the header quotes the command
    assert output == "red bold green orange\nlink reversed", repr(output)
    for text in shown.values():
        only_sgr_reaches_the_terminal(text)

    ls = shown["tour_ls"]
    assert ls.plain.split("\n")[0].startswith(f"✓ ls {project} · 4 entries")
    at, name = row(ls, "big.py")
    assert has_role(style_at(ls, at), "toolPath")
    assert not tool_run(app.desk.current.pi.model, "tour_grep").is_error, "pi's grep needs ripgrep on the PATH (.ci/run installs it)"
    grep = shown["tour_grep"]
    assert "· 11 matches" in grep.plain.split("\n")[0]
    at, match = row(grep, "long.py:40: ")
    assert has_role(style_at(grep, at), "toolPath") and has_role(style_at(grep, at + len("long.py")), "lineNumber")
    find = shown["tour_find"]
    if tool_run(app.desk.current.pi.model, "tour_find").is_error:  # pi needs fd 9 or later; Debian's is 8: pi's error, drawn as one
        assert find.plain.startswith("✗ find") and has_role(style_at(find, find.plain.index("\n") + 1), "error"), find.plain
    else:
        assert "· 3 files" in find.plain.split("\n")[0], find.plain

    log = app.query_one(ToolLog)
    rows = [str(log.get_option_at_index(index).prompt) for index in range(log.option_count)]
    assert any(re.match(r"✓ edit …\S*/long\.py \+2 −1", r) for r in rows), rows  # the path's end kept


async def test_each_tool_drawn_by_kind_live_and_after_resume(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    project = f"tour-{tmp_path.name}"
    write_tour_project(pi_harness.cwd / project)
    pi_harness.model.queue(*tool_tour(project))
    app = PideckApp(pi_harness.launch_config(session_dir=tmp_path / "sessions", extra_args=["--tools", "+grep,+find,+ls"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=30, what="start-up")
        await send(pilot, "Run every tool once")
        await wait_until(pilot, lambda: "Every tool ran once." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=120, what="the tour")  # fmt: skip
        await pilot.pause()
        check_tour(app, project, live=True)

        await pilot.press("ctrl+o")  # every kind expands, and collapses again
        await wait_until(pilot, lambda: "… 9,800 more lines · click to see all" in blocks(app)["tour_write_big"].plain, what="expanded")
        shown = blocks(app)
        assert len(shown["tour_write_big"].plain.split("\n")) == 202
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: "… 9,992 more lines" in blocks(app)["tour_write_big"].plain, what="collapsed")

        big = next(block for block in app.query(ToolCallBlock) if block.block.tool_call.id == "tour_write_big")
        app.desk.current.main.transcript.show_view(big)
        await pilot.pause()
        await pilot.click(big)
        view = await wait_until(pilot, lambda: isinstance(app.screen, ToolOutputScreen) and app.screen.query_one(LargeTextView),
                                what="the full write")  # fmt: skip
        await wait_until(pilot, lambda: view._styled, what="rows styled")
        assert len(view.rows) == 10_000 and view.rows[9_999].endswith("value_9999 = 9999  # line 10000")
        assert 0 < len(view._styled) <= view.size.height, "only the rows in view are highlighted"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ToolOutputScreen), what="closed")

        await send(pilot, "/new")
        await wait_until(pilot, lambda: "Every tool ran once." not in transcript_text(app), what="a new session")
        await send(pilot, "/resume")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen, what="the picker")
        await pilot.press(*"every tool")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="the tour session")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Every tool ran once." in transcript_text(app), timeout=30, what="the resumed tour")
        await pilot.pause()
        check_tour(app, project, live=False)
        await quiesce(pilot)
