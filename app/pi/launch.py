"""How pideck starts its pi child: the command, its arguments, environment and directory."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.pi.args import opening_session, without_session_flags
from app.pi.remote import ssh_destination, with_words
from app.terminal.say import say
from app.runtime import (
    MIN_PI_VERSION,
    NODE_VERSION,
    PI_VERSION,
    Progress,
    ProvisionError,
    ensure_runtime,
    pi_version,
    runtime_dir,
)
from protocol.hold.place import unheld_why
from protocol.wire.redact import Redactor

if TYPE_CHECKING:
    from app.scripted_model.demo import Demo
    from protocol.wire.recording import Recorder

# pi flags that make it do something other than serve RPC.
NOT_RPC_FLAGS = frozenset({"--mode", "-p", "--print", "--export", "--list-models", "-h", "--help", "-v", "--version"})


class LaunchError(Exception):
    """The command line asks for something that cannot be launched; the message says why."""


def refuse(exc: LaunchError | ProvisionError) -> int:
    """Say on stderr why pideck cannot start; the exit status: 2 for what the command line
    asked, 1 for a pi runtime that could not be installed."""
    say(f"pideck: {exc}")
    return 2 if isinstance(exc, LaunchError) else 1


@dataclass(frozen=True)
class LaunchConfig:
    argv: tuple[str, ...]
    env: dict[str, str] = field(repr=False)
    cwd: Path
    demo: bool
    protocol_log: Path
    pi_source: str = ""
    """Where pi comes from, for people: `--pi ...`, pi on PATH, or the pinned runtime."""
    demo_server: Demo | None = field(default=None, repr=False, compare=False)
    remote: str | None = None
    """The host pi runs on when the command that runs it is `ssh ...` (app/pi/remote.py)."""
    recorder: Recorder | None = field(default=None, repr=False, compare=False)
    """`--record FILE`: what pi and pideck send each other is written there (protocol/wire/recording.py)."""
    pi_args: tuple[str, ...] = ()
    """The user's own pi arguments (after `--`), which `argv` ends with."""
    demo_args: tuple[str, ...] = ()
    """The demo model's pi arguments, between `--mode rpc` and the user's."""
    pi_flag: str | None = None
    """`--pi`'s command, as given."""
    hold: bool = False
    """pi is the holder's child (`--hold`, protocol/hold/): its runs outlive this window."""
    attach: int | None = None
    """The number of the held pi this window attaches to (`pideck attach`), not one it starts."""
    unheld: str | None = None
    """Why pi is not held though it was to be (protocol.hold.place.unheld_why), said once at start."""
    attach_drafts: tuple[str, ...] = ()
    """The drafts windows left with that pi, which this window takes into its prompt."""
    resumes: int | None = None
    """The number of a held pi the holder closed idle, which this window starts again on its session file."""

    @property
    def brought_back(self) -> bool:
        """A held pi `pideck attach` brings back (attached, or started again on its session file):
        its own launch, not this window's flags."""
        return self.attach is not None or self.resumes is not None

    def close(self) -> None:
        """Stop the demo model (if any) and remove its scratch directory; end the recording."""
        if self.recorder is not None:
            self.recorder.close()
        if self.demo_server is not None:
            self.demo_server.stop()
            shutil.rmtree(self.demo_server.workdir, ignore_errors=True)


def resolve_pi_command(pi_flag: str | None, progress: Progress | None = None) -> list[str]:
    """The command that runs pi: `--pi` split like a shell would (never run by one), else
    `pi` on PATH when it is at least 1.6.0, else the pinned runtime (installed on first use)."""
    if pi_flag is not None:
        return _split_pi_flag(pi_flag)
    on_path = shutil.which("pi")
    if on_path is not None and (pi_version([on_path]) or ()) >= MIN_PI_VERSION:
        return [on_path]
    return ensure_runtime(progress).argv


def pi_command(config: LaunchConfig) -> list[str]:
    """The command that runs pi, without the flags pideck adds and passes (`--mode rpc` and after)."""
    argv = list(config.argv)
    return argv[: argv.index("--mode")] if "--mode" in argv else argv[:1]


def run_argv(config: LaunchConfig, argv: Sequence[str] | None = None) -> list[str]:
    """`argv`, a command pideck built from pi's (`config.argv` when None: `--mode rpc` and
    pi's flags after it), as it is run: over ssh, each word after pi's command quoted for
    the remote shell (`app.pi.remote.with_words`)."""
    argv = list(config.argv if argv is None else argv)
    command = pi_command(config)
    assert argv[: len(command)] == command, "a command pideck built starts with pi's"
    return with_words(command, argv[len(command) :])


def interactive_pi(config: LaunchConfig) -> str:
    """The shell command that starts pi's own interactive UI as pideck runs pi: `pi` when
    that is the pi on PATH, else the whole command (the pinned runtime's Node and cli.js,
    or `--pi`'s), quoted."""
    command = pi_command(config)
    if len(command) == 1 and command[0] == shutil.which("pi"):
        return "pi"
    return shlex.join(command)


def no_model_help(config: LaunchConfig) -> str:
    """What to do when pi has no model (no login, no API key): the exact commands, each on a
    line of its own."""
    return "\n".join([
        "pi found no provider it can use (no login, no API key), so it refuses every prompt. "
        "Any one of these fixes it:",
        "• log in here with pi's own sign-in, then pick a model with /model:",
        "    /login PROVIDER            (add --api-key to give an API key; /login alone: pi's own UI)",
        "• set a provider's API key before starting pideck (pi's docs/providers.md lists them):",
        "    export ANTHROPIC_API_KEY=...",
        "• choose a provider and model you can use:",
        "    pideck -- --provider NAME --model ID",
        "• try the built-in demo model, no key needed:",
        "    pideck --demo",
    ])


def build_launch(args: argparse.Namespace, progress: Progress | None = None) -> LaunchConfig:
    """Combine pideck's parsed flags (`pi`, `demo`, `cwd`, `protocol_log`, `pi_args`) into a launch."""
    cwd = _working_dir(args.cwd)
    protocol_log = _protocol_log(args.protocol_log)
    _check_pi_args(args.pi_args)
    command = resolve_pi_command(args.pi, progress)
    env = dict(os.environ)
    if getattr(args, "notify", None) is not None:
        env["PIDECK_NOTIFY"] = args.notify  # read by app/run_alerts.py
    pi_args = list(args.pi_args)
    demo = None
    if args.demo:
        from app.scripted_model.demo import start_demo  # not imported before pi starts otherwise

        demo = start_demo(Path(tempfile.mkdtemp(prefix="pideck-demo-")))
        env.update(demo.env)
        pi_args = [*demo.pi_args, *pi_args]
    argv = (*command, "--mode", "rpc", *pi_args)
    return LaunchConfig(
        argv=argv,
        env=env,
        cwd=cwd,
        demo=args.demo,
        protocol_log=protocol_log,
        pi_source=_describe(args.pi, command),
        demo_server=demo,
        remote=ssh_destination(command),
        recorder=start_recording(getattr(args, "record", None), argv, env, cwd),
        pi_args=tuple(args.pi_args),
        demo_args=tuple(demo.pi_args) if demo is not None else (),
        pi_flag=args.pi,
        hold=holding(args, env) and demo is None and unheld_why() is None,
        unheld=unheld_why() if holding(args, env) and demo is None else None,
    )


def holding(args: argparse.Namespace, env: Mapping[str, str]) -> bool:
    """Whether pi is to be held: `--hold` or `--no-hold`, else `PIDECK_HOLD` (0, off, no or
    false: not held), else held."""
    chosen = getattr(args, "hold", None)
    if chosen is not None:
        return bool(chosen)
    return env.get("PIDECK_HOLD", "").strip().lower() not in ("0", "off", "no", "false")


def held_launch(base: LaunchConfig, number: int, cwd: str, window: Mapping[str, Any],
                drafts: Sequence[str] = ()) -> LaunchConfig:
    """The launch of held pi `number` (`pideck attach`): its own command and folder, and
    what the window that started it said of it, over this window's `base`; `drafts`, those
    windows left with it, taken."""
    def text(name: str) -> str | None:
        value = window.get(name)
        return value if isinstance(value, str) else None

    def words(name: str) -> tuple[str, ...]:
        value = window.get(name)
        return tuple(value) if isinstance(value, list) and all(isinstance(w, str) for w in value) else ()

    return replace(base, argv=words("argv") or base.argv, cwd=Path(cwd), hold=True, attach=number, demo=False, demo_server=None,
                   recorder=None, pi_source=text("pi_source") or base.pi_source, remote=text("remote"),
                   pi_args=words("pi_args"), demo_args=(), pi_flag=text("pi_flag"), attach_drafts=tuple(drafts))


def resting_launch(base: LaunchConfig, number: int, cwd: str, window: Mapping[str, Any], session_file: str,
                   drafts: Sequence[str] = ()) -> LaunchConfig:
    """The launch that brings back held pi `number`, which the holder closed idle: its own
    command, folder and flags (held_launch), opening `session_file`, under its number."""
    launch = open_launch(replace(held_launch(base, number, cwd, window), attach=None), Path(cwd), session=session_file)
    return replace(launch, resumes=number, attach_drafts=tuple(drafts))


def window_note(config: LaunchConfig) -> dict[str, Any]:
    """What a window tells the holder of a pi it starts, for windows that attach to it later."""
    return {"argv": list(config.argv), "pi_source": config.pi_source, "remote": config.remote, "pi_args": list(config.pi_args),
            "pi_flag": config.pi_flag}


def open_launch(base: LaunchConfig, cwd: Path, pi_args: Sequence[str] | None = None,
                pi_flag: str | None = None, session: str | None = None) -> LaunchConfig:
    """Another session's pi (/open): `base`'s pi in `cwd` (or `pi_flag`'s command), with
    `pi_args`, else `base`'s own pi arguments without those that chose its session (a new
    one opens, or `session`'s file). The demo model and the environment are shared; the
    recording is not.
    Raises LaunchError for a folder or arguments `build_launch` would refuse."""
    if not cwd.is_dir():
        raise LaunchError(f"{cwd}: {'is not a folder' if cwd.exists() else 'does not exist'}")
    argv = list(base.argv)
    if "--mode" in argv:  # pi's command, then `--mode rpc` and the flags pideck and the user gave
        command, given = argv[: argv.index("--mode")], argv[argv.index("--mode") + 2 :]
    else:  # a command that is not pi's (a fake pi in the tests): kept whole
        command, given = argv[: len(argv) - len(base.pi_args)], list(base.pi_args)
    if pi_flag is not None:  # another pi: the flags pideck gave this one are not its
        command, given = _split_pi_flag(pi_flag), [*base.demo_args, *base.pi_args]
    own = list(pi_args) if pi_args is not None else without_session_flags(base.pi_args)
    args = [*base.demo_args, *own] if pi_args is not None else without_session_flags(given)
    if session is not None:
        own, args = opening_session(own, session), opening_session(args, session)
    _check_pi_args(args)
    mode = ["--mode", "rpc"] if pi_flag is not None or "--mode" in argv else []
    return LaunchConfig(
        argv=(*command, *mode, *args),
        env=dict(base.env),
        cwd=cwd.resolve(),
        demo=base.demo,
        protocol_log=base.protocol_log,
        pi_source=f"--pi {pi_flag}" if pi_flag is not None else base.pi_source,
        remote=ssh_destination(command) if pi_flag is not None else base.remote,
        pi_args=tuple(own),
        demo_args=base.demo_args,
        pi_flag=pi_flag if pi_flag is not None else base.pi_flag,
        hold=base.hold,
    )


def check_saved_launch(cwd: str, pi_args: Sequence[str], pi_flag: str | None) -> None:
    """Refuse (LaunchError) what a session saved at a quit asks that cannot start now: a NUL
    byte (no folder name or argument holds one), a folder gone or not one, pi arguments
    pideck refuses, a --pi command not found."""
    if any("\0" in word for word in (cwd, *pi_args, pi_flag or "")):
        raise LaunchError("it holds a NUL byte, which no folder name or argument can hold")
    folder = Path(cwd)
    if not folder.is_dir():
        raise LaunchError(f"{cwd}: {'is not a folder' if folder.exists() else 'does not exist'}")
    _check_pi_args(list(pi_args))
    if pi_flag is not None:
        _split_pi_flag(pi_flag)


def start_recording(path: str | None, argv: Sequence[str], env: dict[str, str], cwd: Path) -> Recorder | None:
    """The recording `--record` asks for, created now so that a path that cannot be written is refused."""
    if path is None:
        return None
    from protocol.wire.recording import Recorder  # (msgspec: not before pi starts, unless recording)

    target = Path(path).expanduser()
    try:
        return Recorder.create(target, argv, Redactor.from_env(env), str(cwd))
    except OSError as exc:
        raise LaunchError(f"--record {path}: {exc.strerror or exc}") from None


def _split_pi_flag(pi_flag: str) -> list[str]:
    try:
        argv = shlex.split(pi_flag)
    except ValueError as exc:
        raise LaunchError(f"--pi {pi_flag!r} cannot be split into a command: {str(exc).lower()}") from None
    if not argv:
        raise LaunchError("--pi needs a command, e.g. --pi pi or --pi 'node /path/to/pi/dist/cli.js'")
    found = shutil.which(argv[0])
    if found is None:
        raise LaunchError(f"--pi: {argv[0]!r} is not an executable file or a command on PATH")
    return [os.path.abspath(found), *argv[1:]]


def check_launch(args: argparse.Namespace, progress: Progress | None = None) -> None:
    """Refuse what `build_launch` refuses and find pi (installing the pinned runtime if it is
    missing), but start nothing: `pideck serve` checks once what each page's pideck will run."""
    _working_dir(args.cwd)
    _protocol_log(args.protocol_log)
    _check_pi_args(args.pi_args)
    record = getattr(args, "record", None)
    if record is not None and not Path(record).expanduser().parent.is_dir():
        raise LaunchError(f"--record {record}: its folder does not exist")
    resolve_pi_command(args.pi, progress)


def _protocol_log(value: str) -> Path:
    path = Path(value).expanduser()
    if path.is_dir():
        raise LaunchError(f"--protocol-log {value}: is a directory; give a file path")
    return path


def _working_dir(value: str | None) -> Path:
    if value is None:
        return Path.cwd()
    path = Path(value).expanduser()
    if not path.is_dir():
        reason = "is not a directory" if path.exists() else "does not exist"
        raise LaunchError(f"--cwd {value}: {reason}")
    return path.resolve()


def _check_pi_args(pi_args: list[str]) -> None:
    for arg in pi_args:
        if arg == "--":
            return
        if arg.split("=", 1)[0] in NOT_RPC_FLAGS:
            raise LaunchError(
                f"{arg} cannot be passed to pi: pideck always runs it with --mode rpc (run pi directly for that)"
            )


def _describe(pi_flag: str | None, command: list[str]) -> str:
    if pi_flag is not None:
        return f"--pi {pi_flag}"
    if len(command) == 1:
        return f"pi on PATH ({command[0]})"
    return f"pinned pi {PI_VERSION} on Node {NODE_VERSION} ({runtime_dir()})"
