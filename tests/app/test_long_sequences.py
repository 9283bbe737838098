"""Command output with long lines and long escape sequences: an SGR parameter of 5,000
digits, a colour that starts before the full view's 2,000-character split, a sequence the
split or the preview's 400-character cut falls inside (widgets/text/ansi.py,
widgets/tools/output.py), unit and through Pilot."""

from __future__ import annotations

import io

from rich.console import Console
from rich.style import Style
from rich.text import Text

from protocol.wire.messages import ToolResult
from protocol.state.session_model import ToolRun
from tests.pi_harness import wait_until
from tests.screen_app import ScreenApp
from widgets.text.ansi import ansi_text, sgr_style
from widgets.tools.kinds import Call, kind_of
from widgets.tools.output import WRAP, LargeTextView, output_preview, output_rows
from widgets.screens.tool_output_screen import ToolOutputScreen

HUGE = "9" * 5000
CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, file=io.StringIO())


def bash(output: str) -> Call:
    run = ToolRun("call_cat", "bash", {"command": "cat colours.txt"}, 0.0, 0, output=output, result=ToolResult(), done=True)
    return Call("bash", run.args, run)


def colour_of(text: Text, offset: int) -> str | None:
    style = text.get_style_at_offset(CONSOLE, offset)
    return style.color.name if style.color is not None else None


def test_an_sgr_parameter_of_five_thousand_digits_is_ignored() -> None:
    assert sgr_style(Style.null(), f"{HUGE};31") == Style.parse("color(1)")
    text = ansi_text(f"\x1b[{HUGE}mplain \x1b[38;5;{HUGE}mstill \x1b[31mred")
    assert text.plain == "plain still red" and colour_of(text, text.plain.index("red")) == "color(1)"


def test_the_full_view_splits_long_lines_outside_escape_sequences() -> None:
    line = "a" * (WRAP - 2) + "\x1b[31m" + "b" * 10
    rows = output_rows(line)
    assert len(rows) == 2 and rows[0] == "a" * (WRAP - 2) and rows[1].startswith("\x1b[31m")
    long = "c" * 100 + f"\x1b[{HUGE}m" + "d" * 10
    assert "".join(output_rows(long)) == long and all(not row.startswith(HUGE[:10]) for row in output_rows(long))


def test_the_preview_never_shows_a_long_sequences_parameters() -> None:
    line = "x" * 1000 + "\x1b[" + "1;" * 300 + "31m" + "red tail"
    for expanded in (False, True):
        preview = output_preview(line, expanded, render=ansi_text)
        assert ";1;" not in preview.plain and "31m" not in preview.plain and preview.plain.endswith("red tail")
        assert colour_of(preview, preview.plain.index("red tail")) == "color(1)"
    huge = "y" * 1000 + f"\x1b[{HUGE}m" + "tail"
    assert HUGE[:20] not in output_preview(huge, False, render=ansi_text).plain


async def test_each_row_of_a_split_line_gets_its_own_lines_colours() -> None:
    first = "\x1b[31m" + "r" * (2 * WRAP + 500) + "\x1b[0m"
    output = f"{first}\nplain second\n\x1b[32mgreen third\x1b[0m\n\x1b[{HUGE}mfourth\n"
    call = bash(output)
    full = kind_of("bash").full(call)
    app = ScreenApp(ToolOutputScreen(kind_of("bash").title(call), full.text, full.style))
    async with app.run_test(size=(100, 30)) as pilot:
        view = await wait_until(pilot, lambda: app.screen.query(LargeTextView).first(), what="the output screen")
        await wait_until(pilot, lambda: view.size.height > 0, what="the view laid out")
        assert len(view.rows) == 6 and view.line_count == 4
        assert "4 lines" in str(app.screen.query_one("#tool-output-title").render())
        styled = [view._styled_row(index) for index in range(len(view.rows))]
        for index in range(3):
            assert styled[index].plain and {colour_of(styled[index], at) for at in range(len(styled[index]))} == {"color(1)"}, index
        assert colour_of(styled[3], 0) is None and styled[3].plain == "plain second"
        assert styled[4].plain == "green third" and colour_of(styled[4], 0) == "color(2)"
        assert styled[5].plain == "fourth"
        await pilot.press("end")

        def drawn() -> str:
            return "".join(segment.text for y in range(view.size.height) for segment in view.render_line(y))

        await wait_until(pilot, lambda: "fourth" in drawn(), what="the view scrolled to its end")
        assert "green third" in drawn()
        assert HUGE[:20] not in drawn()


def test_a_line_with_tabs_keeps_its_colours_in_the_full_view() -> None:
    full = kind_of("bash").full(bash("a\t\x1b[31mred\x1b[0m\n"))
    view = LargeTextView(full.text, full.style)
    row = view._styled_row(0)
    assert row.plain == "a   red" and colour_of(row, row.plain.index("red")) == "color(1)"


def test_the_tool_logs_last_line_never_shows_a_sequences_parameters() -> None:
    from widgets.panes.side import tail_line, tool_row

    output = "first\n\x1b[" + HUGE + "mfourth\n"
    run = ToolRun("call_cat", "bash", {"command": "cat"}, 0.0, 0, output=output, result=ToolResult(), done=True)
    assert tail_line(output) == "\x1b[" + HUGE + "mfourth"
    assert tool_row(run, Text("$ cat"), 40).plain.split("\n")[1].strip() == "fourth"
    assert tail_line("a\nb" + "c" * 5000 + "\n\n")[-3:] == "ccc" and len(tail_line("x" * 5000)) == 2000


def test_the_preview_keeps_the_colour_set_before_its_cut() -> None:
    preview = output_preview("\x1b[31m" + "r" * 1000 + "\x1b[0m\nnext", False, render=ansi_text)
    row = preview.plain.split("\n")[0]
    assert row.startswith("…r") and 390 < len(row) <= 401
    assert colour_of(preview, 5) == "color(1)"
