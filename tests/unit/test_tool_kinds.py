"""Tool calls drawn by kind (widgets/tools/kinds.py), on results shaped like pi's and on
bad ones; command output's colours (widgets/text/ansi.py); highlighted code
(widgets/tools/code_lines.py). The real tools' output is checked in
tests/real_pi/test_tool_kinds_real_pi.py."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

from protocol.wire.messages import ImageContent, TextContent, ToolResult
from protocol.state.session_model import ToolRun
from tests.pi_harness import has_role
from widgets.colors import palette
from widgets.text.ansi import ansi_text
from widgets.tools.code_lines import code_lines, lexer_for
from widgets.text.safe import clean
from widgets.tools.kinds import Call, kind_of, shown_path

PI_DIFF = "  9 keep = 1\n-10 def old_name():\n+10 def new_name():\n 11     pass\n-12 one\n+12 two\n+13 three\n    ...\n 40 tail()"
CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, file=io.StringIO())


def run(name: str, args: Any, output: str = "", details: Any = None, *, error: bool = False, done: bool = True,
        content: list[Any] | None = None) -> Call:  # fmt: skip
    result = ToolResult(content=content if content is not None else [TextContent(text=output)], details=details)
    tool = ToolRun("id1", name, args, 0.0, 0, output=output, result=result, is_error=error, done=done)
    return Call(name, args, tool, "/home/ada/project")


def styles_at(text: Text, needle: str) -> Any:
    return text.get_style_at_offset(CONSOLE, text.plain.index(needle))


def test_edit_title_body_and_full_view_from_pis_diff() -> None:
    call = run("edit", {"path": "/home/ada/project/src/app.py", "edits": [{"oldText": "a", "newText": "b"}]},
               "Successfully replaced 1 block(s) in src/app.py.", {"diff": PI_DIFF, "patch": "x"})  # fmt: skip
    kind = kind_of("edit")
    assert kind.title(call).plain == "edit src/app.py +3 −2"
    body = kind.body(call, expanded=False)
    assert body.plain.split("\n") == ["   9 keep = 1", "- 10 def old_name():", "+ 10 def new_name():", "  11     pass",
                                      "- 12 one", "+ 12 two", "+ 13 three", "     ⋯", "  40 tail()"]  # fmt: skip
    assert has_role(styles_at(body, "old_name"), "toolDiffEmphasis") and has_role(styles_at(body, "new_name"), "toolDiffEmphasis")
    assert not has_role(styles_at(body, "def"), "toolDiffEmphasis")
    assert styles_at(body, "- 10").color == palette.style("toolDiffRemoved").color
    assert styles_at(body, "+ 10").color == palette.style("toolDiffAdded").color
    assert has_role(styles_at(body, "pass"), "toolDiffContext") and has_role(styles_at(body, "11"), "lineNumber")
    assert not has_role(styles_at(body, "two"), "toolDiffEmphasis"), "a removed line with two added lines is not compared word by word (as pi)"
    full = kind.full(call)
    rows = full.text.split("\n")
    assert rows[1] == "- 10 def old_name():" and "arguments:" in rows and '  "path": "/home/ada/project/src/app.py",' in rows
    assert full.style is not None and full.style(1, rows[1]).plain == rows[1]
    assert full.style(rows.index("arguments:") + 2, rows[rows.index("arguments:") + 2]).spans, "the JSON is highlighted"


@pytest.mark.parametrize("details", [None, "a diff", 7, [1], {}, {"diff": 5}, {"diff": "not pi's format"}, {"patch": 3}])
def test_edit_without_pis_diff_shows_the_text(details: Any) -> None:
    call = run("edit", {"path": "a.py", "edits": []}, "Successfully replaced 1 block(s) in a.py.", details)
    kind = kind_of("edit")
    assert kind.title(call).plain == "edit a.py"
    assert kind.body(call, expanded=False).plain == "Successfully replaced 1 block(s) in a.py."
    assert kind.full(call).text.startswith("Successfully replaced")


def test_edit_counts_from_the_patch_without_a_diff() -> None:
    call = run("edit", {"path": "a.py"}, "ok", {"patch": "--- a.py\n+++ a.py\n@@ -1 +1,2 @@\n-x\n+y\n+z\n"})
    assert kind_of("edit").title(call).plain == "edit a.py +2 −1"


def test_edit_while_its_arguments_stream_and_older_pi_arguments() -> None:
    kind = kind_of("edit")
    streaming = run("edit", {"path": "a.py", "edits": [{"oldText": "x"}, {"oldText": "y", "newText": "z"}]}, done=False)
    assert kind.title(streaming).plain == "edit a.py · 2 edits"
    assert kind.body(streaming, expanded=False).plain == ""
    older = run("edit", {"path": "a.py", "oldText": "one", "newText": "two"}, "Could not find the text", error=True)
    body = kind.body(older, expanded=False)
    assert body.plain == "Could not find the text\n- one\n+ two"
    assert styles_at(body, "Could").color == palette.style("error").color
    assert styles_at(body, "- one").color == palette.style("toolDiffRemoved").color


def test_write_highlights_by_language_and_collapses_a_long_file() -> None:
    content = "".join(f"x_{n} = {n}\n" for n in range(500))
    call = run("write", {"path": "/home/ada/project/gen.py", "content": content}, "Successfully wrote 6000 bytes")
    kind = kind_of("write")
    assert kind.title(call).plain == "write gen.py · 500 lines"
    body = kind.body(call, expanded=False)
    lines = body.plain.split("\n")
    assert lines[0] == "1 x_0 = 0" and lines[7] == "8 x_7 = 7" and lines[-1].startswith("… 492 more lines")
    assert styles_at(body, "0\n").color == palette.style("syntaxNumber").color
    assert len(kind.body(call, expanded=True).plain.split("\n")) == 201
    full = kind.full(call)
    assert full.text.split("\n")[499] == "500 x_499 = 499" and full.style is not None
    assert full.style(499, "500 x_499 = 499").plain == "500 x_499 = 499"


def test_read_numbers_from_the_offset_and_keeps_pis_notice_apart() -> None:
    output = "def f():\n    return 1\n\n[98 more lines in file. Use offset=13 to continue.]"
    call = run("read", {"path": "src/m.py", "offset": 11, "limit": 2}, output)
    kind = kind_of("read")
    assert kind.title(call).plain == "read src/m.py:11-12"
    body = kind.body(call, expanded=False)
    assert body.plain == "11 def f():\n12     return 1\n[98 more lines in file. Use offset=13 to continue.]"
    assert styles_at(body, "def").color == palette.style("syntaxKeyword").color
    assert has_role(styles_at(body, "[98"), "muted")


def test_read_of_an_image_and_of_a_binary_file() -> None:
    image = run("read", {"path": "shot.png"}, "Read image file [image/png]",
                content=[TextContent(text="Read image file [image/png]"), ImageContent(data="AAAA", mime_type="image/png")])  # fmt: skip
    assert kind_of("read").body(image, expanded=False).plain == "[image: image/png]"
    binary = run("read", {"path": "blob.bin"}, "\x00\x01ELF\ufffd\ufffd\ufffd\x1b]52;c;eA==\x07")
    body = kind_of("read").body(binary, expanded=False)
    assert body.plain == "ELF\ufffd\ufffd\ufffd" and not body.spans


def test_bash_title_exit_code_and_folded_command() -> None:
    kind = kind_of("bash")
    call = run("bash", {"command": "make test\necho done\necho again"}, "boom\n\nCommand exited with code 2", error=True)
    assert kind.title(call).plain == "$ make test … 2 more lines  exit 2"
    assert styles_at(kind.title(call), "exit 2").color == palette.style("error").color
    ok = run("bash", {"command": "true"}, "(no output)")
    assert kind.title(ok).plain == "$ true  exit 0"


def test_grep_find_and_ls_rows_and_counts() -> None:
    grep = run("grep", {"pattern": "TODO", "path": "src"}, "src/a.py:3: # TODO one\nsrc/a.py-4- context\nsrc/b.py:9: # TODO two\n\n[100 matches limit reached]")
    title = kind_of("grep").title(grep).plain
    assert title == "grep /TODO/ in src · 2 matches"
    body = kind_of("grep").body(grep, expanded=False)
    assert styles_at(body, "src/b.py").color == palette.style("toolPath").color
    assert has_role(styles_at(body, ":9:"), "lineNumber") and has_role(styles_at(body, "context"), "muted")
    find = run("find", {"pattern": "*.py", "path": "."}, "src/a.py\nsrc/b.py\n")
    assert kind_of("find").title(find).plain == "find *.py in . · 2 files"
    ls = run("ls", {"path": "src"}, "a.py\nsub/\n")
    assert kind_of("ls").title(ls).plain == "ls src · 2 entries"
    assert has_role(styles_at(kind_of("ls").body(ls, expanded=False), "sub/"), "toolTitle")


def test_any_other_tool_shows_its_arguments_as_highlighted_json() -> None:
    call = run("mcp__weather", {"city": "Paris", "days": 3}, "sunny")
    kind = kind_of("mcp__weather")
    assert kind.title(call).plain == "mcp__weather", "the arguments show once, below"
    assert kind.summary(call) == '{"city": "Paris", "days": 3}'
    body = kind.body(call, expanded=False)
    assert body.plain == '{\n  "city": "Paris",\n  "days": 3\n}\nsunny'
    assert styles_at(body, '"Paris"').color == palette.style("syntaxString").color


def test_paths_with_controls_or_markup_show_literally() -> None:
    evil = "/home/ada/project/[bold red]x[/]\x1b]52;c;eA==\x07\u202e.py"
    call = run("write", {"path": evil, "content": "[link=http://x]y[/link]\n"}, "ok")
    title = kind_of("write").title(call)
    assert title.plain == "write [bold red]x[/].py · 1 line"
    assert "[link=http://x]y[/link]" in kind_of("write").body(call, expanded=False).plain
    assert shown_path("/elsewhere/a.py", "/home/ada/project") == "/elsewhere/a.py"

def test_a_narrow_row_cuts_a_long_path_at_its_folders_and_keeps_the_file_name() -> None:
    """The tool log's rows are narrow: a path keeps the folders nearest its file that fit,
    and the file's name whole (`write …eeter.py` named no file)."""
    cwd = "/home/ada/project"
    assert shown_path(f"{cwd}/scratch/greeter.py", cwd, width=9) == "…/greeter.py"
    assert shown_path(f"{cwd}/deep/er/file.py", cwd, width=14) == "…/er/file.py"
    assert shown_path(f"{cwd}/deep/er/file.py", cwd, width=16) == "deep/er/file.py"
    assert shown_path("greeter.py", cwd, width=8) == "greeter.py"
    long_name = "a_generated_file_of_the_test_results.py"
    assert shown_path(f"{cwd}/out/{long_name}", cwd, width=10) == "…/a_generated…t_results.py"
    assert len(shown_path(long_name, cwd, width=30)) == 30


def test_unknown_lexer_is_plain_text() -> None:
    assert lexer_for("notes.unknown-ext") is None and lexer_for("a/b/Makefile") == "make" and lexer_for("x.py") == "python"
    lines = code_lines(["def f():", "\tpass"], None)
    assert [line.plain for line in lines] == ["def f():", "    pass"] and not any(line.spans for line in lines)


def test_ansi_text_keeps_colours_and_strips_every_other_control() -> None:
    raw = ("\x1b[1;31mred\x1b[0m \x1b]52;c;aGk=\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b[2J\x1b[10;10H"
           "\u202eabc \x1b[38;5;208mo\x1b[38;2;1;2;3mr\x1b[48;5;4mb\x1b[m \x1b[8mhidden\x9b31mx\x1bPdcs\x1b\\")  # fmt: skip
    text = ansi_text(raw)
    assert text.plain == clean(raw) == "red link abc orb hiddenx"
    assert styles_at(text, "red").bold and styles_at(text, "red").color.number == 1
    at = text.plain.index("orb")
    assert text.get_style_at_offset(CONSOLE, at).color.number == 208
    assert text.get_style_at_offset(CONSOLE, at + 1).color.triplet == (1, 2, 3)
    assert text.get_style_at_offset(CONSOLE, at + 2).bgcolor.number == 4
    assert not styles_at(text, "hidden").conceal, "concealed output would hide text"
    assert styles_at(text, "x").color.number == 1, "8-bit CSI colours too"
    CONSOLE.file = io.StringIO()
    CONSOLE.print(text)
    assert "\x1b" not in re.sub(r"\x1b\[[0-9;]*m", "", CONSOLE.file.getvalue())


def test_ansi_text_survives_broken_sequences() -> None:
    for raw in ("\x1b[38;5m", "\x1b[38;2;1m", "\x1b[999;;m", "\x1b[", "\x1b", "\x1b]52;c;unterminated", "\x1b[31"):
        assert ansi_text(raw + "end").plain == clean(raw + "end")


@pytest.mark.parametrize("call", [
    run("edit", {"path": "a.py", "edits": [{"oldText": "a\tb", "newText": "c"}]}, "ok", {"diff": PI_DIFF}),
    run("write", {"path": "a.py", "content": "x = 1\n\tif y:\n"}, "ok"),
    run("read", {"path": "a.py", "offset": 3}, "x = 1\ny = 2\n\n[Showing lines 3-4 of 9. Use offset=5 to continue.]"),
    run("bash", {"command": "ls"}, "\x1b[31ma\x1b[0m\nb\n"),
    run("grep", {"pattern": "x"}, "a.py:1: x = 1\n"),
    run("ls", {}, "a/\nb.py\n"),
    run("mcp__x", {"q": 1}, "out\n"),
], ids=["edit", "write", "read", "bash", "grep", "ls", "other"])  # fmt: skip
def test_full_view_rows_are_styled_without_changing_their_text(call: Call) -> None:
    full = kind_of(call.name).full(call)
    rows = full.text.rstrip("\n").split("\n")
    assert full.style is not None
    assert [full.style(index, clean(row).expandtabs(4)).plain for index, row in enumerate(rows)] == [clean(r).expandtabs(4) for r in rows]
    assert any(full.style(index, row).spans for index, row in enumerate(rows))


@pytest.mark.parametrize("name", ["edit", "write", "read", "bash", "grep", "find", "ls", "other"])
@pytest.mark.parametrize("args", [None, "text", [1, 2], {"path": 5, "edits": "no", "content": 3, "offset": "a", "limit": -2,
                                                         "command": None, "pattern": ["x"], "oldText": 1}])  # fmt: skip
@pytest.mark.parametrize("details", [None, "x", {"diff": ["a"], "patch": 1}, {"diff": "+1 a\n-x"}])
def test_odd_arguments_and_details_never_raise(name: str, args: Any, details: Any) -> None:
    kind = kind_of(name)
    for done, error in ((False, False), (True, False), (True, True)):
        call = run(name, args, "out\x1b[31m put", details, done=done, error=error)
        assert kind.title(call).plain.startswith(("$", name))
        kind.summary(call)
        for expanded in (False, True):
            assert "\x1b" not in kind.body(call, expanded).plain
        full = kind.full(call)
        for index, row in enumerate(full.text.split("\n")):
            if full.style is not None:
                full.style(index, clean(row).expandtabs(4))


@pytest.mark.parametrize(("path", "lexer"), [
    ("src/app.py", "python"), ("a/b/Makefile", "make"), ("CMakeLists.txt", "cmake"), ("page.html.j2", "html+django"),
    (".bashrc", "bash"), ("Dockerfile", "docker"), ("notes.zzz", None), ("README", None), ("C:\\src\\main.rs", "rust"),
])
def test_the_language_comes_from_the_file_name_as_pygments_names_it(path: str, lexer: str | None) -> None:
    """Names only `*.ext` patterns match are looked up per extension; the others in full."""
    assert lexer_for(path) == lexer
