"""`pideck ls`, `pideck stop N|--all` and what `pideck attach [N...]` opens: the pis the
holder keeps (protocol/hold/), for people."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Mapping
from typing import IO, Any

from app.pi.launch import LaunchConfig, LaunchError, held_launch, resting_launch
from app.terminal.say import say
from protocol.hold.ask import ask, held
from protocol.hold.frames import BadFrame
from protocol.hold.place import UnsafePlace, unheld_why
from protocol.numbers import parse_int

LS_USAGE = "usage: pideck ls"
STOP_USAGE = "usage: pideck stop N [N...] | --all"
DRAFTS_APART = "\n\n─── an older draft, left by another window ───\n\n"  # between two drafts put back at an attach


def ls_main(argv: list[str], env: Mapping[str, str], out: IO[str]) -> int:
    if argv:
        say(f"pideck ls takes no arguments\n{LS_USAGE}")
        return 2
    if (why := unheld_why()) is not None:
        say(f"pideck: no pi is held: {why}", file=out)
        return 0
    try:
        pis = held(env)
    except (OSError, BadFrame, UnsafePlace) as exc:
        say(f"pideck ls: the holder did not answer: {exc}")
        return 1
    if not pis:
        say("pideck: no pi is held (a pideck started without --no-hold holds its pi)", file=out)
        if lost := lost_with_holder(env):
            say(f"pideck: {lost} session{'s' * (lost > 1)} left held went with {'their' if lost > 1 else 'its'} holder; "
                f"pideck --restore resumes {'them' if lost > 1 else 'it'} from pi's files (--restore list)", file=out)
        return 0
    now = time.time()
    for pi in pis:
        say(line(pi, now), file=out)
    return 0


def lost_with_holder(env: Mapping[str, str]) -> int:
    """How many sessions the desks saved as left held whose holder is no longer running."""
    from protocol.files.desk_file import desks

    return sum(1 for desk in desks(env) for session in desk.sessions
               if session.held_number and not _running(session.held_by))


def _running(pid: int) -> bool:
    """Process `pid` runs (a zombie, killed and not reaped yet, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (another user's process: not our holder, but not gone either)
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def line(pi: Mapping[str, Any], now: float) -> str:
    """`  2  working   ~/src/app  2 windows  3 s ago` (what a window said of it, cleaned)."""
    number = pi.get("number")
    windows = pi.get("windows") if isinstance(pi.get("windows"), int) else 0
    last = pi.get("last_activity")
    ago = _ago(now - last) if isinstance(last, (int, float)) else "?"
    window = pi.get("window")
    host = window.get("remote") if isinstance(window, dict) else None
    where = f"{host}:{pi.get('cwd')}" if isinstance(host, str) and host else str(pi.get("cwd"))
    watched = f"{windows} window{'s' * (windows != 1)}" if windows else "no window"
    return f"{number!s:>3}  {str(pi.get('state')):<9}  {where}  {watched}  last activity {ago} ago"


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def stop_main(argv: list[str], env: Mapping[str, str], out: IO[str]) -> int:
    numbers = [parse_int(word, low=1) for word in argv if word != "--all"]
    if not argv or (("--all" in argv) == bool(numbers)) or None in numbers:
        say(f"pideck stop: name the held pis (pideck ls lists them), or --all\n{STOP_USAGE}")
        return 2
    request: dict[str, Any] = {"op": "stop", "all": True} if "--all" in argv else {"op": "stop"}
    stopped: list[int] = []
    try:
        for number in numbers or [None]:
            answer = ask({**request, "number": number} if number is not None else request, env, timeout=60.0)
            if answer is None:
                say("pideck: no pi is held", file=out)
                return 0
            stopped += [n for n in answer.get("numbers", []) if isinstance(n, int)]
            holder = answer.get("holder")
    except (OSError, BadFrame, UnsafePlace) as exc:
        say(f"pideck stop: the holder did not answer: {exc}")
        return 1
    if stopped and isinstance(holder, int):  # (stopped on purpose: --restore brings them back no more)
        from protocol.files.desk_file import drop_held

        drop_held(env, {(number, holder) for number in stopped})
    missing = [n for n in numbers if n not in stopped]
    if stopped:
        say(f"pideck: stopped {', '.join(map(str, stopped))}", file=out)
    if missing:
        say(f"pideck stop: no held pi {', '.join(map(str, missing))} (pideck ls lists them)")
        return 1
    if not stopped:
        say("pideck: no pi is held", file=out)
    return 0


def attach_args(argv: list[str]) -> tuple[list[int], list[str]]:
    """`pideck attach [N...] [OPTIONS]`: the numbers asked for, and the options that follow."""
    numbers: list[int] = []
    while argv and (number := parse_int(argv[0], low=1)) is not None:
        numbers.append(number)
        argv = argv[1:]
    return numbers, argv


def attach_launches(base: LaunchConfig, args: argparse.Namespace,
                    env: Mapping[str, str]) -> list[tuple[LaunchConfig, str]]:
    """The launches of the held pis this window attaches to: those `args.attach` names, or
    all of them for `pideck attach`; for a plain `pideck` that holds, those no window
    watches (none: it starts a pi of its own); each with the drafts windows left, merged.
    LaunchError says why none can be."""
    asked: list[int] | None = getattr(args, "attach", None)
    try:
        pis = held(env, drafts=True)
    except (OSError, BadFrame, UnsafePlace) as exc:
        raise LaunchError(f"the holder did not answer: {exc}") from None
    live = [pi for pi in pis if pi.get("state") != "exited" and isinstance(pi.get("number"), int)]
    if asked is None:
        chosen = [pi for pi in live if not pi.get("windows")]
    elif asked:
        by_number = {pi["number"]: pi for pi in live}
        missing = [n for n in asked if n not in by_number]
        if missing:
            raise LaunchError(f"no held pi {', '.join(map(str, missing))} (pideck ls lists them)")
        chosen = [by_number[n] for n in asked]
    else:
        chosen = live
        if not chosen:
            raise LaunchError("no pi is held (a pideck started without --no-hold holds its pi)")
    launches, cannot = [], []
    for pi in chosen:
        listed = pi.get("drafts")
        drafts = [draft for draft in listed if isinstance(draft, str)] if isinstance(listed, list) else []
        window = pi.get("window") if isinstance(pi.get("window"), dict) else {}
        try:
            if isinstance(session_file := pi.get("session_file"), str):  # (closed idle: it comes back on its file)
                launch = resting_launch(base, pi["number"], str(pi.get("cwd")), window, session_file, drafts)  # type: ignore[arg-type]
            else:
                launch = held_launch(base, pi["number"], str(pi.get("cwd")), window, drafts)  # type: ignore[arg-type]
        except LaunchError as exc:  # (a pi closed idle whose folder went)
            cannot.append(f"held pi {pi['number']} cannot come back: {exc}")
            continue
        launches.append((launch, merged_drafts(drafts)))
    if cannot and (asked or (asked is not None and not launches)):
        raise LaunchError("; ".join(cannot))
    return launches


def merged_drafts(drafts: list[str]) -> str:
    """The drafts windows left (newest first) as one prompt: the newest, then each older one
    after a line that says so."""
    return DRAFTS_APART.join(drafts)
