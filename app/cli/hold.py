"""`pideck ls`, `pideck stop N|--all` and what `pideck attach [N...]` opens: the pis the
holder keeps (protocol/hold/), for people."""

from __future__ import annotations

import argparse
import os
import shlex
import time
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from rich.cells import cell_len

from app.pi.launch import LaunchConfig, LaunchError, held_launch, resting_launch
from app.terminal.say import ShownParser, say
from protocol.hold.ask import ask, held
from protocol.hold.frames import BadFrame
from protocol.hold.place import UnsafePlace, unheld_why
from protocol.control_codes import visible
from protocol.numbers import parse_int
from protocol.state.footer_format import home_relative

NAME_CHARS = 32  # a session's name in `pideck ls` is cut to this many characters
HEADS = ("N", "STATE", "WINDOWS", "LAST ACTIVE", "NAME", "FOLDER")


class _Parser(ShownParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


def _parser(name: str, usage: str, description: str) -> argparse.ArgumentParser:
    return _Parser(prog=f"pideck {name}", usage=usage, description=description,
                   formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)


def ls_parser() -> argparse.ArgumentParser:
    return _parser("ls", "pideck ls", """\
List the pis pideck's holder keeps: each one's number (for pideck attach and pideck stop),
its state (working, needs you, done: a run ended that no window showed, idle), the windows
showing it, its last activity, its session's name and its folder.""")


def stop_parser() -> argparse.ArgumentParser:
    p = _parser("stop", "pideck stop N [N...] | --all", """\
End held pis (pideck ls numbers them), each closed in order as a quit closes it, even while
it works or a window shows it: that window says it was stopped. Its session stays in pi's
session file: `pideck -- --continue` in its folder resumes it.""")
    p.add_argument("numbers", nargs="*", type=_number, metavar="N", help="a held pi's number")
    p.add_argument("--all", action="store_true", help="every held pi")
    return p


def attach_parser() -> argparse.ArgumentParser:
    return _parser("attach", "pideck attach [N...] [OPTIONS]", """\
Show held pis in this window again, mid-run, with what the last window left typed in the
prompt: those numbered N (pideck ls lists them), else every one. Ctrl+\\ or /detach leaves
them working again; a quit (Ctrl+C twice, /quit) stops each one no other window shows.
OPTIONS are pideck's own (pideck --help); each pi keeps the arguments it was started with.
A plain `pideck` brings back the held pis no window shows.""")


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """The arguments, or the exit status once the help or a usage error is printed."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0


def _number(text: str) -> int:
    number = parse_int(text, low=1)
    if number is None:
        raise argparse.ArgumentTypeError(f"not a held pi's number: {text[:20]!r}")
    return number


DRAFTS_APART = "\n\n─── an older draft, left by another window ───\n\n"  # between two drafts put back at an attach


def ls_main(argv: list[str], env: Mapping[str, str], out: IO[str]) -> int:
    if isinstance(parsed := _parsed(ls_parser(), argv), int):  # (--help; anything else is refused)
        return parsed
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
    for row in table(pis, time.time(), env.get("HOME")):
        say(row, file=out)
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


def table(pis: list[Mapping[str, Any]], now: float, home: str | None) -> list[str]:
    """`pideck ls`'s rows under their heads, in columns, the folder last (however long):
    `  2  working  2 windows  3 s ago  review  ~/src/app`; what a window said cleaned."""
    rows = [HEADS, *(_row(pi, now, home) for pi in pis)]
    widths = [max(cell_len(row[column]) for row in rows) for column in range(len(HEADS) - 1)]
    return ["  " + "  ".join([_pad(row[0], widths[0], right=True), *map(_pad, row[1:-1], widths[1:]), row[-1]])
            for row in rows]


def _pad(cell: str, width: int, right: bool = False) -> str:
    gap = " " * (width - cell_len(cell))
    return gap + cell if right else cell + gap


def _row(pi: Mapping[str, Any], now: float, home: str | None) -> tuple[str, ...]:
    windows = pi.get("windows") if isinstance(pi.get("windows"), int) else 0
    last = pi.get("last_activity")
    window = pi.get("window")
    host = window.get("remote") if isinstance(window, dict) else None
    cwd = str(pi.get("cwd"))
    folder = _folder(cwd, None if host else home)
    return (visible(str(pi.get("number")), one_line=True), visible(str(pi.get("state")), one_line=True),
            f"{windows} window{'s' * (windows != 1)}" if windows else "no window",
            f"{_ago(now - last)} ago" if isinstance(last, (int, float)) else "?",
            _name(pi.get("name"), cwd, host), f"{visible(host, one_line=True)}:{folder}" if host else folder)


def _folder(cwd: str, home: str | None) -> str:
    """`cwd` as a shell takes it (quoted where it must be, `~/` for the home folder left
    out of the quotes), its controls shown."""
    relative = home_relative(cwd, home)
    if relative == "~":
        return relative
    if relative.startswith("~/"):
        return "~/" + visible(shlex.quote(relative[2:]), one_line=True)
    return visible(shlex.quote(relative), one_line=True)


def _name(name: Any, cwd: str, host: Any) -> str:
    """The session's name (pi's, if it has one), else its folder's last part, as the
    sessions row names it."""
    if not (isinstance(name, str) and name.strip()):
        name = os.path.basename(cwd.rstrip("/")) or cwd or "pi"
        if isinstance(host, str) and host:
            name = f"{host}:{name}"
    name = " ".join(visible(name, one_line=True).split())
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def stop_main(argv: list[str], env: Mapping[str, str], out: IO[str]) -> int:
    if isinstance(args := _parsed(stop_parser(), argv), int):
        return args
    numbers: list[int] = args.numbers
    if args.all == bool(numbers):
        say("pideck stop: name the held pis (pideck ls lists them), or --all; see pideck stop --help")
        return 2
    request: dict[str, Any] = {"op": "stop", "all": True} if args.all else {"op": "stop"}
    stopped: list[dict[str, Any]] = []
    holder: Any = None  # the holder's pid, as it answered
    try:
        for number in numbers or [None]:
            answer = ask({**request, "number": number} if number is not None else request, env, timeout=60.0)
            if answer is None:
                break
            stopped += _stopped(answer)
            holder = answer.get("holder")
    except (OSError, BadFrame, UnsafePlace) as exc:
        say(f"pideck stop: the holder did not answer: {exc}")
        return 1
    if stopped and isinstance(holder, int):  # (stopped on purpose: --restore brings them back no more)
        from protocol.files.desk_file import drop_held

        drop_held(env, {(pi["number"], holder) for pi in stopped})
    missing = [n for n in numbers if n not in {pi["number"] for pi in stopped}]
    for pi in stopped:
        say(f"pideck: stopped {pi['number']}{_as_it_was(pi)}", file=out)
    if missing:
        say(f"pideck stop: no held pi {', '.join(map(str, missing))} (pideck ls lists them)")
        return 1
    if not stopped:
        say("pideck: no pi is held", file=out)
    return 0


def _stopped(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pis a stop ended, each with its state and windows as they were then (a holder
    that gave only numbers: without them)."""
    pis = answer.get("pis")
    if isinstance(pis, list):
        return [pi for pi in pis if isinstance(pi, dict) and isinstance(pi.get("number"), int)]
    return [{"number": n} for n in answer.get("numbers", []) if isinstance(n, int)]


def _as_it_was(pi: Mapping[str, Any]) -> str:
    """` (it was working, shown in 1 window, which says so)`, for a stop that cut something."""
    state, windows = pi.get("state"), pi.get("windows")
    said = {"working": ["it was working"], "needs you": ["a dialog of it waited for an answer"]}.get(str(state), [])
    if isinstance(windows, int) and windows:
        said.append(f"shown in {windows} window{'s' * (windows > 1)}, which say{'s' * (windows == 1)} so")
    return f" ({', '.join(said)})" if said else ""


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
            if pi.get("resting") is True and isinstance(session_file := pi.get("session_file"), str):  # (closed idle: it comes back on its file)
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
