"""The `pideck` command: parse flags, resolve pi, run the app."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from app.pi.launch import LaunchConfig, LaunchError, build_launch, refuse
from app.runtime import NODE_VERSION, PI_VERSION, ProvisionError
from app.cli.served_page import served_in_browser, tell_page, tell_server_how_to_resume, watch_page
from app.terminal.say import ShownParser, say
from protocol.numbers import parse_int
from protocol.wire.protocol_log import default_log_path

if TYPE_CHECKING:
    from app.pideck_app import PideckApp

T = TypeVar("T")

DESCRIPTION = """\
A full-screen terminal front-end for the pi coding agent. pideck starts a
`pi --mode rpc` child and shows its session, streaming output and tool runs;
/open starts more, each its own pi, and --restore opens again those open at a quit.

pi is held by default: a background process of yours keeps it, so that a run goes on
when the window goes (a closed terminal, a dropped ssh link, Ctrl+\\ or /detach).
A plain `pideck` with held pis no window shows brings them back; `pideck attach`
shows held pis, `pideck ls` lists them, `pideck stop` ends them.

Everything after `--` is passed to pi unchanged."""

EPILOG = f"""\
where pi comes from:
  --pi CMD, else `pi` on PATH if it is {PI_VERSION} or newer, else a pinned pi
  {PI_VERSION} with Node {NODE_VERSION}, installed with npm into ~/.cache/pideck on
  first use (PIDECK_CACHE_DIR moves it).

examples:
  pideck --demo                           try it on the built-in scripted model, no API key
  pideck                                  your pi, your provider and models (~/.pi/agent)
  pideck -- --provider anthropic --model sonnet
  pideck --cwd ~/src/project -- --continue
  pideck -- --session-dir /tmp/sessions --name review -e ./ext.ts
  pideck -- --no-session
  pideck --pi 'node /opt/pi/dist/cli.js' -- --model sonnet:high
  PI_CODING_AGENT_DIR=~/.pi/work pideck   use another pi config directory
  pideck attach                           show every held pi again (pideck attach 2: only pi 2)
  pideck ls                               list the held pis: number, state, name, folder
  pideck stop 2                           end held pi 2 (pideck stop --all: every one)
  pideck serve --demo                     the same in a web browser: open the URL it prints
                                          (pideck serve --help says more)
  pideck --record bug.jsonl               record what pi and pideck send each other;
  pideck replay bug.jsonl                 play it back (pideck replay --help)
  pi -p --mode json "task" | pideck view -
                                          follow a headless run of pi read-only; also a saved
                                          run or a session file (pideck view --help)"""

SERVE_DESCRIPTION = """\
Serve pideck to web browsers: each page that opens the printed URL gets a pideck of its
own, run with the same OPTIONS and PI_ARGS as `pideck` takes. A page's pi is its own and
ends with the page, unless --attach (each page shows the held pis, which go on when it
closes) or --hold (each page's pi is held). The URL holds a random token;
requests without it are refused (403). The server listens on 127.0.0.1 unless --host says
otherwise, and whoever can reach it with the token can run commands as you.

Everything after `--` is passed to pi unchanged."""


class _Parser(ShownParser):
    def error(self, message: str) -> NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            unknown = message[len(prefix) :].split()
            first = unknown[0]
            if first.startswith("-"):
                message = f"unknown option {first} (pi options go after --)"
            else:
                message = f"unexpected argument {first!r} (pi arguments go after --)"
        self.exit(2, f"pideck: {message}; see {self.prog} --help\n")


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free one), in ASCII digits."""
    port = parse_int(text, high=65535)
    if port is None:
        raise argparse.ArgumentTypeError(f"not a port from 0 to 65535: {text[:20]!r}")
    return port


def parser(serve: bool = False) -> argparse.ArgumentParser:
    """pideck's flags; with `serve`, those of `pideck serve` (the same and where to listen)."""
    p = _Parser(
        prog="pideck serve" if serve else "pideck",
        usage=("pideck serve [--host HOST] [--port PORT] [OPTIONS] [-- PI_ARGS...]" if serve else
               "pideck [OPTIONS] [-- PI_ARGS...]\n       pideck attach [N...] [OPTIONS]\n       pideck ls\n       pideck stop N [N...] | --all"
               "\n       pideck serve [--host HOST] [--port PORT] [OPTIONS] [-- PI_ARGS...]"
               "\n       pideck view FILE|-\n       pideck replay [--speed N] FILE"),
        description=SERVE_DESCRIPTION if serve else DESCRIPTION,
        epilog=None if serve else EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    if serve:  # (the server's module only then: it imports asyncio, which pi's spawn comes before)
        from app.cli.serve import DEFAULT_HOST, DEFAULT_MAX_PAGES, DEFAULT_PORT, page_count

        p.add_argument("--host", default=DEFAULT_HOST,
                       help="address to listen on (default: %(default)s, this machine only; 0.0.0.0 is every network)")
        p.add_argument("--port", type=port_number, default=DEFAULT_PORT, help="port to listen on (default: %(default)s; 0: any free one)")
        p.add_argument("--attach", action="store_true",
                       help="each page attaches to every pi pideck's holder keeps (pideck attach): runs a terminal "
                            "started, followed and answered from any browser, a phone's included; a page closed leaves them "
                            "going on")
        p.add_argument("--max-pages", metavar="N", type=page_count, default=DEFAULT_MAX_PAGES,
                       help="pages open at once, each with its own pideck (and pi, unless held; about 60 MB each); one more is "
                            "refused with a page that says why (default: %(default)s)")
    p.add_argument("--pi", metavar="CMD", help="command that runs pi, split like a shell would (never run by one)")
    p.add_argument("--demo", action="store_true", help="use the built-in scripted demo model (no API key, no network)")
    p.add_argument("--cwd", metavar="DIR", help="working directory of pi (default: the current directory)")
    p.add_argument(
        "--protocol-log",
        metavar="PATH",
        default=str(default_log_path()),
        help="where lines from pi that are not valid records are logged (default: %(default)s; /dev/null turns it off)",
    )
    p.add_argument(
        "--notify",
        metavar="WHAT",
        help="when a run ends or fails, or an extension asks, while the terminal is not focused or after a run of "
             "10 s or more: bell, desktop (a notification escape), osc9, osc777, comma-separated, or off "
             "(default: PIDECK_NOTIFY, else bell,desktop)",
    )
    p.add_argument("--record", metavar="FILE",
                   help="write every line pi sends and every command pideck sends, with times, to FILE (mode 0600, "
                        "secrets redacted; an existing FILE is kept and FILE-2... used), for `pideck replay FILE`")
    p.add_argument("--hold", action=argparse.BooleanOptionalAction, default=None,
                   help=("hold each page's pi in pideck's holder, a background process of yours, so that it goes on "
                         "when the page closes (pideck attach, pideck ls, pideck stop) (default: not held: a page's pi "
                         "ends with it; --attach shows the held pis)") if serve else
                        ("run pi in pideck's holder, a background process of yours, so that its runs outlive this "
                         "window (a closed terminal, a dropped ssh link, Ctrl+\\ or /detach): pideck attach brings "
                         "them back, pideck ls lists them, pideck stop ends them (default: held, unless PIDECK_HOLD is 0, off, no or false; --demo never is)"))
    if not serve:
        p.add_argument("--restore", nargs="?", const="newest", metavar="N|list",
                       help="open again the sessions open at a quit, with their drafts (each saved one, on its "
                            "session file): those of the newest quit whose pideck is not running them, or of "
                            "the Nth newest; list: list them")
    p.add_argument("--version", action=_Version, help="show program's version number and exit")
    return p


class _Version(argparse.Action):
    """--version, reading pideck's version only when asked (importlib.metadata costs start-up
    about 20 ms, before pi is spawned), and whether its engine runs (widgets/engine/)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=kwargs.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        from importlib.metadata import version

        from widgets.engine import MODE

        print(f"pideck {version('pideck')} (pinned pi {PI_VERSION}, Node {NODE_VERSION})")
        print(MODE)
        parser.exit()


def parse_args(argv: list[str]) -> argparse.Namespace:
    """pideck's own flags, `serve` true for `pideck serve`, and in `pi_args` everything after
    the first `--`, verbatim."""
    own, pi_args = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    serve = own[:1] == ["serve"]
    args = parser(serve).parse_args(own[1:] if serve else own)
    args.serve = serve
    args.pi_args = pi_args
    return args


def printing(work: Callable[[], T]) -> T | int:
    """What `work` returns, or the exit status it asked for (--help, a usage error); 141, as
    for a command SIGPIPE ended, when what it printed had no reader left (`pideck ls | head
    -1`): the rest is dropped without a traceback, now and at the exit's flush."""
    try:
        try:
            done = work()
        except SystemExit as exc:
            done = exc.code if isinstance(exc.code, int) else 0
        sys.stdout.flush()
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return 0 if done is None else done


def not_a_terminal() -> str | None:
    """Which of stdin and stdout is not a terminal (pideck runs full screen), if one is not."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            return name
    return None


def attached_launches(config: LaunchConfig, args: argparse.Namespace) -> list[tuple[LaunchConfig, str]]:
    """The held pis this window attaches to (app/cli/hold.py), over `config`."""
    from app.cli.hold import attach_launches

    return attach_launches(config, args, os.environ)


def _app_class() -> type[PideckApp]:
    from app.pideck_app import PideckApp

    return PideckApp


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if not served_in_browser():  # (a page's: its size, which Textual's web driver starts at)
        for name in ("COLUMNS", "LINES"):  # a size a shell exported: Textual would take it over the terminal's, resizes unseen
            os.environ.pop(name, None)
    if given[:1] in (["ls"], ["stop"]):  # the pis the holder keeps (app/cli/hold.py)
        from app.cli.hold import ls_main, stop_main

        return printing(lambda: (ls_main if given[0] == "ls" else stop_main)(given[1:], os.environ, sys.stdout))
    attach: list[int] | None = None
    if given[:1] == ["attach"]:
        from app.cli.hold import attach_args, attach_parser

        attach, given = attach_args(given[1:])
        if {"-h", "--help"} & set(given[: given.index("--")] if "--" in given else given):
            return printing(attach_parser().print_help)
    if given[:1] in (["view"], ["replay"]):  # a headless run or a recording, shown read-only (app/cli/view.py)
        from app.cli.view import main as view, replay_main

        return (view if given[0] == "view" else replay_main)(given[1:], restore_signals=argv is not None)
    parsed = printing(lambda: parse_args(given))  # (--help, --version: printed, and their exit status)
    if isinstance(parsed, int):
        return parsed
    args = parsed
    if args.serve:
        from app.cli.serve import serve

        return serve(args)
    if getattr(args, "restore", None) == "list":
        from app.cli.restore import list_desks

        return printing(lambda: list_desks(os.environ, sys.stdout))
    in_browser = served_in_browser()
    if not in_browser and (stream := not_a_terminal()) is not None:
        say(f"pideck: {stream} is not a terminal; pideck runs full screen in one")
        return 2
    if in_browser:
        watch_page(0)  # (its stdin: the server's pipe)
    from app.cli.restore import (
        NothingToRestore,
        drafts_left,
        other_launches,
        print_others,
        restoring,
        save_held,
        save_sessions,
    )

    args.attach = attach
    if attach is not None:
        args.hold = True
    try:
        restored = restoring(args, os.environ)
        config = build_launch(args)
        if restored is not None:  # (its first session, or the held pi that still has it)
            config, restored_draft = restored.launch(config, 0)
        bring_back = attach is not None or (not args.pi_args and args.cwd is None)
        held = attached_launches(config, args) if config.hold and restored is None and bring_back else []
        if held:
            config = held[0][0]
        elif any(arg == "--session" or arg.startswith("--session=") for arg in config.pi_args):
            from app.pi.one_writer import before_start  # (only then: it imports what pi's spawn comes before)

            config = before_start(config)  # a file a held pi has open: that pi, attached
    except NothingToRestore as exc:
        say(f"pideck: {exc}")
        return 1
    except (LaunchError, ProvisionError) as exc:
        if in_browser:
            tell_page(f"pideck: {exc}")
        return refuse(exc)
    except KeyboardInterrupt:
        say("pideck: interrupted")
        return 130
    from app.pi.checkpoint_launch import with_checkpoints
    from app.pi.early_start import behind_pi, start_pi

    config = with_checkpoints(config)
    runner, client = start_pi(config)  # pi boots while the UI is imported
    others = other_launches(config, restored) + held[1:]
    from app.terminal.signals import exit_signals, release_interrupt_key

    with exit_signals(restore=argv is not None) as signals:  # None: run as the command, which ends here
        try:
            # What start-up allocates lives as long as the app: collecting it is wasted (118
            # collections, 35 ms of the imports alone). The app collects again, with what
            # start-up made frozen, once its first frame is drawn (app/gc_pause.py).
            gc.disable()
            # Behind pi (app/pi/early_start.py): Textual and every module that imports it come
            # after, or they would be imported here, at pi's priority.
            app_class = behind_pi(_app_class)
            from app.terminal.colors import query_terminal_colors
            from app.terminal.hangup import HANGUP_EXIT, stdin_fd

            answers = query_terminal_colors(fd) if (fd := stdin_fd()) is not None else None
            app = app_class(config, client=client, terminal_colors=answers[:2] if answers else (None, None),
                            type_ahead=answers.typed if answers else b"", restore=[launch for launch, _ in others],
                            drafts=[restored_draft if restored else held[0][1] if held else "",
                                    *(draft for _, draft in others)],
                            notes=restored.notes if restored else [])
            code = app.run_app(signals, runner)
        finally:
            gc.enable()
            config.close()
        desk = app.desk
        sessions = desk.sessions_at_exit()
        # (after a hang-up too: --restore brings them back)
        written, cut = save_sessions(sessions, args, os.environ, restored)
        save_held(desk.held_at_exit(), desk.held_stopped_at_exit(), args, os.environ)
        if code != HANGUP_EXIT and sys.stdout.isatty() and desk.detached:
            it = "them" if desk.detached > 1 else "it"
            say(f"pideck: detached; {desk.detached} held pi{'s' * (desk.detached > 1)} go{'es' * (desk.detached == 1)} on. "
                f"pideck attach shows {it} again, pideck ls lists {it}, pideck stop ends {it}", file=sys.stdout)
        elif code != HANGUP_EXIT and sys.stdout.isatty():  # the terminal is still there, and a person reads it
            from app.cli.exit_output import print_exit_output

            try:
                shown = desk.slots.index(desk.current) if desk.current in desk.slots else 0
                print_exit_output(desk.current.pi.model, args, desk.current.config, sys.stdout,
                                  started=desk.current.config is config)
                print_others(sessions, shown, args, sys.stdout)
                if (line := drafts_left(sessions, written, cut)) is not None:
                    say(line, file=sys.stdout)
                if kept := sum(slot.pi.kept for slot in desk.slots):
                    say(f"pideck: {kept} held pi{'s' * (kept > 1)} go{'es' * (kept == 1)} on: another window shows "
                        f"{'them' if kept > 1 else 'it'} (pideck ls)", file=sys.stdout)
            except OSError:
                pass  # it went away meanwhile
        elif in_browser:
            tell_server_how_to_resume(args, desk.current.config, desk.current.pi.model.state, desk.detached,
                                      started=desk.current.config is config)
        if (fd := stdin_fd()) is not None:
            release_interrupt_key(fd)
    return code
