"""When pideck rings the bell and sends a desktop notification, what it sends, and the
title's running mark (app/run_alerts.py, without an App: a fake clock, focus and terminal)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.cli.pideck import parse_args
from app.pi.launch import build_launch
from app.run_alerts import RunAlerts, desktop_osc, notify_setting, run_error, tmux_wrapped
from protocol.wire.events import AgentSettled, AgentStart, MessageEnd
from protocol.wire.messages import AssistantMessage
from protocol.state.session_model import SessionModel


class Terminal:
    def __init__(self, env: dict[str, str] | None = None, focused: bool = True) -> None:
        self.written: list[str] = []
        self.now = 100.0
        self.focused = focused
        self.alerts = RunAlerts(self.written.append, notify_setting(env or {}), focused=lambda: self.focused,
                                title=lambda: "pideck", env=env or {}, clock=lambda: self.now)

    def run(self, seconds: float, aborted: bool = False, error: str | None = None) -> list[str]:
        self.written.clear()
        self.alerts.run(True)
        self.now += seconds
        self.alerts.settled(aborted, error)
        self.alerts.run(False)
        return self.written


def test_a_short_run_in_the_focused_terminal_sends_only_the_titles() -> None:
    terminal = Terminal()
    assert terminal.run(2) == ["\x1b]2;● pideck\x07", "\x1b]2;pideck\x07"]


def test_an_unfocused_terminal_or_a_long_run_gets_the_bell_and_a_notification() -> None:
    terminal = Terminal(focused=False)
    assert terminal.run(1)[1:3] == ["\a", "\x1b]9;pideck: pi is done\x07"]
    terminal.focused = True
    assert terminal.run(10)[1:3] == ["\a", "\x1b]9;pideck: pi is done\x07"]
    assert terminal.run(10, error="429 rate limited")[2] == "\x1b]9;pideck: pi failed: 429 rate limited\x07"
    assert len(terminal.run(30, aborted=True)) == 2, "the user stopped it: no alert"


def test_an_extension_dialog_alerts_while_unfocused_only() -> None:
    terminal = Terminal()
    terminal.alerts.dialog("Delete it?")
    assert terminal.written == []
    terminal.focused = False
    terminal.alerts.dialog("Delete\x1b[2J it?\n")
    assert terminal.written == ["\a", "\x1b]9;pideck: pi asks: Delete it?\x07"], "one line, no controls"


@pytest.mark.parametrize(("value", "sent"), [
    ("off", []),
    ("bell", ["\a"]),
    ("desktop", ["\x1b]9;pideck: pi is done\x07"]),
    ("osc777, bell", ["\a", "\x1b]777;notify;pideck;pi is done\x07"]),
])  # fmt: skip
def test_pideck_notify_chooses_what_is_sent(value: str, sent: list[str]) -> None:
    terminal = Terminal({"PIDECK_NOTIFY": value}, focused=False)
    assert terminal.run(1)[1:-1] == sent


def test_settings_not_understood_are_named() -> None:
    setting = notify_setting({"PIDECK_NOTIFY": "bell,beep", "PIDECK_NOTIFY_AFTER": "soon"})
    assert setting.bell and setting.after == 10
    assert [problem.split(":")[0] for problem in setting.problems] == ["PIDECK_NOTIFY", "PIDECK_NOTIFY_AFTER"]
    assert notify_setting({"PIDECK_NOTIFY_AFTER": "2.5"}).after == 2.5


@pytest.mark.parametrize(("env", "osc"), [
    ({"TERM": "rxvt-unicode-256color"}, "777"),
    ({"TERM": "foot"}, "777"),
    ({"TERM_PROGRAM": "ghostty"}, "777"),
    ({"TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "VTE_VERSION": "7600"}, "777"),  # GNOME Terminal outside
    ({"TERM_PROGRAM": "iTerm.app"}, "9"),
    ({"TERM_PROGRAM": "WezTerm"}, "9"),
    ({"TERM": "xterm-kitty"}, "9"),
])  # fmt: skip
def test_the_notification_escape_follows_the_terminal(env: dict[str, str], osc: str) -> None:
    assert desktop_osc(env) == osc


def test_tmux_passthrough_doubles_the_escapes_inside() -> None:
    assert tmux_wrapped("\x1b]9;hi\x07") == "\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\"


def test_the_error_is_the_last_answers() -> None:
    session = SessionModel()
    session.apply_all([AgentStart(), MessageEnd(message=AssistantMessage(stop_reason="error", error_message="boom\nmore")),
                       AgentSettled()])  # fmt: skip
    assert run_error(session) == "boom"
    session.apply_all([AgentStart(), MessageEnd(message=AssistantMessage(stop_reason="stop")), AgentSettled()])
    assert run_error(session) is None


def test_the_notify_flag_overrides_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PIDECK_NOTIFY", "bell")
    flags = ["--pi", sys.executable, "--protocol-log", str(tmp_path / "p.log")]
    assert notify_setting(build_launch(parse_args(flags)).env).bell
    off = notify_setting(build_launch(parse_args([*flags, "--notify", "off"])).env)
    assert not off.bell and off.osc is None


def test_the_running_mark_stays_on_a_title_an_extension_sets() -> None:
    written: list[str] = []
    title = ["pideck"]
    alerts = RunAlerts(written.append, notify_setting({}), focused=lambda: True, title=lambda: title[0], env={})
    alerts.run(True)
    title[0] = "my extension's title"
    alerts.show_title()
    alerts.run(False)
    assert written == ["\x1b]2;● pideck\x07", "\x1b]2;● my extension's title\x07", "\x1b]2;my extension's title\x07"]
