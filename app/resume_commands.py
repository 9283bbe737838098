"""The commands that open a session again: `pideck` with the flags it was started with and
pi's `--session <id>`. Light on imports: `--restore` reads them before pi is spawned."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from app.pi.args import opening_session
from app.pi.launch import LaunchConfig

if TYPE_CHECKING:
    from protocol.wire.responses import SessionState


def saved(state: SessionState | None, remote: str | None = None) -> bool:
    """The session is in a file pi can open again (on pi's host, for pi on another)."""
    return (state is not None and bool(state.session_file) and bool(state.session_id)
            and (remote is not None or Path(state.session_file or "").exists()))


def session_resume(config: LaunchConfig, state: SessionState | None) -> str | None:
    """The command that opens a session /open started again, as `resume_command` does."""
    if not saved(state, config.remote):
        return None
    assert state is not None
    own = ["--demo"] if config.demo else []
    if config.pi_flag is not None:
        own += ["--pi", config.pi_flag]
    own += ["--cwd", str(config.cwd)]
    return shlex.join(["pideck", *own, "--", *opening_session(list(config.pi_args), state.session_id)])


def resume_command(args: argparse.Namespace, state: SessionState | None) -> str | None:
    """`pideck` with the flags it was started with and `--session <id>` for pi, in place of
    any flag that chose a session; None when the session is not saved."""
    if state is None or not saved(state):
        return None
    own = ["--demo"] if args.demo else []
    for flag, value in (("--pi", args.pi), ("--cwd", args.cwd)):
        if value is not None:
            own += [flag, value]
    return shlex.join(["pideck", *own, "--", *opening_session(args.pi_args, state.session_id)])
