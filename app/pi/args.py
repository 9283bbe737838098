"""pi's command-line flags that choose which session it opens, and how to replace them.

A restart after a crash and the resume command printed at exit both open one session with
`--session X`, so every flag that chose a session is dropped first (both forms, `--fork x`
and `--fork=x`). `--name`/`-n` is dropped too: pi writes the name into the session when it
starts, so the session already has it, and passing it again would undo a rename made since.
`--session-dir` stays: it says where sessions are stored and looked up.
"""

from __future__ import annotations

from collections.abc import Sequence

# pi's session-choosing flags (`pi --help`), each with the number of values it takes.
SESSION_FLAGS: dict[str, int] = {
    "--continue": 0, "-c": 0, "--resume": 0, "-r": 0, "--no-session": 0,
    "--session": 1, "--session-id": 1, "--fork": 1, "--name": 1, "-n": 1,
}  # fmt: skip


def without_session_flags(pi_args: Sequence[str]) -> list[str]:
    """`pi_args` for another, new session (/open): without the flags that chose a session
    but `--no-session` (the user's choice not to save one), and without pi's messages."""
    end = list(pi_args).index("--") if "--" in pi_args else len(pi_args)
    kept = opening_session(pi_args[:end], "")[:-2]
    return [*kept, *(["--no-session"] if "--no-session" in pi_args[:end] else [])]


def opening_session(pi_args: Sequence[str], session: str) -> list[str]:
    """`pi_args` without the flags that chose a session, and with `--session session`.

    Arguments after a `--` are pi's messages: they stay as they are, after `--session`.
    """
    kept: list[str] = []
    index = 0
    while index < len(pi_args):
        arg = pi_args[index]
        if arg == "--":
            break
        name, has_value = arg.split("=", 1)[0], "=" in arg
        if name in SESSION_FLAGS:
            index += 1 + (0 if has_value else SESSION_FLAGS[name])
            continue
        kept.append(arg)
        index += 1
    return [*kept, "--session", session, *pi_args[index:]]


def resume_argv(argv: Sequence[str], session_file: str | None) -> tuple[str, ...]:
    """`argv` (ending in `--mode rpc PI_ARGS...`) made to open `session_file` (a restart).

    Without a session file (pi ran with `--no-session`) the command is kept as it was.
    """
    argv = tuple(argv)
    if session_file is None:
        return argv
    start = next((i + 2 for i in range(len(argv) - 1) if argv[i] == "--mode" and argv[i + 1] == "rpc"), len(argv))
    return (*argv[:start], *opening_session(argv[start:], session_file))
