"""Session `/` commands: /new, /resume, /fork, /clone, /tree and /name.

Each runs in a worker (see `PideckApp.submit`), so pickers are shown with
`push_screen_wait`. After pi changed the session the transcript, queue, stats and
command list are reloaded. An extension that cancels (`session_before_switch`,
`session_before_fork`) answers `cancelled: true`; that is reported as a warning.
Switching while pi works is refused: pi would abort the run and drop queued messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.slash_commands import slash_command
from protocol.client import RpcError
from protocol.commands import (
    Clone,
    Command,
    Fork,
    GetCommands,
    GetEntries,
    GetForkMessages,
    GetState,
    NewSession,
    SetSessionName,
    SwitchSession,
)
from protocol.session_files import session_place
from widgets.prompt_editor import PromptEditor
from widgets.safe_text import clean
from widgets.session_picker import ForkPicker, SessionPicker, one_line
from widgets.tree_view import SessionTreeScreen

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


async def _call(app: PideckApp, command: Command, what: str) -> Any:
    """pi's answer to `command`, or None after telling the user why it failed."""
    try:
        return await app.client.call(command)
    except RpcError as exc:
        app.notify(clean(str(exc)), title=f"{what} failed", severity="error", markup=False)
        return None


def _idle(app: PideckApp, what: str) -> bool:
    """False (and says why) while pi works or holds queued messages."""
    if app.model.running or app.model.steering or app.model.follow_up:
        app.notify(
            f"pi is working: press Esc to stop it first (queued messages come back to the editor), then {what} again.",
            title=f"{what} not now",
            severity="warning",
            markup=False,
        )
        return False
    return True


def _cancelled(app: PideckApp, what: str, event: str) -> None:
    app.notify(
        f"An extension cancelled {what} ({event}); the session is unchanged.",
        title=f"{what} cancelled",
        severity="warning",
        markup=False,
    )


async def _reload(app: PideckApp, message: str) -> None:
    """Transcript, queue, stats and commands of the session pi has now."""
    try:
        await app.reload_session()
        app.commands = (await app.client.call(GetCommands())).commands
    except RpcError as exc:
        app.notify(f"could not reload the session: {exc}", severity="error", markup=False)
        return
    app.notify(message, markup=False)


def _put_in_editor(app: PideckApp, text: str) -> None:
    """The forked message goes back to the editor, in front of anything typed there."""
    editor = app.query_one(PromptEditor)
    editor.load(f"{text}\n\n{editor.text}" if editor.text.strip() else text)


@slash_command("new", "Start a new session")
async def new_session(app: PideckApp, args: str) -> None:
    if not _idle(app, "/new"):
        return
    result = await _call(app, NewSession(), "/new")
    if result is None:
        return
    if result.cancelled:
        _cancelled(app, "/new", "session_before_switch")
        return
    await _reload(app, "New session started.")


@slash_command("resume", "Resume a saved session (searchable picker)", usage="[search words | session file]")
async def resume(app: PideckApp, args: str) -> None:
    if not _idle(app, "/resume"):
        return
    config = app.config
    state = app.model.state
    current = state.session_file if state is not None else None
    target = Path(args).expanduser() if args else None
    if target is not None and not target.is_absolute():
        target = config.cwd / target
    if target is None or not target.is_file():  # not a file: the words search the picker
        place = session_place(config.argv, config.env, config.cwd)
        picker = SessionPicker(
            lambda everywhere: place.sessions(everywhere=everywhere),
            current=current,
            where=str(place.directory),
            query=args,
        )
        chosen = await app.push_screen_wait(picker)
        if chosen is None:
            return
        target = chosen.path
        title = chosen.title
    else:
        title = target.name
    if current is not None and str(target) == current:
        app.notify("That is the session already open.", markup=False)
        return
    result = await _call(app, SwitchSession(session_path=str(target)), "/resume")
    if result is None:
        return
    if result.cancelled:
        _cancelled(app, "/resume", "session_before_switch")
        return
    await _reload(app, f"Resumed: {one_line(title)[:80]}")


async def _fork(app: PideckApp, entry_id: str) -> None:
    result = await _call(app, Fork(entry_id=entry_id), "/fork")
    if result is None:
        return
    if result.cancelled:
        _cancelled(app, "/fork", "session_before_fork")
        return
    await _reload(app, "Forked into a new session; the message is back in the editor.")
    if result.text:
        _put_in_editor(app, result.text)


@slash_command("fork", "Fork a new session from an earlier user message")
async def fork(app: PideckApp, args: str) -> None:
    if not _idle(app, "/fork"):
        return
    messages = await _call(app, GetForkMessages(), "/fork")
    if messages is None:
        return
    if not messages.messages:
        app.notify("There is no user message to fork from yet.", markup=False)
        return
    entry_id = await app.push_screen_wait(ForkPicker(messages.messages))
    if entry_id is not None:
        await _fork(app, entry_id)


@slash_command("clone", "Copy the current branch into a new session")
async def clone(app: PideckApp, args: str) -> None:
    if not _idle(app, "/clone"):
        return
    result = await _call(app, Clone(), "/clone")
    if result is None:
        return
    if result.cancelled:
        _cancelled(app, "/clone", "session_before_fork")
        return
    await _reload(app, "Cloned the current branch into a new session.")


@slash_command("tree", "Show the session tree; fork from a user message in it")
async def tree(app: PideckApp, args: str) -> None:
    if not _idle(app, "/tree"):
        return
    listing = await _call(app, GetEntries(), "/tree")
    if listing is None:
        return
    if not listing.entries:
        app.notify("The session has no entries yet.", markup=False)
        return
    entry_id = await app.push_screen_wait(SessionTreeScreen(listing.entries, listing.leaf_id))
    if entry_id is not None:
        await _fork(app, entry_id)


@slash_command("name", "Name the session (shown in /resume)", usage="<name>")
async def name(app: PideckApp, args: str) -> None:
    if not args:
        state = await _call(app, GetState(), "/name")
        current = state.session_name if state is not None else None
        app.notify(
            f"This session is named {clean(current)!r}. /name <name> renames it." if current
            else "This session has no name. /name <name> names it.",
            markup=False,
        )  # fmt: skip
        return
    if await _call(app, SetSessionName(name=args), "/name") is None:
        return
    app.refresh_stats()
    app.notify(f"Session named {clean(args)!r}.", markup=False)
