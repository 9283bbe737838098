"""`pideck view`: a JSON-mode run of pi, or a session file, shown read-only in pideck's
transcript, with no pi child.

The app is pideck's own, over a `ViewClient` instead of pi's: the same session model,
transcript, tool renderers, search, Changes view, copy and themes, on a screen with only
what works without pi (app/view_screen.py). A file is loaded as a session is: a session
file's active branch through `load_messages` (as `/resume`), a JSON-mode file's records
folded into the model as the record pump folds them, at once. A
stream (`-`, a FIFO) goes through the record pump as a live pi's records do, and says when
its run settled and when its writer went away, on the status line (`_view_line`). The
Session pane shows what the records said (`Said`, `view_state`), no defaults of a live pi's.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from collections.abc import Awaitable, Callable
from typing import Any, cast

from app.pi.launch import LaunchConfig, LaunchError, resolve_pi_command
from app.pideck_app import PideckApp
from app.pi.file_reverts import FileReverts, viewed_reverts
from app.pi.record_pump import fold_in_slices
from app.pi.session import PiSession
from app.session_slot import SessionSlot
from app.view_screen import VIEW_COMMANDS, ViewScreen
from app.runtime import ProvisionError
from protocol.wire.client import ChildExited, RpcError
from protocol.wire.commands import ExportHtml
from protocol.wire.entries import SessionHeader
from protocol.wire.events import AgentSettled, MessageEnd, MessageStart, ToolExecutionEnd
from protocol.files.headless_files import SESSION_FILE, Loaded, NotPiOutput, Progress, load_file
from protocol.wire.messages import TextContent
from protocol.files.pi_colors import RGB
from protocol.wire.responses import CommandList, EntryList, ExportResult, LastAssistantText
from protocol.state.run_summary import Said, last_assistant, outcome, view_state, view_stats
from protocol.files.session_context import session_file_lines
from protocol.state.session_model import MessageItem
from protocol.files.view_client import NotPiStream, StreamEnded, ViewClient
from widgets.side_panes import ViewLine


class ViewSession(PiSession):
    """The session of a file's or a stream's records: no pi to restart, no commands to load,
    no child to exit; what a view adds to a flush is its app's (`ViewApp.fold_records`)."""

    fold_with: Callable[[list[Any]], Awaitable[None]]  # the view app's (set once it made the session)

    def can_restart(self) -> bool:
        return False  # nothing to restart: no pi runs

    @property
    def reverts(self) -> FileReverts:
        """Read-only: the checkpoints this machine keeps of the session viewed, for its diffs."""
        if self._reverts is None:
            self._reverts = viewed_reverts(self.config, self.session_id, lambda: self.cwd)
        return self._reverts

    async def load_commands(self) -> None:
        return None

    def _exited(self, exited: ChildExited) -> None:
        return None  # there is no child

    async def fold(self, records: list[Any]) -> None:
        await self.fold_with(records)


class ViewApp(PideckApp):
    session_class = ViewSession
    screen_class = ViewScreen
    slash_commands = VIEW_COMMANDS

    def __init__(self, config: LaunchConfig, client: ViewClient, *, path: Path | None = None,
                 others: tuple[str, ...] = (), terminal_colors: tuple[RGB | None, RGB | None] = (None, None)) -> None:
        """`path`: a file to load, else `client` follows its stream; `others` are the further
        files given, which are not shown."""
        super().__init__(config, client=client, terminal_colors=terminal_colors)
        cast(ViewSession, self.pi).fold_with = self.fold_records
        self.view = client
        self.others = others
        self.path = path
        self.loaded: Loaded | None = None
        self._follow_from: int | None = None  # where to go on reading a file whose run has not settled
        self.load_progress = Progress()
        self.said = Said()  # the settings the stream's records said
        client.answers.update({
            "get_state": lambda _: self._state(),
            "get_session_stats": lambda _: self._stats(),
            "get_last_assistant_text": lambda _: self._last_text(),
            "get_commands": lambda _: CommandList(commands=[]),
            "get_entries": lambda _: self._entries(),
            "export_html": self._export,
        })

    def _file(self) -> str | None:
        return str(self.path) if self.path is not None else None

    def _state(self) -> Any:
        loaded, said = self.loaded, self.said
        return view_state(
            self.session, self.view.header, self._file(), provider=loaded.provider if loaded else None,
            model=loaded.model if loaded else None,
            thinking_level=said.thinking_level or (loaded.thinking_level if loaded else None),
            name=said.name if said.named else loaded.name if loaded else None)

    def _stats(self) -> Any:
        return view_stats(self.session, self.view.header, self._file())

    def _entries(self) -> EntryList:
        """A session file's branch (for /diff); a JSON-mode run has no entries."""
        loaded = self.loaded
        if loaded is None or loaded.kind != SESSION_FILE:
            raise RpcError("a JSON-mode run has no session entries")
        return EntryList(entries=loaded.branch, leaf_id=loaded.branch[-1].id if loaded.branch else None)

    def _last_text(self) -> LastAssistantText:
        last = last_assistant(self.session)
        text = "".join(block.text for block in last.content if isinstance(block, TextContent)) if last else ""
        return LastAssistantText(text=text or None)

    async def _export(self, command: ExportHtml) -> ExportResult:
        """/export: pi's own HTML exporter (`pi --export`, which needs no model) on the session
        file, or on one written from what the view shows (a JSON-mode run has none)."""
        stem = self.path.stem if self.path is not None else "pi-run"
        target = Path(command.output_path or Path(self.config.cwd) / f"{stem}.html")
        with tempfile.TemporaryDirectory(prefix="pideck-export-") as scratch:
            if self.path is not None and self.loaded is not None and self.loaded.kind == SESSION_FILE:
                session_file = self.path
            else:
                header = self.view.header or SessionHeader(id="pideck-view", version=3, cwd=str(self.cwd))
                messages = [item.message for item in self.session.items if isinstance(item, MessageItem)]
                session_file = Path(scratch) / "session.jsonl"
                session_file.write_bytes(b"".join(line + b"\n" for line in session_file_lines(header, messages)))
            try:
                pi = await asyncio.to_thread(resolve_pi_command, None)
            except (LaunchError, ProvisionError) as exc:
                raise RpcError(f"/export needs pi's exporter, and pi cannot be found: {exc}") from None
            env = {**self.config.env, "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1"}
            done = await asyncio.create_subprocess_exec(
                *pi, "--export", str(session_file), str(target), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env, cwd=self.config.cwd)
            output, _ = await done.communicate()
        if done.returncode != 0:
            said = output.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise RpcError(f"pi --export failed (exit {done.returncode}): {' '.join(said) or 'no output'}")
        return ExportResult(path=str(target))

    def _outcome(self) -> tuple[str, str] | None:
        if not self._session_ready:
            return None
        if self.loaded is not None and self.loaded.kind == SESSION_FILE:
            ended = outcome(self.session)
        else:
            ended = outcome(self.session, following=self.view.following,
                            writer_gone=self.view.ended is not None and not self.view.ended.settled)
        return ended.text, ended.severity

    def _from_view(self) -> bool:
        """The Session pane shows what the view read, not pi's answer (only what that holds)."""
        return True

    # --- start-up -------------------------------------------------------------------------

    def start_session(self, slot: SessionSlot) -> None:
        """Nothing to start: the file is loaded, or the stream followed, once the screen is ready."""

    def open_session(self, cwd: Path, pi_args: list[str] | None = None, pi_flag: str | None = None,
                     session: str | None = None) -> SessionSlot:
        raise LaunchError(f"{self.view.program} starts no pi: /open starts one in pideck itself")

    async def _open_source(self) -> None:
        session = self.session
        session.started()
        if self.path is not None:
            since = time.monotonic()
            session.loading(since)
            await self._apply_changes()
            ticking = self.set_interval(0.25, lambda: self._loaded_so_far(since))
            try:
                self.loaded = await asyncio.to_thread(load_file, self.path, self.load_progress)
            except (OSError, NotPiOutput) as exc:
                ticking.stop()
                session.loading(None)
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                await self.pi.could_not_start(f"pideck cannot view {self.path}: {reason}")
                return
            finally:
                ticking.stop()
            self.view.header = self.loaded.header
            await self._show_loaded(self.loaded)
            session.loading(None)
        session.set_state(self._state())
        self.pi.ready = True
        await self._apply_changes()
        await self.view.start()  # a stream's records come through the record pump from now on
        if self._follow_from is not None and self.path is not None:
            self.view.follow_file(str(self.path), self._follow_from)
        self._refresh_view_line()
        await self._apply_changes()
        self.refresh_stats()

    def _loaded_so_far(self, since: float) -> None:
        if self.session.life.loading_since is not None:
            self.session.loading(since, self.load_progress.read)
            self.in_background(self._apply_changes(), "flush")

    async def _show_loaded(self, loaded: Loaded) -> None:
        session = self.session
        if loaded.header is not None and loaded.header.cwd:
            self.cwd = Path(loaded.header.cwd)  # tool paths show relative to the run's directory
        if loaded.kind == SESSION_FILE:
            session.load_messages(loaded.messages)
        else:
            session.load_messages([])
            self.said.take(loaded.records)
            await fold_in_slices(loaded.records, session.apply_all)
        if session.running and self.path is not None:  # no agent_settled yet: pi may still be writing it
            self._follow_from = loaded.end  # once what it holds is shown
            session.banner("view", "This run has not settled in the file: following it as pi writes",
                           "If pi was stopped or the file was cut short, nothing more comes; what it holds is shown.")
        if loaded.skipped:
            session.banner("error", f"{loaded.skipped:,} lines could not be read and were left out",
                           "Lines longer than 512 MiB, or entries of the branch that are not valid JSON.")

    def _refresh_view_line(self) -> None:
        """The status line again: what it says of the view (`_view_line`) may have changed."""
        if self.main.is_mounted:
            self.main.status.refresh_status()

    def _view_line(self) -> ViewLine:
        """What the status line says of the view instead of pi's state."""
        view = self.view
        if view.following:
            how = "following the file" if self.path is not None else "following"
            return ViewLine("read-only view of", view.source, how, live=True)
        if view.ended is not None:
            gone = not view.ended.settled
            return ViewLine("read-only view of", view.source, "writer went away" if gone else "run settled",
                            "error" if gone else "accent")
        return ViewLine("read-only view of", view.source)

    # --- a stream ---------------------------------------------------------------------------

    async def fold_records(self, records: list[Any]) -> None:
        """A flush of the stream's records, and what they say of the view."""
        self.said.take(records)
        header = self.view.header
        if header is not None and header.cwd and self.session.cwd != header.cwd:
            self.cwd = Path(header.cwd)  # the run's folder, as its header says (tool paths are shown from it)
        await PiSession.fold(self.pi, records)
        for record in records:
            if isinstance(record, NotPiStream):
                self.session.banner("error", f"{self.view.source} does not look like pi's output", record.reason)
                await self._apply_changes()
        ended = next((record for record in records if isinstance(record, StreamEnded)), None)
        if ended is not None:
            self._stream_ended(ended)
        if ended is not None or any(isinstance(record, AgentSettled) for record in records):
            self._refresh_view_line()
            await self._apply_changes()
        if any(isinstance(record, _NEW_FACTS) for record in records):
            self.session.set_state(self._state())  # what pi would answer now: the model, the counts
            self.session.set_stats(self._stats())
            await self._apply_changes()

    def _stream_ended(self, ended: StreamEnded) -> None:
        session = self.session
        if session.running or not ended.settled:
            if session.running:
                session.apply(AgentSettled(aborted=True))
            session.banner("error", f"The writer of {self.view.source} went away before the run settled",
                           "pi was stopped or crashed, or the pipe was closed: what it wrote is shown.")
            self.tell.warn(f"{self.view.source}: the writer went away before the run settled", title="View")
        else:
            self.tell.say(f"{self.view.source}: the run settled and its writer closed the stream", title="View")

    def on_ready(self) -> None:
        main = self.main  # (its panes are composed by now)
        main.stats.outcome = self._outcome
        main.stats.from_view = self._from_view
        main.status.viewing = self._view_line
        main.stats.refresh_stats()
        main.status.refresh_status()
        self.run_worker(self._open_source(), name="view", group="session", exclusive=True)

    def on_mount(self) -> None:  # (Textual calls PideckApp's on_mount and on_unmount after these)
        if self.others:
            self.tell.warn(f"pideck view shows one run at a time: only {self.view.source} is shown "
                           f"(not {', '.join(self.others)})", title="View")

    async def on_unmount(self) -> None:
        self.load_progress.cancel()  # a long load stops at its next line


# Records after which the stats pane's model, counts and outcome may have changed.
_NEW_FACTS = (MessageStart, MessageEnd, ToolExecutionEnd, AgentSettled, StreamEnded)
