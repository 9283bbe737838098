"""`pideck view` and `pideck replay`: parse their arguments, find what to read and the
terminal, run the ViewApp (or the ReplayApp).

With `-` pi's records come on stdin, so the keys cannot: stdin's data is moved to a new
descriptor and the controlling terminal (`/dev/tty`) is opened onto descriptor 0, where
Textual's driver reads keys (`sys.__stdin__.fileno()`), before the UI starts.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import NoReturn

from app.pi.launch import LaunchConfig
from app.terminal.say import ShownParser, say
from protocol.numbers import parse_float
from protocol.files.headless_files import NotPiOutput, head_type, kind_of
from protocol.wire.protocol_log import ProtocolLog, default_log_path
from protocol.wire.recording import NotARecording, read_recording
from protocol.files.view_client import ReplayClient, ViewClient
from protocol.regular_file import open_regular

DESCRIPTION = """\
Show a headless run of pi read-only, in pideck's transcript: the output of
`pi -p --mode json "task"` (a file, or `-` for stdin, or a FIFO, followed live), or a
pi session file (.jsonl; its active branch, as /resume shows it). No pi is started and
nothing is sent: the prompt finds text in the transcript and runs the commands that work
here (/copy, /export, /diff, /theme...); the Changes view (F9) and themes work."""

EPILOG = """\
examples:
  pi -p --mode json "fix the tests" > run.jsonl; pideck view run.jsonl
  pi -p --mode json "fix the tests" | pideck view -      follow a run as it goes
  pideck view ~/.pi/agent/sessions/--home-me-project--/2026-12-01T10-00-00_ID.jsonl
  mkfifo /tmp/run; pideck view /tmp/run & pi -p --mode json "task" > /tmp/run"""

# Lines and bytes looked at before the UI starts, to refuse what is not pi's at once.
SNIFF_LINES = 4
SNIFF_BYTES = 1 << 20


class _Parser(ShownParser):
    """Its errors name its own subcommand (`prog`)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="pideck view", usage="pideck view [--protocol-log PATH] FILE|- [FILE...]",
                description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                allow_abbrev=False)
    p.add_argument("files", nargs="+", metavar="FILE", help="a JSON-mode output or session file; - reads stdin")
    p.add_argument("--protocol-log", metavar="PATH", default=str(default_log_path()),
                   help="where lines that are not valid records are logged (default: %(default)s)")
    return p


class Refused(Exception):
    """Why pideck view cannot show what it was given (exit status 2)."""


def sniff(path: Path) -> None:
    """Refuse at once a file that is certainly not pi's (empty, a recording, another format); a
    first line too long to look at here is left to the full load."""
    lines: list[bytes] = []
    with open_regular(path) as handle:
        for _ in range(SNIFF_LINES):
            line = handle.readline(SNIFF_BYTES)
            if not line:
                break
            if not line.endswith(b"\n") and len(line) >= SNIFF_BYTES:
                if not lines and head_type(line) is None and not line.lstrip().startswith(b"{"):
                    break  # a long first line that is not even an object: kind_of says so
                return
            if line.strip():
                lines.append(line.rstrip(b"\r\n"))
    try:
        kind_of(lines)
    except NotPiOutput as exc:
        raise Refused(f"{path}: {exc}") from None


def open_source(name: str) -> tuple[Path | None, int | None]:
    """(a file to load, or a stream's descriptor to follow) for `name`; Refused if it cannot be read."""
    if name == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise Refused("- reads pi's output from stdin, which is a terminal here: "
                          "pi -p --mode json \"task\" | pideck view -")
        data = os.dup(0)
        if stat.S_ISREG(os.fstat(data).st_mode):  # `< run.jsonl`: a whole file
            path = Path(f"/dev/fd/{data}")
            sniff(path)
            return path, None
        return None, data
    path = Path(name).expanduser()
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise Refused(f"{name}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise Refused(f"{name}: is a directory; give a JSON-mode output or session file")
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        try:  # O_NONBLOCK: a FIFO with no writer yet does not block here; its writer is waited for
            return None, os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise Refused(f"{name}: {exc.strerror or exc}") from None
    try:
        sniff(path)
    except OSError as exc:
        raise Refused(f"{name}: {exc.strerror or exc}") from None
    return path.resolve(), None


def keys_from_terminal() -> None:
    """Put the controlling terminal on descriptor 0, for Textual to read keys from."""
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
    except OSError as exc:
        raise Refused(f"- needs a terminal for the keys, and /dev/tty cannot be opened: {exc.strerror or exc}") from None
    os.dup2(tty, 0)
    os.close(tty)


def view_log(config: LaunchConfig) -> ProtocolLog:
    return ProtocolLog(config.protocol_log, fallback=default_log_path())


def view_config(protocol_log: str) -> LaunchConfig:
    return LaunchConfig(argv=("pideck", "view"), env=dict(os.environ), cwd=Path.cwd(), demo=False,
                        protocol_log=Path(protocol_log).expanduser(), pi_source="none (a read-only view)")


def main(argv: list[str], *, restore_signals: bool = False) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    name, others = args.files[0], tuple(args.files[1:])
    try:
        path, fd = open_source(name)
        if name == "-":
            keys_from_terminal()
    except Refused as exc:
        say(f"pideck view: {exc}")
        return 2
    if not sys.stdout.isatty():
        say("pideck view: stdout is not a terminal; pideck runs full screen in one")
        return 2
    from app.terminal.signals import exit_signals, release_interrupt_key
    from app.terminal.hangup import stdin_fd

    with exit_signals(restore=restore_signals) as signals:
        from app.terminal.colors import query_terminal_colors
        from app.view.app import ViewApp

        colors = query_terminal_colors(fd0) if (fd0 := stdin_fd()) is not None else (None, None)
        config = view_config(args.protocol_log)
        client = ViewClient("stdin" if name == "-" else name, fd=fd, protocol_log=view_log(config))
        app = ViewApp(config, client, path=path, others=others, terminal_colors=colors)
        code = app.run_app(signals)
        if (fd0 := stdin_fd()) is not None:
            release_interrupt_key(fd0)
    return code


MAX_SPEED = 10_000.0


def speed(text: str) -> float:
    """--speed's value: a plain decimal from 0 to MAX_SPEED (not `inf`, `nan` or `1e3`)."""
    value = parse_float(text, low=0.0, high=MAX_SPEED)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r}: give 0 (as fast as possible) or a positive number up to {MAX_SPEED:,.0f}")
    return value


REPLAY_DESCRIPTION = """\
Play a recording made with `pideck --record FILE` (or `pideck serve --record FILE`) back
into pideck's UI, read-only, at the pace it was recorded: what pi sent, as pideck showed
it. For bug reports and demos."""


def replay_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="pideck replay", usage="pideck replay [--speed N] FILE", description=REPLAY_DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    p.add_argument("file", metavar="FILE", help="a recording made with --record")
    p.add_argument("--speed", metavar="N", type=speed, default=1.0,
                   help="how many times faster than recorded (default: 1; 0: as fast as it can be shown)")
    p.add_argument("--protocol-log", metavar="PATH", default=str(default_log_path()),
                   help="where recorded lines that are not valid records are logged (default: %(default)s)")
    return p


def replay_main(argv: list[str], *, restore_signals: bool = False) -> int:
    try:
        args = replay_parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    try:
        header, steps = read_recording(Path(args.file).expanduser())
    except OSError as exc:
        say(f"pideck replay: {args.file}: {exc.strerror or exc}")
        return 2
    except NotARecording as exc:
        say(f"pideck replay: {exc}")
        return 2
    if (stream := next((name for name, s in (("stdin", sys.stdin), ("stdout", sys.stdout))
                        if s is None or not s.isatty()), None)) is not None:
        say(f"pideck replay: {stream} is not a terminal; pideck runs full screen in one")
        return 2
    from app.terminal.signals import exit_signals, release_interrupt_key
    from app.terminal.hangup import stdin_fd

    with exit_signals(restore=restore_signals) as signals:
        from app.view.replay import ReplayApp
        from app.terminal.colors import query_terminal_colors

        colors = query_terminal_colors(fd0) if (fd0 := stdin_fd()) is not None else (None, None)
        config = view_config(args.protocol_log)
        client = ReplayClient(args.file, steps, speed=args.speed, protocol_log=view_log(config))
        cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else ""
        app = ReplayApp(config, client, cwd=cwd, terminal_colors=colors)
        code = app.run_app(signals)
        if (fd0 := stdin_fd()) is not None:
            release_interrupt_key(fd0)
    return code
