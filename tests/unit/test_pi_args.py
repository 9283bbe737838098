"""pi's session-choosing flags: every form pi 1.6.0 accepts (`pi --help`, cli/args.js) gives
way to one `--session`, in the restart's command and in the resume command printed at exit."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from app.pi.args import resume_argv
from app.cli.resume_commands import resume_command
from app.pi.args import opening_session
from protocol.wire.responses import SessionState

FLAGS = [  # pi's arguments → what stays of them
    ([], []),
    (["--continue"], []),
    (["-c", "--provider", "p"], ["--provider", "p"]),
    (["--resume", "--model", "m"], ["--model", "m"]),
    (["-r"], []),
    (["--session", "old.jsonl", "-e", "x.ts"], ["-e", "x.ts"]),
    (["--session=abc", "--verbose"], ["--verbose"]),
    (["--session-id", "123", "--offline"], ["--offline"]),
    (["--session-id=123"], []),
    (["--fork", "abc", "--thinking", "high"], ["--thinking", "high"]),
    (["--fork=x"], []),
    (["--no-session", "--no-tools"], ["--no-tools"]),
    (["--name", "my work", "-n", "other", "--name=third"], []),
    (["--session-dir", "D", "--session-dir=E"], ["--session-dir", "D", "--session-dir=E"]),
    (["--model", "--session"], ["--model"]),  # pi takes the next argument as the value, whatever it is
    (["--fork", "a", "--", "--continue", "hello"], ["--", "--continue", "hello"]),  # messages are kept
]


@pytest.mark.parametrize(("pi_args", "kept"), FLAGS)
def test_session_flags_give_way_to_one_session(pi_args: list[str], kept: list[str]) -> None:
    flags, messages = (kept[: kept.index("--")], kept[kept.index("--") :]) if "--" in kept else (kept, [])
    expected = [*flags, "--session", "S", *messages]
    assert opening_session(pi_args, "S") == expected
    assert resume_argv(["node", "cli.js", "--mode", "rpc", *pi_args], "S") == ("node", "cli.js", "--mode", "rpc", *expected)


@pytest.mark.parametrize(("pi_args", "kept"), FLAGS)
def test_restart_and_exit_hint_agree(pi_args: list[str], kept: list[str], tmp_path: Path) -> None:
    session_file = tmp_path / "s.jsonl"
    session_file.write_text("")
    args = argparse.Namespace(demo=False, pi=None, cwd=None, pi_args=pi_args)
    hint = resume_command(args, SessionState(session_file=str(session_file), session_id="S"))
    assert hint is not None
    assert shlex.split(hint)[:2] == ["pideck", "--"]
    assert tuple(shlex.split(hint)[2:]) == resume_argv(["pi", "--mode", "rpc", *pi_args], "S")[3:]
