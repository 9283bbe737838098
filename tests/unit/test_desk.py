"""The pieces of several sessions that need no app: a session's mark and name, the model's
changes a session not shown keeps, /open's words, another session's launch (the desks
--restore reads: tests/unit/test_restore.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.commands.desk import parse_open
from app.pi.launch import LaunchConfig, LaunchError, open_launch
from protocol.state.desk import Mark, ago, mark_of, session_name
from protocol.state.session_model import SessionModel
from protocol.wire.client import ChildExited
from protocol.wire.responses import SessionState


def test_the_mark_says_the_most_urgent_thing() -> None:
    model = SessionModel()
    assert mark_of(model, pi_running=True, dialogs_waiting=0, unread=False, failed=False) is Mark.IDLE
    assert mark_of(model, pi_running=True, dialogs_waiting=0, unread=True, failed=False) is Mark.DONE
    model.running = True
    assert mark_of(model, pi_running=True, dialogs_waiting=0, unread=True, failed=False) is Mark.WORKING
    assert mark_of(model, pi_running=True, dialogs_waiting=1, unread=True, failed=True) is Mark.NEEDS_YOU
    assert mark_of(model, pi_running=False, dialogs_waiting=0, unread=False, failed=False) is Mark.EXITED
    model.could_not_start("no node")
    assert mark_of(model, pi_running=False, dialogs_waiting=0, unread=False, failed=False) is Mark.FAILED


def test_a_session_is_named_by_its_name_else_its_folder_cleaned_and_cut() -> None:
    model = SessionModel()
    assert session_name(model, "/home/ada/src/api/") == "api"
    assert session_name(model, "/srv/app", "box") == "box:app"
    model.set_state(SessionState(session_name="fix\x1b[2J the\ntests " + "x" * 40))
    name = session_name(model, "/srv/app")
    assert "\x1b" not in name and "\n" not in name and len(name) == 24 and name.endswith("…")
    assert [ago(None), ago(2), ago(42), ago(300), ago(7200), ago(90000)] == ["—", "now", "42s", "5m", "2h", "1d"]


def test_a_session_not_shown_is_given_only_what_cannot_wait() -> None:
    model = SessionModel()
    model.changes.added.append(1)
    model.changes.notifications.append(("info", "hello"))
    model.changes.exited = ChildExited(returncode=1, stderr_tail="")
    model.running = True
    model.changes.run = True
    urgent = model.take_urgent()
    assert urgent.notifications == [("info", "hello")] and urgent.exited is not None and urgent.run
    assert not urgent.added, "the drawing waits"
    again = model.take_urgent()
    assert not again, "what was told is not told twice"
    kept = model.take_changes()
    assert kept.added == [1] and kept.run and not kept.notifications and kept.exited is None


def config(tmp_path: Path, *argv: str, pi_args: tuple[str, ...] = ()) -> LaunchConfig:
    return LaunchConfig(argv=argv, env={}, cwd=tmp_path, demo=False, protocol_log=tmp_path / "log", pi_args=pi_args)


def test_another_session_runs_the_same_pi_with_the_flags_but_those_that_chose_a_session(tmp_path: Path) -> None:
    base = config(tmp_path, "/bin/pi", "--mode", "rpc", "-e", "ext.ts", "--model", "m", "--continue",
                  pi_args=("--model", "m", "--continue"))
    other = open_launch(base, tmp_path)
    assert other.argv == ("/bin/pi", "--mode", "rpc", "-e", "ext.ts", "--model", "m")
    assert other.pi_args == ("--model", "m")
    given = open_launch(base, tmp_path, ["--no-session"])
    assert given.argv == ("/bin/pi", "--mode", "rpc", "--no-session") and given.pi_args == ("--no-session",)
    with pytest.raises(LaunchError, match="does not exist"):
        open_launch(base, tmp_path / "gone")
    with pytest.raises(LaunchError, match="--mode rpc"):
        open_launch(base, tmp_path, ["-p", "hi"])


def test_open_reads_a_folder_a_pi_command_and_pis_flags(tmp_path: Path) -> None:
    assert parse_open("", tmp_path, "/home/ada") == (tmp_path, None, None)
    assert parse_open("../api -- --model x", tmp_path, None) == (tmp_path / "../api", ["--model", "x"], None)
    assert parse_open("--pi 'ssh box pi' ~/src", tmp_path, "/home/ada") == (Path("/home/ada/src"), None, "ssh box pi")
    for bad in ("a b", "--bogus", "--pi", "'unclosed"):
        with pytest.raises(ValueError):
            parse_open(bad, tmp_path, None)
