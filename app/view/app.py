"""`pideck view`: a JSON-mode run of pi, or a session file, shown read-only in pideck's
transcript, with no pi child.

The app is pideck's own, over a `ViewSession` (app/pi/view_session.py) instead of pi's: the
same session model, transcript, tool renderers, search, Changes view, copy and themes, on a
screen with only what works without pi (app/view/screen.py). The session loads the file or
follows the stream and folds what it reads; the app says on the status line how the view
stands (`_view_line`: following, run settled, writer went away), and the Session pane shows
what the records said, no defaults of a live pi's.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from app.desk.desk import Desk
from app.desk.slot import SessionSlot
from app.pi.launch import LaunchConfig, LaunchError
from app.pi.view_session import ViewSession
from app.pideck_app import PideckApp
from app.view.screen import VIEW_COMMANDS, ViewScreen
from protocol.files.pi_colors import RGB
from protocol.files.view_client import ViewClient
from protocol.state.run_summary import outcome
from widgets.panes.side import ViewLine


class ViewDesk(Desk):
    """The one session of a view: nothing starts, and /open starts nothing."""

    session_class = ViewSession
    screen_class = ViewScreen
    commands = VIEW_COMMANDS

    def start_session(self, slot: SessionSlot) -> None:
        """Nothing to start: the file is loaded, or the stream followed, once the screen is ready."""

    def open(self, cwd: Path, pi_args: list[str] | None = None, pi_flag: str | None = None,
             session: str | None = None) -> SessionSlot:
        raise LaunchError(f"{cast(ViewSession, self.current.pi).view.program} starts no pi: /open starts one in pideck itself")


class ViewApp(PideckApp):
    desk_class: type[Desk] = ViewDesk

    def __init__(self, config: LaunchConfig, client: ViewClient, *, path: Path | None = None,
                 others: tuple[str, ...] = (), terminal_colors: tuple[RGB | None, RGB | None] = (None, None)) -> None:
        """`path`: a file to load, else `client` follows its stream; `others` are the further
        files given, which are not shown."""
        super().__init__(config, client=client, terminal_colors=terminal_colors)
        self.view_session.path = path
        self.view_session.view_changed = self._refresh_view_line
        self.others = others

    @property
    def view_session(self) -> ViewSession:
        return cast(ViewSession, self.desk.current.pi)

    @property
    def view(self) -> ViewClient:
        """The file, stream or recording read (the session's client)."""
        return self.view_session.view

    def _outcome(self) -> tuple[str, str] | None:
        if not self.desk.current.pi.ready:
            return None
        if self.view_session.session_file:
            ended = outcome(self.desk.current.pi.model)
        else:
            ended = outcome(self.desk.current.pi.model, following=self.view.following,
                            writer_gone=self.view.ended is not None and not self.view.ended.settled)
        return ended.text, ended.severity

    def _from_view(self) -> bool:
        """The Session pane shows what the view read, not pi's answer (only what that holds)."""
        return True

    def _refresh_view_line(self) -> None:
        """The status line again: what it says of the view (`_view_line`) may have changed."""
        if self.desk.current.main.is_mounted:
            self.desk.current.main.status.refresh_status()

    def _view_line(self) -> ViewLine:
        """What the status line says of the view instead of pi's state."""
        view = self.view
        if view.following:
            how = "following the file" if self.view_session.path is not None else "following"
            return ViewLine("read-only view of", view.source, how, live=True)
        if view.ended is not None:
            gone = not view.ended.settled
            return ViewLine("read-only view of", view.source, "writer went away" if gone else "run settled",
                            "error" if gone else "accent")
        return ViewLine("read-only view of", view.source)

    def on_ready(self) -> None:
        main = self.desk.current.main  # (its panes are composed by now)
        main.stats.outcome = self._outcome
        main.stats.from_view = self._from_view
        main.status.viewing = self._view_line
        main.stats.refresh_stats()
        main.status.refresh_status()
        self.run_worker(self.view_session.open_source(), name="view", group="session", exclusive=True)

    def on_mount(self) -> None:  # (Textual calls PideckApp's on_mount and on_unmount after these)
        if self.others:
            self.tell.warn(f"pideck view shows one run at a time: only {self.view.source} is shown "
                           f"(not {', '.join(self.others)})", title="View")

    async def on_unmount(self) -> None:
        self.view_session.load_progress.cancel()  # a long load stops at its next line
