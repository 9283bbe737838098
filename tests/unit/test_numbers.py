"""Numbers from outside parsed through one checked helper (protocol/numbers.py), and the
places that read them: a command's argument, a hunk header, an exit code, an SGR
parameter, an environment variable, a terminal's colour index, a key name."""

from __future__ import annotations

import pytest

from app.keybindings import textual_key
from app.run_alerts import notify_setting
from protocol.state.file_changes import Change, FileChanges
from protocol.numbers import is_digits, parse_float, parse_int
from protocol.files.pi_themes import colorfgbg_appearance
from protocol.wire.messages import ToolResult
from protocol.state.session_model import ToolRun
from widgets.screens.changes_screen import diff_rows
from widgets.tools.kinds import BashKind, Call

HUGE = "9" * 5000  # more digits than int() takes (4,300)


@pytest.mark.parametrize("text", ["²", "٣", "１", " 1", "1 ", "1_0", "+1", "-1", "", "0x1", HUGE, "1" * 19],
                         ids=lambda text: f"{len(text)} digits" if len(text) > 18 else repr(text))
def test_parse_int_takes_only_a_bounded_run_of_ascii_digits(text: str) -> None:
    assert parse_int(text) is None and parse_int(text, 7) == 7
    assert not is_digits(text)


def test_parse_int_checks_its_range_and_sign() -> None:
    assert parse_int("42") == 42 and parse_int("007") == 7
    assert parse_int("5", low=6) is None and parse_int("5", high=4) is None and parse_int("5", low=5, high=5) == 5
    assert parse_int("-3", signed=True) == -3 and parse_int("+3", signed=True) == 3 and parse_int("--3", signed=True) is None


@pytest.mark.parametrize("text", ["inf", "nan", "1e999", "1e3", "²", "1_0", " 2", HUGE, "", ".", "-"],
                         ids=lambda text: f"{len(text)} digits" if len(text) > 18 else repr(text))
def test_parse_float_takes_a_plain_finite_decimal(text: str) -> None:
    assert parse_float(text) is None


def test_parse_float_reads_and_checks_its_range() -> None:
    assert parse_float("2.5") == 2.5 and parse_float(".5") == 0.5 and parse_float("10") == 10.0
    assert parse_float("-1", low=0) is None and parse_float("5", high=4) is None


def test_a_hunk_header_of_five_thousand_digits_is_shown_without_numbers() -> None:
    change = Change("call_1", "edit", (f"@@ -{HUGE},2 +{HUGE},2 @@", " same", "-old", "+new"), 1, 1)
    rows = diff_rows([FileChanges("a.py", [change])])[:]
    assert [row.kind for row in rows] == ["file", "change", "hunk", " ", "-", "+"]
    assert all(row.number is None for row in rows[3:])


def test_an_exit_code_of_five_thousand_digits_is_no_code() -> None:
    run = ToolRun("id", "bash", {"command": "x"}, 0.0, 0, output=f"oops\n\nCommand exited with code {HUGE}",
                  result=ToolResult(), done=True, is_error=True)  # fmt: skip
    call = Call("bash", run.args, run)
    assert BashKind.exit_code(call) is None
    assert BashKind().title(call).plain == "$ x"


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "²", "1e999", "10 s", HUGE],
                         ids=lambda text: f"{len(text)} digits" if len(text) > 18 else repr(text))
def test_pideck_notify_after_takes_seconds_only(value: str) -> None:
    setting = notify_setting({"PIDECK_NOTIFY_AFTER": value})
    assert setting.after == 10.0 and len(setting.problems) == 1 and "PIDECK_NOTIFY_AFTER" in setting.problems[0]
    assert len(setting.problems[0]) < 200
    assert notify_setting({"PIDECK_NOTIFY_AFTER": " 2.5 "}).after == 2.5


@pytest.mark.parametrize("value", ["0;²", "0;٣", f"0;{HUGE}", "0;16", "0;-1"],
                         ids=lambda text: f"{len(text)} chars" if len(text) > 18 else repr(text))
def test_colorfgbg_with_odd_digits_is_no_answer(value: str) -> None:
    assert colorfgbg_appearance({"COLORFGBG": value}) is None


def test_a_key_of_another_scripts_digit_is_no_key() -> None:
    assert textual_key("ctrl+²") is None and textual_key("ctrl+٣") is None
    assert textual_key("ctrl+3") == "ctrl+3"


@pytest.mark.parametrize("port", ["²", "65536", HUGE, "-1", "8o"], ids=lambda text: repr(text[:8]))
def test_serve_takes_a_port_in_ascii_digits(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli.pideck import main, parse_args

    assert main(["serve", "--port", port]) == 2
    assert "not a port from 0 to 65535" in capsys.readouterr().err
    assert parse_args(["serve", "--port", "8080"]).port == 8080
