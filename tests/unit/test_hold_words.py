"""What pideck says of held pis outside its screen: the help of `pideck`, `attach`, `ls`,
`stop` and `serve`, `pideck ls`'s table, the server's words for held pages, and every
printing command's end when its reader went away."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.pideck import main
from app.cli.hold import table
from app.desk.desk import attached_note
from app.cli.serve import page_words, pages_full

ROOT = Path(__file__).resolve().parents[2]


def test_pideck_help_names_attach_ls_and_stop(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for usage in ("pideck attach [N...]", "pideck ls", "pideck stop N [N...] | --all"):
        assert usage in out
    assert "held by default" in out and "Ctrl+\\" in out


@pytest.mark.parametrize("argv, usage", [
    (["attach", "--help"], "usage: pideck attach [N...] [OPTIONS]"),
    (["attach", "2", "-h"], "usage: pideck attach [N...] [OPTIONS]"),
    (["ls", "--help"], "usage: pideck ls"),
    (["stop", "--help"], "usage: pideck stop N [N...] | --all"),
])
def test_each_held_command_has_its_own_help(capsys: pytest.CaptureFixture[str], argv: list[str], usage: str) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(usage)
    assert "pideck [OPTIONS] [-- PI_ARGS...]" not in out  # (not the general help)


@pytest.mark.parametrize("argv", [["ls", "-x"], ["ls", "2"], ["stop"], ["stop", "1", "--all"], ["stop", "x"]])
def test_a_held_command_misused_exits_2_saying_where_help_is(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"see pideck {argv[0]} --help" in err and "Traceback" not in err


def test_serve_help_says_pages_are_not_held_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "default: not held" in out
    assert "default: held" not in out


@pytest.mark.parametrize("argv", [["--restore", "list"], ["ls"], ["stop", "--all"], ["--help"], ["--version"],
                                  ["ls", "--help"]])
def test_a_printing_command_whose_reader_went_away_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """`pideck --restore list | head -1`: the reader gone before pideck writes (here, at
    once: a pipe whose reading end is closed), pideck ends without a traceback."""
    read, write = os.pipe()
    os.close(read)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},  # (buffered, as a user's is)
           "XDG_RUNTIME_DIR": str(tmp_path / "run"), "XDG_STATE_HOME": str(tmp_path / "state")}
    (tmp_path / "run").mkdir(mode=0o700)
    try:
        done = subprocess.run([sys.executable, "-m", "app", *argv], stdout=write, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 141, done  # (as a command SIGPIPE ended)


def test_ls_lists_names_and_folders_in_columns_that_hold() -> None:
    pis = [
        {"number": 3, "state": "working", "cwd": "/home/ada/src/a very long folder name/" + "deep/" * 12, "windows": 1,
         "last_activity": 100.0, "window": {}, "name": "review"},
        {"number": 12, "state": "needs you", "cwd": "/home/ada", "windows": 0, "last_activity": 40.0, "window": {}},
        {"number": 4, "state": "done", "cwd": "/srv/it's here", "windows": 2, "last_activity": 130.0,
         "window": {"remote": None}, "name": "a\x1b]0;x\x07\nname"},
    ]
    rows = table(pis, 130.0, "/home/ada")
    assert rows[0].split() == ["N", "STATE", "WINDOWS", "LAST", "ACTIVE", "NAME", "FOLDER"]
    folder_at = rows[0].index("FOLDER")
    assert all(len(row) > folder_at and row[folder_at - 2 : folder_at] == "  " for row in rows)  # one column
    assert rows[1].startswith("   3  working    1 window")
    assert rows[1].endswith("~/'src/a very long folder name/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep'")
    assert rows[2].startswith("  12  needs you  no window")
    assert " ada " in rows[2] and rows[2].endswith("  ~")  # no name: the folder's, as the sessions row says
    assert rows[3].endswith("""  '/srv/it'"'"'s here'""")
    assert "a␛]0;x␇⏎name" in rows[3]
    assert not any(ch in "".join(rows) for ch in "\x1b\x07\n")


def test_ls_of_a_pi_on_another_host_keeps_its_folder_as_it_is_there() -> None:
    (_, row) = table([{"number": 1, "state": "idle", "cwd": "/home/ada/p", "windows": 0, "last_activity": 1.0,
                       "window": {"remote": "box"}}], 1.0, "/home/ada")
    assert row.endswith("box:p  box:/home/ada/p")


@pytest.mark.parametrize("windows, said", [
    ([0], "1 held pi brought back as it went on without a window (pideck ls lists it; /open starts another)"),
    ([0, 0], "2 held pis brought back as they went on without a window (pideck ls lists them"),
    ([1], "1 held pi shown here too: another window shows it as well, and both follow and answer the same run "),
    ([0, 2, 0], "3 held pis brought back: 2 went on without a window, 1 is shown in another window too"),
])
def test_an_attach_says_whether_another_window_showed_each_pi(windows: list[int], said: str) -> None:
    assert said in attached_note(windows)


def test_the_server_of_held_pages_says_they_go_on() -> None:
    start, closed, stopping = page_words(True, 4)
    assert "own pideck and pi" not in start and "go on when the page closes" in start
    assert "pi have ended" not in closed and "held pis it showed go on" in closed
    assert "held pis they showed go on" in stopping
    assert "held pis go on" in pages_full(4, 4, held=True)
    start, closed, _ = page_words(False, 4)
    assert "own pideck and pi" in start and closed == "its pideck has ended"


def test_a_page_whose_held_pis_go_on_says_so_and_no_resume_command(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    from app.cli.pideck import parse_args
    from app.pi.launch import LaunchConfig
    from app.cli.served_page import tell_server_how_to_resume
    from protocol.wire.responses import SessionState

    (session := tmp_path / "a.jsonl").write_text("{}\n")
    state = SessionState(session_file=str(session), session_id="a")
    config = LaunchConfig(argv=("pi", "--mode", "rpc"), env={}, cwd=tmp_path, demo=False, protocol_log=tmp_path / "log")
    tell_server_how_to_resume(parse_args([]), config, state, 1)
    err = capsys.readouterr().err
    assert "the page's 1 held pi goes on; pideck attach shows it" in err
    assert "to resume it" not in err
    tell_server_how_to_resume(parse_args([]), config, state)
    assert "to resume it" in capsys.readouterr().err


def test_a_stop_says_what_it_cut(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import sys as system

    from app.cli import hold as hold_cli

    answer = {"op": "stopped", "numbers": [1, 2, 3], "pis": [
        {"number": 1, "state": "working", "windows": 1}, {"number": 2, "state": "needs you", "windows": 2},
        {"number": 3, "state": "idle", "windows": 0}]}
    monkeypatch.setattr(hold_cli, "ask", lambda *args, **kwargs: answer)
    assert hold_cli.stop_main(["--all"], {}, system.stdout) == 0
    assert capsys.readouterr().out.splitlines() == [
        "pideck: stopped 1 (it was working, shown in 1 window, which says so)",
        "pideck: stopped 2 (a dialog of it waited for an answer, shown in 2 windows, which say so)",
        "pideck: stopped 3"]
