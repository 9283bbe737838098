"""`pideck --restore`: the desks saved at each quit (protocol/files/desk_file.py) and what
app/cli/restore.py makes of them: two pidecks quitting leave two desks, each restorable; a saved
session that cannot open is left out and the others open; drafts are saved within bounds and
said at quit. Each test has its own state folder (tests/conftest.py)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from app.cli.pideck import main, parse_args
from app.pi.launch import LaunchConfig, held_launch, resting_launch
from app.cli.resume_commands import resume_line
from app.cli.restore import Closing, drafts_left, other_launches, restoring, save_sessions
from protocol.files.desk_file import (
    MAX_DRAFT_BYTES,
    DeskFileError,
    SavedSession,
    desks,
    desks_dir,
    load_desk,
    save_desk,
    take_desk,
)
from protocol.wire.responses import SessionState

HOSTILE = "\x1b]52;c;aGk=\x07\x1b[2J"


@pytest.fixture(autouse=True)
def in_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() called here runs as if from a terminal (pytest's stdin and stdout are not one)."""
    monkeypatch.setattr("app.cli.pideck.not_a_terminal", lambda: None)


def launch(folder: Path, *pi_args: str) -> LaunchConfig:
    return LaunchConfig(argv=("pi", "--mode", "rpc", *pi_args), env={}, cwd=folder, demo=False,
                        protocol_log=folder / "log", pi_args=pi_args)


def closing(folder: Path, session_id: str, started: bool = True, draft: str = "", name: str = "") -> Closing:
    """A session at quit, saved by pi in `folder`."""
    folder.mkdir(exist_ok=True)
    file = folder / f"{session_id}.jsonl"
    file.write_text("{}\n")
    return (name or folder.name, launch(folder), SessionState(session_file=str(file), session_id=session_id), started,
            draft)


def folders(tmp_path: Path, *names: str) -> list[Path]:
    made = [tmp_path / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


def test_a_desk_round_trips_and_a_file_pideck_did_not_write_is_refused(tmp_path: Path) -> None:
    sessions = [SavedSession(cwd="/a", pi_args=["--session", "1"], draft="half a thought"),
                SavedSession(cwd="/b", pi="ssh box pi", name="b")]
    path = save_desk(desks_dir(os.environ), sessions)
    assert load_desk(path) == sessions and os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.parent).st_mode & 0o777 == 0o700
    for text, reason in (('{"version": 1, "sessions": []}', "no sessions"), ("[1, 2]", "not a desk pideck wrote"),
                         ("{}", "not a desk pideck wrote"), ('{"version": 9, "sessions": [{"cwd": "/a"}]}', "another pideck"),
                         ("x" * (20 << 20), "larger")):
        path.write_text(text)
        with pytest.raises(DeskFileError, match=reason):
            load_desk(path)
        assert desks(os.environ)[0].problem, "listed with what is wrong with it"


def test_two_pidecks_quitting_leave_a_desk_each_and_both_restore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    save_sessions([closing(one, "s1", draft="one's draft")], parse_args(["--cwd", str(one)]), os.environ)  # pideck A quits
    save_sessions([closing(two, "s2")], parse_args(["--cwd", str(two)]), os.environ)  # then pideck B, in another terminal
    assert [desk.sessions[0].cwd for desk in desks(os.environ)] == [str(two), str(one)], "both kept, newest first"

    first_args, second_args = parse_args(["--restore"]), parse_args(["--restore"])
    first = restoring(first_args, os.environ)
    second = restoring(second_args, os.environ)  # while the first runs: the desk before it
    assert first is not None and second is not None
    assert (first_args.cwd, second_args.cwd) == (str(two), str(one))
    assert first_args.pi_args == ["--session", "s2"] and second.opened[0].draft == "one's draft"
    with pytest.raises(DeskFileError, match="open in another pideck"):
        take_desk(os.environ)
    assert main(["--restore", "list"]) == 0
    listed = capsys.readouterr().out
    assert "1 session: two (open in another pideck)" in listed and "1 session, 1 with a draft: one (open" in listed

    # the first quits with one more session open: a desk of its own, and the one it restored goes
    save_sessions([closing(two, "s2", name="two"), closing(tmp_path / "three", "s3", started=False)],
                  first_args, os.environ, first)
    after = desks(os.environ)
    assert [[s.cwd for s in desk.sessions] for desk in after] == [[str(two), str(tmp_path / "three")], [str(one)]]
    assert not after[0].in_use and after[1].in_use
    second.desk.release([])
    assert len(desks(os.environ)) == 1


def test_restore_leaves_out_the_sessions_that_cannot_open_the_first_too(tmp_path: Path) -> None:
    """A folder gone (the first saved session's), now a file, a NUL byte: each named, its
    controls shown; the others open, the first of them shown; those left out stay saved."""
    api, docs = folders(tmp_path, "api", "docs")
    (tmp_path / "now a file").write_text("")
    saved = [SavedSession(cwd=str(tmp_path / f"gone{HOSTILE}"), name="gone"),
             SavedSession(cwd=str(tmp_path / "now a file")), SavedSession(cwd=f"{api}\x00x", name="nul"),
             SavedSession(cwd=str(api), pi_args=["--session", "a1"], draft="api's draft"),
             SavedSession(cwd=str(docs), pi_args=["--model", "m", "--session", "d1"], name="docs", draft="docs' draft")]
    save_desk(desks_dir(os.environ), saved)
    args, err = parse_args(["--restore"]), io.StringIO()
    restored = restoring(args, os.environ, err)
    assert restored is not None and args.cwd == str(api) and args.pi_args == ["--session", "a1"]
    said = err.getvalue().splitlines()
    assert len(said) == 3 and all(line.isprintable() and line.startswith("pideck: --restore leaves out ") for line in said)
    assert "gone: " in said[0] and "␛]52;c;aGk=␇␛[2J: does not exist" in said[0], said
    assert "now a file: is not a folder" in said[1] and "nul: it holds a NUL byte" in said[2]
    assert [note.split(":")[0] for note in restored.notes] == [
        "--restore leaves out gone", "--restore leaves out now a file", "--restore leaves out nul"], "told in the app too"
    others = other_launches(launch(api), restored, err)
    assert [(config.cwd, config.pi_args, draft) for config, draft in others] == [
        (docs, ("--model", "m", "--session", "d1"), "docs' draft")]
    save_sessions([closing(api, "a1"), closing(docs, "d1", started=False)], args, os.environ, restored)
    kept = desks(os.environ)
    assert [[s.name for s in desk.sessions] for desk in kept] == [["api", "docs"], ["gone", "", "nul"]], \
        "a new desk, and the sessions left out kept for a later --restore"


def test_restore_when_no_session_can_open_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_desk(desks_dir(os.environ), [SavedSession(cwd=str(tmp_path / "gone"), name="api"),
                                      SavedSession(cwd=f"/tmp\x00{HOSTILE}", name="nul")])
    assert main(["--restore"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err[:-1].isprintable(), err
    assert err.startswith("pideck: --restore: none of the 2 sessions") and "api: " in err and "does not exist" in err
    assert "NUL byte" in err and "--cwd" not in err
    assert desks(os.environ)[0].sessions and not desks(os.environ)[0].in_use, "the desk is kept as it was"


def test_restore_n_and_its_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--restore"]) == 1
    assert "no sessions were saved yet" in capsys.readouterr().err
    assert main(["--restore", "list"]) == 0
    assert capsys.readouterr().out.startswith("No desk is saved")
    old, new = folders(tmp_path, "old", "new")
    save_desk(desks_dir(os.environ), [SavedSession(cwd=str(old))])
    save_desk(desks_dir(os.environ), [SavedSession(cwd=str(new))])
    args = parse_args(["--restore", "2"])
    held = restoring(args, os.environ)  # (its lock held while it is kept)
    assert held is not None and args.cwd == str(old)
    assert main(["--restore", "2"]) == 1
    assert "no desk can be opened (2: open in another pideck)" in capsys.readouterr().err
    assert main(["--restore", "3"]) == 1
    assert "2 desks saved, not 3" in capsys.readouterr().err
    for bad in ("x", "0", "-1", "12345", "--demo"):
        assert main(["--restore", bad] if bad != "--demo" else ["--restore", "--demo"]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_drafts_are_saved_within_bounds_and_said_at_quit(tmp_path: Path) -> None:
    big = "é" * MAX_DRAFT_BYTES  # two bytes each
    sessions = [closing(tmp_path / "api", "a1", draft="fix the tests"), closing(tmp_path / "big", "b1", started=False, draft=big),
                closing(tmp_path / "none", "n1", started=False)]
    written, cut = save_sessions(sessions, parse_args([]), os.environ)
    assert written and cut
    drafts = [session.draft for session in desks(os.environ)[0].sessions]
    assert drafts[0] == "fix the tests" and drafts[1] == "é" * (MAX_DRAFT_BYTES // 2) and drafts[2] == ""
    assert drafts_left(sessions, written, cut) == (
        "pideck: unsent drafts were left in api, big (saved, cut to 1 MiB: pideck --restore puts them back)")
    lost = closing(tmp_path / "demo", "x1", draft="an idea")
    Path(lost[2].session_file).unlink()  # (a session --no-session or the demo's: not saved)
    assert drafts_left([lost], None, False) == "pideck: an unsent draft was left in demo (lost: its session is not saved)"
    assert drafts_left(sessions[2:], True, False) is None


def test_the_one_desk_of_earlier_versions_restores_and_goes(tmp_path: Path) -> None:
    """`sessions.json`, which an earlier pideck wrote over at each quit, is one desk more."""
    (api,) = folders(tmp_path, "api")
    old = desks_dir(os.environ).parent / "sessions.json"
    old.parent.mkdir(parents=True)
    old.write_text(f'{{"version": 1, "sessions": [{{"cwd": "{api}", "pi_args": ["--session", "a1"]}}]}}')
    args = parse_args(["--restore"])
    restored = restoring(args, os.environ)
    assert restored is not None and args.cwd == str(api) and args.pi_args == ["--session", "a1"]
    save_sessions([closing(api, "a1")], args, os.environ, restored)
    assert not old.exists() and [desk.sessions[0].cwd for desk in desks(os.environ)] == [str(api)]


def test_a_held_pi_attached_to_is_saved_and_resumed_with_its_own_launch(tmp_path: Path) -> None:
    """`pideck attach` (no folder, no pi flags) shows a pi started with `--provider`, `--model`
    and `-e` in another folder: its desk and its resume command are that pi's, flags and all."""
    folder = tmp_path / "project"
    given = ["--provider", "p", "--model", "m", "-e", "ext.ts"]
    attached = held_launch(launch(tmp_path), 3, str(folder), {"argv": ["pi", "--mode", "rpc", *given], "pi_args": given})
    name, _, state, _, draft = closing(folder, "s1")
    args = parse_args([])
    save_sessions([(name, attached, state, True, draft)], args, os.environ)
    (saved_one,) = desks(os.environ)[0].sessions
    assert (saved_one.cwd, saved_one.pi_args) == (str(folder), [*given, "--session", "s1"])
    command = resume_line(args, attached, state, started=True)
    assert command is not None and command.endswith(f"--cwd {folder} -- --provider p --model m -e ext.ts --session s1")
    # the same pi after the holder closed it idle, started again on its session file by pideck attach
    resumed = resting_launch(launch(tmp_path), 3, str(folder), {"argv": ["pi", "--mode", "rpc", *given], "pi_args": given},
                             str(folder / "s1.jsonl"))
    assert resumed.resumes == 3 and resumed.argv[-2:] == ("--session", str(folder / "s1.jsonl"))
    save_sessions([(name, resumed, state, True, draft)], args, os.environ)
    assert desks(os.environ)[0].sessions[0].pi_args == [*given, "--session", "s1"]
    assert resume_line(args, resumed, state, started=True) == command
