"""/login and /logout: pi's own interactive sign-in in this terminal, then pi's models again.

pi's RPC has no login. `pi auth login <provider>` (browser, device code or API key) and
`pi auth logout <provider>` are pi's own; /login and /logout suspend pideck as Ctrl+Z does
and run them with the command, environment (so the agent directory) and working directory
pideck runs pi with. Without a provider, pi's interactive UI starts instead (with
`--no-session`), where pi's /login and /logout list the providers: pi cannot be started
straight into them (its first message goes to the model), nor into /scoped-models.

A running pi reads credentials when it opens a session, so back in pideck pi reopens the
one it has (switch_session to the same file; the conversation stays) and the models added
or removed are said.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded, refresh_state
from app.pi.launch import pi_command, run_argv
from protocol.wire.commands import GetAvailableModels, SwitchSession
from protocol.state.formatting import model_key


def run_in_foreground(argv: list[str], env: Mapping[str, str], cwd: Path) -> int:
    """Run `argv` on this terminal as its foreground job, in a process group of its own (a
    Ctrl+C there stops it, not pideck); its exit status, or 127 if it cannot start."""
    try:
        child = subprocess.Popen(argv, env=dict(env), cwd=cwd, process_group=0)
    except OSError:
        return 127
    with _foreground(child.pid):
        return child.wait()


@contextmanager
def _foreground(pgid: int) -> Iterator[None]:
    """The terminal's foreground given to process group `pgid` for the block, then back."""
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # no terminal (a test): the child runs in the background
        yield
        return
    try:
        _give_terminal(tty, pgid)
        with suppress(OSError):  # had it read the terminal before it was its own, it stopped
            os.killpg(pgid, signal.SIGCONT)
        yield
    finally:
        _give_terminal(tty, os.getpgrp())
        os.close(tty)


def _give_terminal(tty: int, pgid: int) -> None:
    ignored = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # else a background group may not
    try:
        with suppress(OSError):
            os.tcsetpgrp(tty, pgid)
    finally:
        signal.signal(signal.SIGTTOU, ignored)


def _sign_in_argv(ctx: CommandContext, verb: str, args: str) -> list[str]:
    """`pi auth <verb> <args>` with the pi pideck runs; pi's interactive UI without args (as
    run: over ssh, quoted for the remote shell)."""
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    command = pi_command(ctx.pi.config)
    return run_argv(ctx.pi.config, [*command, "auth", verb, *words] if words else [*command, "--no-session"])


async def _models(ctx: CommandContext) -> set[str]:
    return {model_key(model) for model in (await ctx.pi.client.call(GetAvailableModels())).models}


def _listed(keys: set[str]) -> str:
    shown = sorted(keys)
    return ", ".join(shown[:12]) + (f" and {len(shown) - 12} more" if len(shown) > 12 else "")


async def _sign_in(ctx: CommandContext, verb: str, args: str) -> None:
    what = f"/{verb}"
    if ctx.pi.model.running or ctx.pi.model.steering or ctx.pi.model.follow_up:
        ctx.warn(f"pi is working, and {what} reopens its session to read the change: press Esc to stop it "
                 f"first, then {what} again.", title=f"{what} not now")
        return
    before = await _models(ctx)
    argv = _sign_in_argv(ctx, verb, args)
    status = ctx.desk.shell.run_in_terminal(argv, ctx.pi.cwd)
    if status is None:
        ctx.fail(f"This terminal cannot be handed to pi for {what}.", title=what)
        return
    if status != 0:
        ctx.warn(f"pi's {what} ended with status {status}.", title=what)
    session_file = ctx.pi.model.state.session_file if ctx.pi.model.state is not None else None
    if not session_file:
        ctx.warn(f"pi runs without a session file (--no-session), so it reads the {what[1:]} only when it "
                 "starts again: quit and start pideck again.", title=what, timeout=10)
        return
    result = await ctx.pi.client.call(SwitchSession(session_path=session_file))
    if result.cancelled:
        ctx.warn(f"An extension kept pi from reopening its session, so it has not read the {what[1:]}.", title=what)
        return
    await refresh_state(ctx)
    after = await _models(ctx)
    added, removed = after - before, before - after
    changes = [f"{len(keys)} {label}: {_listed(keys)}" for label, keys in (("added", added), ("removed", removed))
               if keys]
    ctx.say("Models " + "; ".join(changes) if changes else "The available models are the same as before.",
            title=what, timeout=10)


@guarded("/login failed")
async def login(ctx: CommandContext, args: str) -> None:
    await _sign_in(ctx, "login", args)


@guarded("/logout failed")
async def logout(ctx: CommandContext, args: str) -> None:
    await _sign_in(ctx, "logout", args)


COMMANDS = (
    SlashCommand("login", "Log in to a provider with pi's own sign-in (no provider: pi's UI)", login,
                 usage="[provider] [--api-key]"),
    SlashCommand("logout", "Log out of a provider with pi's own sign-out (no provider: pi's UI)", logout,
                 usage="[provider]"),
)
