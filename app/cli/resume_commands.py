"""The commands that open a session again: `pideck` (as the user can run it: the script's
path when `pideck` on PATH is not this one) with the flags it was started with and pi's
`--session <id>`. Light on imports: `--restore` reads them before pi is spawned.

Each command is printed to be copied, pasted and run, and never acts on the terminal that
shows it: a word is quoted as `shlex.quote` does, unless it holds a character a terminal acts
on or does not show (a control, a bidi control, a byte of a file name that is not UTF-8); then
as bash's ANSI-C quoting (`$'...'`, which zsh and ksh read too), those characters as `\\xHH`,
so the command is printable and the shell rebuilds the word byte for byte.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.pi.args import opening_session
from app.pi.launch import LaunchConfig

if TYPE_CHECKING:
    from protocol.wire.responses import SessionState


def shell_word(word: str) -> str:
    """`word` quoted for the shell, printable (see the module's docstring)."""
    if word.isprintable():
        return shlex.quote(word)
    quoted = []
    for char in word:
        if char in "\\'":
            quoted.append("\\" + char)
        elif char.isprintable():
            quoted.append(char)
        else:
            quoted.extend(f"\\x{byte:02x}" for byte in _bytes(char))
    return "$'" + "".join(quoted) + "'"


def _bytes(char: str) -> bytes:
    try:
        return char.encode("utf-8", "surrogateescape")  # a file name's byte that is not UTF-8: that byte
    except UnicodeEncodeError:
        return char.encode("utf-8", "surrogatepass")


def shell_join(words: list[str]) -> str:
    """`words` as one printable shell command."""
    return " ".join(shell_word(word) for word in words)


def pideck_program() -> str:
    """How the user runs this pideck again: `pideck` when that is the one on PATH, else the
    path of the script that runs it (`make demo` runs .venv/bin/pideck, not on PATH; a page
    of `pideck serve`, run as `python -m app`, names its Python's `pideck`)."""
    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == "__main__.py":
        script = os.path.join(os.path.dirname(sys.executable), "pideck")
    if os.path.basename(script) != "pideck" or not os.path.isfile(script):
        return "pideck"  # run some other way (the tests call pideck's functions): its name
    found = shutil.which("pideck")
    if found is not None and os.path.samefile(found, script):
        return "pideck"
    return os.path.abspath(script)


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
    return shell_join([pideck_program(), *own, "--", *opening_session(list(config.pi_args), state.session_id)])


def resume_line(args: argparse.Namespace, config: LaunchConfig, state: SessionState | None, started: bool) -> str | None:
    """The command that opens a session again: `resume_command` for the one pideck was
    started with, else (one /open started, a held pi `pideck attach` showed) its launch's."""
    return resume_command(args, state) if started and not config.brought_back else session_resume(config, state)


def resume_command(args: argparse.Namespace, state: SessionState | None) -> str | None:
    """`pideck` with the flags it was started with and `--session <id>` for pi, in place of
    any flag that chose a session; None when the session is not saved."""
    if state is None or not saved(state):
        return None
    own = ["--demo"] if args.demo else []
    for flag, value in (("--pi", args.pi), ("--cwd", args.cwd)):
        if value is not None:
            own += [flag, value]
    return shell_join([pideck_program(), *own, "--", *opening_session(args.pi_args, state.session_id)])
