"""`pideck --restore [N|list]`: the sessions of a desk saved at a quit opened again, with the
drafts of their prompts (the newest desk no other pideck has open, or the Nth newest; `list`
lists them); and, at every quit, the sessions open saved as a desk of their own
(protocol/files/desk_file.py), with one resume command per session.

A saved session that cannot open any more (its folder gone or not a folder, a NUL byte in
it, a `--pi` command not found) is named and left out, and stays in its desk for a later
`--restore`; the others open. When none can, pideck says so in one line and ends."""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from app.pi.args import opening_session
from app.pi.launch import LaunchConfig, LaunchError, check_saved_launch, open_launch
from app.cli.resume_commands import resume_line, saved
from app.terminal.say import say
from protocol.numbers import parse_int

if TYPE_CHECKING:  # (desks are read and written only with --restore and at exit, not before pi starts)
    from protocol.files.desk_file import SavedSession, TakenDesk
    from protocol.wire.responses import SessionState

# A session at exit: its name, its launch, pi's last state, whether pideck was started with
# it, the unsent draft in its prompt.
Closing = tuple[str, LaunchConfig, "SessionState | None", bool, str]


class NothingToRestore(LaunchError):
    """--restore finds no desk, or no session of it that can open; the message says why."""


@dataclass
class Restoring:
    """The desk --restore took, the sessions of it that open (the first one pideck starts
    with) and those left out, with what was said of them."""

    desk: TakenDesk
    opened: list[SavedSession] = field(default_factory=list)
    left_out: list[SavedSession] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    held: dict[int, dict[str, Any]] = field(default_factory=dict)  # the opened sessions a held pi still has, by index

    def launch(self, config: LaunchConfig, index: int) -> tuple[LaunchConfig, str]:
        """The launch of the `index`th session opened and its draft: `config` (built from it),
        or, while a held pi still has it, an attach to that pi with the drafts windows left there."""
        if (pi := self.held.get(index)) is None:
            return config, self.opened[index].draft
        from app.cli.hold import merged_drafts
        from app.pi.launch import held_launch, resting_launch

        listed = pi.get("drafts")
        drafts = [draft for draft in listed if isinstance(draft, str)] if isinstance(listed, list) else []
        window = pi.get("window") if isinstance(pi.get("window"), dict) else {}
        number, cwd = pi["number"], str(pi.get("cwd"))
        if pi.get("resting") is True and isinstance(session_file := pi.get("session_file"), str):  # (closed idle: it comes back on its file)
            return resting_launch(config, number, cwd, window, session_file, drafts), merged_drafts(drafts)  # type: ignore[arg-type]
        return held_launch(config, number, cwd, window, drafts), merged_drafts(drafts)  # type: ignore[arg-type]

    def leave_out(self, session: SavedSession, reason: str, err: IO[str] | None = None) -> None:
        note = f"--restore leaves out {label(session)}: {reason}"
        self.left_out.append(session)
        self.notes.append(note)
        say(f"pideck: {note}", file=err)


def label(session: SavedSession) -> str:
    """A saved session as pideck names it: its name, else its folder's last part."""
    return session.name or os.path.basename(session.cwd.rstrip("/")) or session.cwd


def desk_number(value: str) -> int | None:
    """--restore's N (None for the newest desk not open elsewhere). Raises LaunchError."""
    if value == "newest":
        return None
    number = parse_int(value, low=1, max_digits=4)
    if number is None:
        raise LaunchError(f"--restore takes a desk's number (1 is the newest) or list, not {value[:20]!r}")
    return number


def restoring(args: argparse.Namespace, env: Mapping[str, str], err: IO[str] | None = None) -> Restoring | None:
    """With --restore, the desk taken and the first session that can open put in `args`
    (its folder, --pi and pi arguments: pideck starts with it; a session saved without --pi
    runs the --pi given now); None without. Raises LaunchError (NothingToRestore)."""
    if getattr(args, "restore", None) is None:
        return None
    if args.pi_args or args.cwd is not None or args.demo:
        raise LaunchError("--restore opens the sessions saved at a quit, each with its own folder and pi "
                          "arguments: give it without --cwd, --demo or pi arguments")
    number = desk_number(args.restore)
    from protocol.files.desk_file import DeskFileError, take_desk

    try:
        desk = take_desk(env, number)
    except DeskFileError as exc:
        raise NothingToRestore(f"--restore: {exc}") from None
    opened, reasons = [], []
    for session in desk.sessions:
        try:
            check_saved_launch(session.cwd, session.pi_args, session.pi)
        except LaunchError as exc:
            reasons.append((session, str(exc)))
        else:
            opened.append(session)
    if not opened:
        desk.keep()
        count = f"the {len(desk.sessions)} sessions" if len(desk.sessions) > 1 else "the session"
        raise NothingToRestore(f"--restore: none of {count} of {desk.path} can open again ("
                               + "; ".join(f"{label(s)}: {reason}" for s, reason in reasons) + ")")
    restored = Restoring(desk, opened, held=held_now(opened, env))
    for session, reason in reasons:
        restored.leave_out(session, reason, err)
    first = opened[0]
    args.cwd, args.pi, args.pi_args = first.cwd, first.pi or args.pi, list(first.pi_args)
    return restored


def other_launches(config: LaunchConfig, restored: Restoring | None,
                   err: IO[str] | None = None) -> list[tuple[LaunchConfig, str]]:
    """The launches of the sessions restored after the first, each with its draft; one that
    cannot start now is left out, and said."""
    if restored is None:
        return []
    launches = []
    for index, session in enumerate(restored.opened[1:], 1):
        try:
            launches.append(restored.launch(open_launch(config, Path(session.cwd), session.pi_args, session.pi), index))
        except LaunchError as exc:
            restored.leave_out(session, str(exc), err)
    return launches


def save_sessions(sessions: list[Closing], args: argparse.Namespace, env: Mapping[str, str],
                  restored: Restoring | None = None) -> tuple[bool | None, bool]:
    """Save the saved sessions among `sessions` (with their drafts) as a new desk, then let
    go of the desk restored: the sessions it left out stay in it. (whether the desk was
    written, None when no session is saved; whether a draft was cut to its bound)"""
    from protocol.files.desk_file import SavedSession, cut_drafts, desks_dir, save_desk

    kept = [saved_session(closing, args) for closing in sessions if saved(closing[2], closing[1].remote)]
    drafts, cut = cut_drafts([draft for name, config, state, _, draft in sessions
                              if state is not None and saved(state, config.remote)])
    for session, draft in zip(kept, drafts):
        session.draft = draft
    written = None
    if kept:
        try:
            save_desk(desks_dir(env), kept)
            written = True
        except OSError:
            written = False  # nowhere to keep them: the resume commands printed still open each
    if restored is not None and written is not False:
        restored.desk.release(restored.left_out)
    return written, cut


def saved_session(closing: Closing, args: argparse.Namespace) -> SavedSession:
    """A saved session as its desk keeps it: its folder, --pi and pi arguments opening its file."""
    from protocol.files.desk_file import SavedSession

    name, config, state, started, _ = closing
    assert state is not None and state.session_id
    if started and not config.brought_back:
        return SavedSession(cwd=str(config.cwd), pi=args.pi, name=name,
                            pi_args=opening_session(list(args.pi_args), state.session_id))
    return SavedSession(cwd=str(config.cwd), pi=config.pi_flag, name=name,
                        pi_args=opening_session(list(config.pi_args), state.session_id))


def save_held(sessions: list[tuple[Closing, int, int]], stopped: set[tuple[int, int]], args: argparse.Namespace,
              env: Mapping[str, str]) -> None:
    """Save the sessions whose pi the holder keeps at this exit (each with the held pi's
    number and the holder's pid) as a desk of their own: if the holder dies (a reboot, the OOM killer),
    `--restore` resumes them from pi's files, drafts back; while it lives, it attaches. The
    held pis this window `stopped` are taken out of the desks that name them."""
    from protocol.files.desk_file import cut_drafts, desks_dir, drop_held, save_desk

    kept = []
    for closing, number, holder in sessions:
        if saved(closing[2], closing[1].remote):
            session = saved_session(closing, args)
            session.held_number, session.held_by = number, holder
            kept.append((session, closing[4]))
    drafts, _ = cut_drafts([draft for _, draft in kept])
    for (session, _), draft in zip(kept, drafts):
        session.draft = draft
    if stopped:
        with contextlib.suppress(OSError):
            drop_held(env, stopped)
    if kept:
        with contextlib.suppress(OSError):  # (nowhere to keep them: the holder still has them)
            drop_held(env, {(session.held_number, session.held_by) for session, _ in kept})
            save_desk(desks_dir(env), [session for session, _ in kept])


def held_now(sessions: list[SavedSession], env: Mapping[str, str]) -> dict[int, dict[str, Any]]:
    """Which of `sessions` (by index) a held pi still has, as the holder lists it: the pi
    its desk names, in the holder it names (running, or closed idle: attach brings it back)."""
    if not any(session.held_number for session in sessions):
        return {}
    from protocol.hold.ask import ask
    from protocol.hold.frames import BadFrame
    from protocol.hold.place import UnsafePlace

    try:
        answer = ask({"op": "list", "drafts": True}, env, timeout=10.0) or {}
    except (OSError, BadFrame, UnsafePlace):
        return {}
    pis = answer.get("pis") if isinstance(answer.get("pis"), list) else []
    live = {(pi.get("number"), answer.get("holder")): pi for pi in pis if isinstance(pi, dict) and pi.get("state") != "exited"}
    return {index: live[key] for index, session in enumerate(sessions)
            if session.held_number and (key := (session.held_number, session.held_by)) in live}


def drafts_left(sessions: list[Closing], written: bool | None, cut: bool) -> str | None:
    """The line that says which sessions' prompts held an unsent draft at quit, and whether
    --restore brings each back; None when none did."""
    kept = [name for name, config, state, _, draft in sessions if draft.strip() and saved(state, config.remote)]
    lost = [name for name, config, state, _, draft in sessions if draft.strip() and not saved(state, config.remote)]
    if written is False:
        kept, lost = [], kept + lost
    if not kept and not lost:
        return None
    parts = []
    if kept:
        parts.append(f"{', '.join(kept)} (saved{', cut to 1 MiB' if cut else ''}: pideck --restore puts "
                     f"{'it' if len(kept) == 1 else 'them'} back)")
    if lost:
        why = ("the desk could not be written" if written is False
               else "its session is not saved" if len(lost) == 1 else "their sessions are not saved")
        parts.append(f"{', '.join(lost)} (lost: {why})")
    drafts = "an unsent draft was" if len(kept) + len(lost) == 1 else "unsent drafts were"
    return f"pideck: {drafts} left in {' and '.join(parts)}"


def print_others(sessions: list[Closing], shown: int, args: argparse.Namespace, file: IO[str]) -> None:
    """One resume command per session but the `shown`th (whose transcript was printed)."""
    from app.cli.exit_output import print_other_sessions  # (the UI's modules: not before pi is spawned)

    print_other_sessions([
        (name, resume_line(args, config, state, started))
        for index, (name, config, state, started, _) in enumerate(sessions) if index != shown
    ], file)


def list_desks(env: Mapping[str, str], out: IO[str]) -> int:
    """`pideck --restore list`: the desks saved, newest first, numbered as --restore N takes them."""
    from protocol.files.desk_file import desks

    found = desks(env)
    if not found:
        say("No desk is saved: quitting pideck with saved sessions open saves one.", file=out)
        return 0
    say("The desks saved at a quit, newest first (pideck --restore N opens the Nth):", file=out)
    for number, desk in enumerate(found, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(desk.saved_at))
        if desk.problem:
            say(f"{number:3}  {when}  cannot be opened: {desk.problem}", file=out)
            continue
        names = ", ".join(label(session) for session in desk.sessions)
        count = f"{len(desk.sessions)} session{'s' if len(desk.sessions) > 1 else ''}"
        drafts = sum(bool(session.draft.strip()) for session in desk.sessions)
        with_drafts = f", {drafts} with a draft" if drafts else ""
        if held := sum(bool(session.held_number) for session in desk.sessions):
            with_drafts += f", {held} left held (attached while held, else resumed)"
        in_use = " (open in another pideck)" if desk.in_use else ""
        say(f"{number:3}  {when}  {count}{with_drafts}: {names}{in_use}", file=out)
    return 0

