"""Session `/` commands: /new, /resume, /fork, /clone, /tree and /name.

Each runs in a worker (see `PideckApp.submit`), so pickers are shown with
`push_screen_wait`. After pi changed the session the transcript, queue, stats and
command list are reloaded. An extension that cancels (`session_before_switch`,
`session_before_fork`) answers `cancelled: true`; that is reported as a warning.
Switching while pi works is refused: pi would abort the run and drop queued messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded
from app.pi.launch import LaunchError
from app.pi.settings import tree_filter
from app.pi.remote import needs_local_pi
from protocol.wire.client import RpcError
from protocol.wire.commands import (
    Clone,
    Command,
    Fork,
    GetEntries,
    GetForkMessages,
    GetState,
    NewSession,
    SetSessionName,
    SwitchSession,
)
from protocol.files.session_files import session_place
from protocol.hold import session_claims
from widgets.text.safe import clean
from widgets.screens.session_picker import ForkPicker, SessionPicker, one_line
from widgets.screens.tree_view import SessionTreeScreen


def _idle(ctx: CommandContext, what: str) -> bool:
    """False (and says why) while pi works or holds queued messages."""
    if ctx.pi.model.running or ctx.pi.model.steering or ctx.pi.model.follow_up:
        ctx.warn(
            f"pi is working: press Esc to stop it first (queued messages come back to the editor), then {what} again.",
            title=f"{what} not now",
        )
        return False
    return True


async def _change_session(ctx: CommandContext, command: Command, what: str, event: str, done: str) -> Any:
    """Send a command that changes pi's session; on success reload and say `done`.

    Its result, or None when an extension cancelled it (`event` names the hook).
    """
    result = await ctx.pi.client.call(command)
    if result.cancelled:
        ctx.warn(f"An extension cancelled {what} ({event}); the session is unchanged.", title=f"{what} cancelled")
        return None
    await _reload(ctx, done)
    return result


async def _reload(ctx: CommandContext, message: str) -> None:
    """Transcript, queue, stats and commands of the session pi has now."""
    try:
        await ctx.pi.reload()
    except RpcError as exc:
        ctx.fail(f"could not reload the session: {exc}")
        return
    await ctx.pi.load_commands()
    ctx.say(message)


@guarded("/new failed")
async def new_session(ctx: CommandContext, args: str) -> None:
    if _idle(ctx, "/new"):
        await _change_session(ctx, NewSession(), "/new", "session_before_switch", "New session started.")


@guarded("/resume failed")
async def resume(ctx: CommandContext, args: str) -> None:
    if not _idle(ctx, "/resume"):
        return
    config = ctx.pi.config
    state = ctx.pi.model.state
    current = state.session_file if state is not None else None
    if config.remote is not None:
        await _resume_remote(ctx, args, config.remote, current)
        return
    target = Path(args).expanduser() if args else None
    if target is not None and not target.is_absolute():
        target = ctx.pi.cwd / target
    if target is None or not target.is_file():  # not a file: the words search the picker
        place = session_place(config.argv, config.env, config.cwd, here=ctx.pi.cwd)
        picker = SessionPicker(
            lambda everywhere: place.sessions(everywhere=everywhere),
            current=current,
            where=str(place.directory),
            query=args,
        )
        chosen = await ctx.ask(picker)
        if chosen is None:
            return
        if picker.beside:  # Alt+Enter: beside this one, in its own pi
            folder = Path(chosen.cwd) if chosen.cwd and Path(chosen.cwd).is_dir() else ctx.pi.cwd
            try:
                ctx.desk.open(folder, None, None, session=str(chosen.path))
            except LaunchError as exc:
                ctx.fail(str(exc), title="/resume")
            return
        target = chosen.path
        title = chosen.title
        folder = Path(chosen.cwd) if chosen.cwd and Path(chosen.cwd).is_dir() else ctx.pi.cwd
    else:
        title, folder = target.name, ctx.pi.cwd
    if current is not None and str(target) == current:
        ctx.say("That is the session already open.")
        return
    if _open_elsewhere(ctx, str(target), None, folder):
        return
    await _change_session(ctx, SwitchSession(session_path=str(target)), "/resume", "session_before_switch",
                          f"Resumed: {one_line(title)[:80]}")


async def _resume_remote(ctx: CommandContext, path: str, host: str, current: str | None) -> None:
    """/resume FILE with pi on another host: the path goes as typed, for pi to find there."""
    if not path.endswith(".jsonl"):
        ctx.warn(f"{needs_local_pi('The /resume picker', host)} Give /resume the session file's path there "
                 "(/session shows the current one's), or start pideck with -- --continue.", title="/resume")  # fmt: skip
        return
    if path == current:
        ctx.say("That is the session already open.")
        return
    if _open_elsewhere(ctx, path, host, ctx.pi.cwd):
        return
    await _change_session(ctx, SwitchSession(session_path=path), "/resume", "session_before_switch",
                          f"Resumed: {one_line(path)[-80:]}")


def _open_elsewhere(ctx: CommandContext, session_file: str, host: str | None, folder: Path) -> bool:
    """A session file another pi has open is not switched to (two pis would write it): it opens
    beside, where that pi is shown (attached, or the session of this window that has it), or
    pideck says why it cannot be (app/pi/one_writer.py). False when no other pi has it."""
    if session_claims.owner(session_file, host, ctx.pi.config.env) is None:
        return False
    try:
        ctx.desk.open(folder, None, None, session=session_file)
    except LaunchError as exc:
        ctx.fail(str(exc), title="/resume")
    return True


async def _fork(ctx: CommandContext, entry_id: str) -> None:
    """Fork from a user message; its text goes back to the editor, in front of anything typed there."""
    result = await _change_session(ctx, Fork(entry_id=entry_id), "/fork", "session_before_fork",
                                   "Forked into a new session; the message is back in the editor.")
    if result is not None and result.text:
        ctx.screen.editor.put_before([result.text])


@guarded("/fork failed")
async def fork(ctx: CommandContext, args: str) -> None:
    if not _idle(ctx, "/fork"):
        return
    messages = await ctx.pi.client.call(GetForkMessages())
    if not messages.messages:
        ctx.say("There is no user message to fork from yet.")
        return
    entry_id = await ctx.ask(ForkPicker(messages.messages))
    if entry_id is not None:
        await _fork(ctx, entry_id)


@guarded("/clone failed")
async def clone(ctx: CommandContext, args: str) -> None:
    if _idle(ctx, "/clone"):
        await _change_session(ctx, Clone(), "/clone", "session_before_fork",
                              "Cloned the current branch into a new session.")


@guarded("/tree failed")
async def tree(ctx: CommandContext, args: str) -> None:
    if not _idle(ctx, "/tree"):
        return
    listing = await ctx.pi.client.call(GetEntries())
    if not listing.entries:
        ctx.say("The session has no entries yet.")
        return
    entry_id = await ctx.ask(SessionTreeScreen(listing.entries, listing.leaf_id, tree_filter(ctx.pi.config)))
    if entry_id is not None:
        await _fork(ctx, entry_id)


@guarded("/name failed")
async def name(ctx: CommandContext, args: str) -> None:
    if not args:
        current = (await ctx.pi.client.call(GetState())).session_name
        ctx.say(
            f"This session is named {clean(current)!r}. /name <name> renames it." if current
            else "This session has no name. /name <name> names it.",
        )  # fmt: skip
        return
    await ctx.pi.client.call(SetSessionName(name=args))
    ctx.refresh()
    ctx.say(f"Session named {clean(args)!r}.")


COMMANDS = (
    SlashCommand("new", "Start a new session", new_session),
    SlashCommand("resume", "Resume a saved session (searchable picker)", resume, usage="[search words | session file]"),
    SlashCommand("fork", "Fork a new session from an earlier user message", fork),
    SlashCommand("clone", "Copy the current branch into a new session", clone),
    SlashCommand("tree", "Show the session tree; fork from a user message in it", tree),
    SlashCommand("name", "Name the session (shown in /resume)", name, usage="<name>"),
)
