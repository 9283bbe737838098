"""The commands over the sessions open in pideck: /open, /close, /sessions and /detach.

`/open [--pi CMD] [DIR] [-- PI_ARGS]` starts another pi in DIR (default: the folder of the
session shown), with PI_ARGS, else with the first session's pi arguments but those that
chose its session; `--pi` runs another command (`--pi 'ssh box pi'`: pi on that host).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from app.commands.context import CommandContext, SlashCommand
from app.pi.launch import LaunchError
from app.runtime import ProvisionError
from widgets.text.safe import clean
from widgets.screens.sessions_picker import SessionsPicker

OPEN_USAGE = "[--pi CMD] [DIR] [-- PI_ARGS]"


def parse_open(args: str, cwd: Path, home: str | None) -> tuple[Path, list[str] | None, str | None]:
    """/open's folder (relative to `cwd`, `~` as `home`), pi arguments (None: the first
    session's) and --pi command. Raises ValueError saying what is wrong."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise ValueError(f"/open {OPEN_USAGE}: {str(exc).lower()}") from None
    pi_args: list[str] | None = None
    if "--" in words:
        at = words.index("--")
        words, pi_args = words[:at], words[at + 1 :]
    pi_flag: str | None = None
    folders: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--pi" or word.startswith("--pi="):
            if "=" in word:
                pi_flag = word.split("=", 1)[1]
            elif words:
                pi_flag = words.pop(0)
            else:
                raise ValueError("/open --pi needs a command, e.g. /open --pi 'ssh box pi'")
        elif word.startswith("-"):
            raise ValueError(f"/open: unknown option {word[:40]} (pi's options go after --)")
        else:
            folders.append(word)
    if len(folders) > 1:
        raise ValueError(f"/open takes one folder, not {len(folders)}: {OPEN_USAGE}")
    folder = cwd
    if folders:
        given = folders[0]
        if given == "~" or given.startswith("~/"):
            given = (home or str(Path.home())) + given[1:]
        folder = (cwd / given) if not Path(given).is_absolute() else Path(given)
    return folder, pi_args, pi_flag


async def open_command(ctx: CommandContext, args: str) -> None:
    try:
        folder, pi_args, pi_flag = parse_open(args, ctx.pi.cwd, ctx.pi.config.env.get("HOME"))
        ctx.desk.open(folder, pi_args, pi_flag)
    except (ValueError, LaunchError, ProvisionError) as exc:
        ctx.fail(clean(str(exc)), title="/open")


async def close_command(ctx: CommandContext, args: str) -> None:
    await ctx.desk.close(ctx.desk.slot_of(ctx.pi))


async def detach_command(ctx: CommandContext, args: str) -> None:
    if not ctx.desk.detach():
        ctx.fail("pi runs in this window, not held (started with --no-hold or PIDECK_HOLD=0, or --demo): "
                 "it would end with the window, so there is nothing to detach", title="/detach")


async def sessions_command(ctx: CommandContext, args: str) -> None:
    lines = ctx.desk.lines()
    if not lines:
        ctx.say("One session is open. /open [DIR] [-- PI_ARGS] starts another", title="Sessions")
        return
    chosen = await ctx.ask(SessionsPicker(lines))
    if chosen is not None:
        ctx.desk.show(chosen)


COMMANDS = [
    SlashCommand("open", "Start another pi session, in a folder, with pi's flags", open_command, OPEN_USAGE),
    SlashCommand("close", "End this session's pi (the last one quits pideck)", close_command),
    SlashCommand("sessions", "List the open sessions and show one", sessions_command),
    SlashCommand("detach", "Leave this window; held pis go on (pideck attach brings them back)", detach_command),
]
