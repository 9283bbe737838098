"""`pideck view` and `pideck replay` on the command line (app/cli/view.py): what they refuse,
at once and with a clear message, before any screen starts; `--record` on `pideck`."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import pytest

from app.cli import view as view_cli
from app.cli.pideck import main, parse_args
from app.pi.launch import LaunchError, check_launch, start_recording
from app.cli.serve import pideck_command

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_view_refuses_what_it_cannot_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "No such file or directory" in refusal(capsys, "view", str(tmp_path / "missing.jsonl"))
    assert "is a directory" in refusal(capsys, "view", str(tmp_path))
    (tmp_path / "empty.jsonl").write_text("")
    assert "the file is empty" in refusal(capsys, "view", str(tmp_path / "empty.jsonl"))
    (tmp_path / "package.json").write_text(json.dumps({"name": "x", "version": "1"}, indent=2))
    assert "not pi's JSON-mode output or a session file" in refusal(capsys, "view", str(tmp_path / "package.json"))
    (tmp_path / "rec.jsonl").write_text('{"pideck_recording":1}\n')
    assert "pideck replay FILE" in refusal(capsys, "view", str(tmp_path / "rec.jsonl"))
    assert "pideck view: the following arguments are required: FILE" in refusal(capsys, "view")


def test_a_file_too_long_to_look_at_first_is_left_to_the_load(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"type":"session","id":"x","cwd":"' + b"a" * (view_cli.SNIFF_BYTES + 10) + b'"}\n')
    view_cli.sniff(path)  # not refused here: the whole load decides


def test_view_of_a_real_file_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert "stdout is not a terminal" in refusal(capsys, "view", str(FIXTURES / "json_mode" / "json_tools.jsonl"))


def test_view_dash_refuses_a_terminal_on_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(view_cli.sys, "stdin", Tty())
    assert "pi -p --mode json" in refusal(capsys, "view", "-")


def test_a_fifo_is_opened_without_waiting_for_its_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "run"
    os.mkfifo(fifo)
    path, fd = view_cli.open_source(str(fifo))
    try:
        assert path is None and fd is not None and stat.S_ISFIFO(os.fstat(fd).st_mode)
    finally:
        if fd is not None:
            os.close(fd)


def test_replay_refuses_what_is_not_a_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "not a pideck recording" in refusal(capsys, "replay", str(FIXTURES / "json_mode" / "json_error.jsonl"))
    assert "No such file" in refusal(capsys, "replay", str(tmp_path / "none.jsonl"))
    assert "give 0 (as fast as possible) or a positive number" in refusal(capsys, "replay", "--speed", "-2", "x")


@pytest.mark.parametrize("given", ["abc", "nan", "inf", "1e999", "\u0663", "1_0"])
def test_replay_names_itself_in_its_errors(capsys: pytest.CaptureFixture[str], given: str) -> None:
    said = refusal(capsys, "replay", "--speed", given, "x")
    assert said.startswith("pideck replay: argument --speed") and "pideck view" not in said
    assert "see pideck replay --help" in said and said.count("\n") == 1
    assert refusal(capsys, "replay").startswith("pideck replay: the following arguments are required: FILE")


def test_record_is_a_flag_of_pideck_and_of_serve(tmp_path: Path) -> None:
    args = parse_args(["--record", str(tmp_path / "r.jsonl"), "--", "--no-session"])
    assert args.record == str(tmp_path / "r.jsonl") and args.pi_args == ["--no-session"]
    served = parse_args(["serve", "--record", "r.jsonl"])
    assert "--record" in pideck_command(served)  # each page's pideck records (to a file of its own)
    recorder = start_recording(str(tmp_path / "r.jsonl"), ["pi"], {}, tmp_path)
    assert recorder is not None and stat.S_IMODE(recorder.path.stat().st_mode) == 0o600
    recorder.close()
    with pytest.raises(LaunchError, match="--record"):
        start_recording(str(tmp_path / "no" / "such" / "dir.jsonl"), ["pi"], {}, tmp_path)
    bad = argparse.Namespace(cwd=None, protocol_log=str(tmp_path / "p.log"), pi_args=[], pi=None,
                             record=str(tmp_path / "missing" / "r.jsonl"))
    with pytest.raises(LaunchError, match="its folder does not exist"):
        check_launch(bad)
