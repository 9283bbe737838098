"""`pideck --restore`: the sessions open when pideck last quit, opened again; and, at every
quit, that set saved (protocol/files/desk_file.py) with one resume command per session."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING

from app.pi.args import opening_session
from app.pi.launch import LaunchConfig, LaunchError, open_launch
from app.resume_commands import resume_command, saved, session_resume
from app.terminal.say import say

if TYPE_CHECKING:  # (the set saved is read and written only with --restore and at exit, not before pi starts)
    from protocol.files.desk_file import SavedSession
    from protocol.wire.responses import SessionState

# A session at exit: its name, its launch, pi's last state, whether pideck was started with it.
Closing = tuple[str, LaunchConfig, "SessionState | None", bool]


def restoring(args: argparse.Namespace, env: Mapping[str, str]) -> list[SavedSession]:
    """With --restore, the sessions saved, the first one's folder, --pi and pi arguments put
    in `args` (pideck starts with it; a session saved without --pi runs the --pi given now);
    [] without. Raises LaunchError."""
    if not getattr(args, "restore", False):
        return []
    if args.pi_args or args.cwd is not None or args.demo:
        raise LaunchError("--restore opens the sessions saved at the last quit, each with its own folder and pi "
                          "arguments: give it without --cwd, --demo or pi arguments")
    from protocol.files.desk_file import DeskFileError, desk_path, load_desk

    try:
        sessions = load_desk(desk_path(env))
    except DeskFileError as exc:
        raise LaunchError(f"--restore: {exc}") from None
    first = sessions[0]
    args.cwd, args.pi, args.pi_args = first.cwd, first.pi or args.pi, list(first.pi_args)
    return sessions


def other_launches(config: LaunchConfig, sessions: list[SavedSession], err: IO[str] = sys.stderr) -> list[LaunchConfig]:
    """The launches of the saved sessions after the first; one that cannot start any more (its
    folder is gone) is left out, and said."""
    launches = []
    for session in sessions:
        try:
            launches.append(open_launch(config, Path(session.cwd), session.pi_args, session.pi))
        except LaunchError as exc:
            say(f"pideck: --restore leaves out {session.name or session.cwd}: {exc}", file=err)
    return launches


def save_sessions(sessions: list[Closing], args: argparse.Namespace, env: Mapping[str, str]) -> None:
    """The saved sessions among `sessions`, for the next --restore (the file is kept as it
    was when none is saved: a quick look with --no-session does not lose the last set)."""
    from protocol.files.desk_file import SavedSession, desk_path, save_desk

    kept = []
    for name, config, state, started in sessions:
        if state is None or not saved(state, config.remote):
            continue
        if started:
            kept.append(SavedSession(cwd=str(config.cwd), pi=args.pi, name=name,
                                     pi_args=opening_session(list(args.pi_args), state.session_id)))
        else:
            kept.append(SavedSession(cwd=str(config.cwd), pi=config.pi_flag, name=name,
                                     pi_args=opening_session(list(config.pi_args), state.session_id)))
    if kept:
        try:
            save_desk(desk_path(env), kept)
        except OSError:
            pass  # nowhere to keep them: the resume commands printed still open each


def print_others(sessions: list[Closing], shown: int, args: argparse.Namespace, file: IO[str]) -> None:
    """One resume command per session but the `shown`th (whose transcript was printed)."""
    from app.exit_output import print_other_sessions  # (the UI's modules: not before pi is spawned)

    print_other_sessions([
        (name, resume_command(args, state) if started else session_resume(config, state))
        for index, (name, config, state, started) in enumerate(sessions) if index != shown
    ], file)
