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

from app.command_support import guarded
from app.slash_commands import slash_command
from protocol.client import RpcError
from protocol.commands import (
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
from protocol.session_files import session_place
from widgets.prompt_editor import PromptEditor
from widgets.safe_text import clean
from widgets.session_picker import ForkPicker, SessionPicker, one_line
from widgets.tree_view import SessionTreeScreen

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


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


async def _change_session(app: PideckApp, command: Command, what: str, event: str, done: str) -> Any:
    """Send a command that changes pi's session; on success reload and say `done`.

    Its result, or None when an extension cancelled it (`event` names the hook).
    """
    result = await app.client.call(command)
    if result.cancelled:
        app.notify(
            f"An extension cancelled {what} ({event}); the session is unchanged.",
            title=f"{what} cancelled",
            severity="warning",
            markup=False,
        )
        return None
    await _reload(app, done)
    return result


async def _reload(app: PideckApp, message: str) -> None:
    """Transcript, queue, stats and commands of the session pi has now."""
    try:
        await app.reload_session()
    except RpcError as exc:
        app.notify(f"could not reload the session: {exc}", severity="error", markup=False)
        return
    await app.load_commands()
    app.notify(message, markup=False)


@slash_command("new", "Start a new session")
@guarded("/new failed")
async def new_session(app: PideckApp, args: str) -> None:
    if _idle(app, "/new"):
        await _change_session(app, NewSession(), "/new", "session_before_switch", "New session started.")


@slash_command("resume", "Resume a saved session (searchable picker)", usage="[search words | session file]")
@guarded("/resume failed")
async def resume(app: PideckApp, args: str) -> None:
    if not _idle(app, "/resume"):
        return
    config = app.config
    state = app.model.state
    current = state.session_file if state is not None else None
    target = Path(args).expanduser() if args else None
    if target is not None and not target.is_absolute():
        target = app.cwd / target
    if target is None or not target.is_file():  # not a file: the words search the picker
        place = session_place(config.argv, config.env, config.cwd, here=app.cwd)
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
    await _change_session(app, SwitchSession(session_path=str(target)), "/resume", "session_before_switch",
                          f"Resumed: {one_line(title)[:80]}")


async def _fork(app: PideckApp, entry_id: str) -> None:
    """Fork from a user message; its text goes back to the editor, in front of anything typed there."""
    result = await _change_session(app, Fork(entry_id=entry_id), "/fork", "session_before_fork",
                                   "Forked into a new session; the message is back in the editor.")
    if result is not None and result.text:
        app.query_one(PromptEditor).put_before([result.text])


@slash_command("fork", "Fork a new session from an earlier user message")
@guarded("/fork failed")
async def fork(app: PideckApp, args: str) -> None:
    if not _idle(app, "/fork"):
        return
    messages = await app.client.call(GetForkMessages())
    if not messages.messages:
        app.notify("There is no user message to fork from yet.", markup=False)
        return
    entry_id = await app.push_screen_wait(ForkPicker(messages.messages))
    if entry_id is not None:
        await _fork(app, entry_id)


@slash_command("clone", "Copy the current branch into a new session")
@guarded("/clone failed")
async def clone(app: PideckApp, args: str) -> None:
    if _idle(app, "/clone"):
        await _change_session(app, Clone(), "/clone", "session_before_fork",
                              "Cloned the current branch into a new session.")


@slash_command("tree", "Show the session tree; fork from a user message in it")
@guarded("/tree failed")
async def tree(app: PideckApp, args: str) -> None:
    if not _idle(app, "/tree"):
        return
    listing = await app.client.call(GetEntries())
    if not listing.entries:
        app.notify("The session has no entries yet.", markup=False)
        return
    entry_id = await app.push_screen_wait(SessionTreeScreen(listing.entries, listing.leaf_id))
    if entry_id is not None:
        await _fork(app, entry_id)


@slash_command("name", "Name the session (shown in /resume)", usage="<name>")
@guarded("/name failed")
async def name(app: PideckApp, args: str) -> None:
    if not args:
        current = (await app.client.call(GetState())).session_name
        app.notify(
            f"This session is named {clean(current)!r}. /name <name> renames it." if current
            else "This session has no name. /name <name> names it.",
            markup=False,
        )  # fmt: skip
        return
    await app.client.call(SetSessionName(name=args))
    app.refresh_stats()
    app.notify(f"Session named {clean(args)!r}.", markup=False)
