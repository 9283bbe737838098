"""The session of `pideck view` and `pideck replay`: records read from a file, a stream or a
recording instead of a pi child, folded into the same session model.

`ViewSession` loads a file (a session file's active branch through `load_messages`, a
JSON-mode run's records folded at once), follows a stream through the record pump, notes
what the records said (`Said`) and when the run settled or its writer went away, and answers
what pideck asks pi (state, stats, entries, the last answer, /export) from what it read.
`ReplaySession` plays a recording, taking pi's recorded answers where they come. What the
status line says of either is the app's (app/view/app.py); it is told when that changes.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.pi.file_reverts import FileReverts, viewed_reverts
from app.pi.launch import LaunchConfig, LaunchError, resolve_pi_command
from app.pi.record_pump import fold_in_slices
from app.pi.session import PiSession, SessionHost
from app.runtime import ProvisionError
from protocol.files.headless_files import SESSION_FILE, Loaded, NotPiOutput, Progress, load_file
from protocol.files.session_context import session_file_lines
from protocol.files.view_client import NotPiStream, ReplayClient, StreamEnded, ViewClient
from protocol.state.run_summary import Said, last_assistant, view_state, view_stats
from protocol.state.session_model import MessageItem
from protocol.wire.client import ChildExited, RpcClient, RpcError
from protocol.wire.commands import ExportHtml
from protocol.wire.entries import SessionHeader
from protocol.wire.events import AgentSettled, MessageEnd, MessageStart, ToolExecutionEnd
from protocol.wire.messages import TextContent
from protocol.wire.recording import Skipped
from protocol.wire.responses import (CommandList, EntryList, ExportResult, LastAssistantText, MessageList, Response,
                                     SessionState, SessionStats)

# Records after which the stats pane's model, counts and outcome may have changed.
_NEW_FACTS = (MessageStart, MessageEnd, ToolExecutionEnd, AgentSettled, StreamEnded)


class ViewSession(PiSession):
    """A file's or a stream's records as a session: no pi to restart, no commands to load, no
    child to exit."""

    writes = False  # (a session file another pi has open is read, never claimed)

    def __init__(self, config: LaunchConfig, host: SessionHost, client: RpcClient | None = None) -> None:
        if not isinstance(client, ViewClient):
            raise TypeError("a view's session reads a ViewClient")
        super().__init__(config, host, client)
        self.view = client
        self.path: Path | None = None  # a file to load (else the client follows its stream)
        self.loaded: Loaded | None = None
        self._follow_from: int | None = None  # where to go on reading a file whose run has not settled
        self.load_progress = Progress()
        self.said = Said()  # the settings the stream's records said
        self.view_changed: Callable[[], None] = lambda: None  # what the status line says of the view changed
        client.answers.update({
            "get_state": lambda _: self.state(),
            "get_session_stats": lambda _: self.stats(),
            "get_last_assistant_text": lambda _: self._last_text(),
            "get_commands": lambda _: CommandList(commands=[]),
            "get_entries": lambda _: self._entries(),
            "export_html": self._export,
        })

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

    @property
    def session_file(self) -> bool:
        """A saved session file is shown (not a JSON-mode run nor a stream)."""
        return self.loaded is not None and self.loaded.kind == SESSION_FILE

    # --- what pi would answer -------------------------------------------------------------

    def _file(self) -> str | None:
        return str(self.path) if self.path is not None else None

    def state(self) -> Any:
        loaded, said = self.loaded, self.said
        return view_state(
            self.model, self.view.header, self._file(), provider=loaded.provider if loaded else None,
            model=loaded.model if loaded else None,
            thinking_level=said.thinking_level or (loaded.thinking_level if loaded else None),
            name=said.name if said.named else loaded.name if loaded else None)

    def stats(self) -> Any:
        return view_stats(self.model, self.view.header, self._file())

    def _entries(self) -> EntryList:
        """A session file's branch (for /diff); a JSON-mode run has no entries."""
        loaded = self.loaded
        if loaded is None or loaded.kind != SESSION_FILE:
            raise RpcError("a JSON-mode run has no session entries")
        return EntryList(entries=loaded.branch, leaf_id=loaded.branch[-1].id if loaded.branch else None)

    def _last_text(self) -> LastAssistantText:
        last = last_assistant(self.model)
        text = "".join(block.text for block in last.content if isinstance(block, TextContent)) if last else ""
        return LastAssistantText(text=text or None)

    async def _export(self, command: ExportHtml) -> ExportResult:
        """/export: pi's own HTML exporter (`pi --export`, which needs no model) on the session
        file, or on one written from what the view shows (a JSON-mode run has none)."""
        stem = self.path.stem if self.path is not None else "pi-run"
        target = Path(command.output_path or Path(self.config.cwd) / f"{stem}.html")
        with tempfile.TemporaryDirectory(prefix="pideck-export-") as scratch:
            if self.path is not None and self.session_file:
                session_file = self.path
            else:
                header = self.view.header or SessionHeader(id="pideck-view", version=3, cwd=str(self.cwd))
                messages = [item.message for item in self.model.items if isinstance(item, MessageItem)]
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

    # --- start-up -------------------------------------------------------------------------

    async def open_source(self) -> None:
        """Load the file, or start following the stream (once the screen is ready)."""
        model = self.model
        model.started()
        if self.path is not None:
            since = time.monotonic()
            model.loading(since)
            await self.apply_changes()
            ticking = self.host.set_interval(0.25, lambda: self._loaded_so_far(since))
            try:
                self.loaded = await asyncio.to_thread(load_file, self.path, self.load_progress)
            except (OSError, NotPiOutput) as exc:
                ticking.stop()
                model.loading(None)
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                await self.could_not_start(f"pideck cannot view {self.path}: {reason}")
                return
            finally:
                ticking.stop()
            self.view.header = self.loaded.header
            await self._show_loaded(self.loaded)
            model.loading(None)
        model.set_state(self.state())
        self.ready = True
        await self.apply_changes()
        await self.view.start()  # a stream's records come through the record pump from now on
        if self._follow_from is not None and self.path is not None:
            self.view.follow_file(str(self.path), self._follow_from)
        self.view_changed()
        await self.apply_changes()
        self.host.in_background(self.refresh_stats(), "stats")

    def _loaded_so_far(self, since: float) -> None:
        if self.model.life.loading_since is not None:
            self.model.loading(since, self.load_progress.read)
            self.host.in_background(self.apply_changes(), "flush")

    async def _show_loaded(self, loaded: Loaded) -> None:
        model = self.model
        if loaded.header is not None and loaded.header.cwd:
            self.cwd = Path(loaded.header.cwd)  # tool paths show relative to the run's directory
        if loaded.kind == SESSION_FILE:
            model.load_messages(loaded.messages)
        else:
            model.load_messages([])
            self.said.take(loaded.records)
            await fold_in_slices(loaded.records, model.apply_all)
        if model.running and self.path is not None:  # no agent_settled yet: pi may still be writing it
            self._follow_from = loaded.end  # once what it holds is shown
            model.banner("view", "This run has not settled in the file: following it as pi writes",
                         "If pi was stopped or the file was cut short, nothing more comes; what it holds is shown.")
        if loaded.skipped:
            model.banner("error", f"{loaded.skipped:,} lines could not be read and were left out",
                         "Lines longer than 512 MiB, or entries of the branch that are not valid JSON.")

    # --- a stream ---------------------------------------------------------------------------

    async def fold(self, records: list[Any]) -> None:
        """A flush of the stream's records, and what they say of the view."""
        self.said.take(records)
        header = self.view.header
        if header is not None and header.cwd and self.model.cwd != header.cwd:
            self.cwd = Path(header.cwd)  # the run's folder, as its header says (tool paths are shown from it)
        await super().fold(records)
        for record in records:
            if isinstance(record, NotPiStream):
                self.model.banner("error", f"{self.view.source} does not look like pi's output", record.reason)
                await self.apply_changes()
        ended = next((record for record in records if isinstance(record, StreamEnded)), None)
        if ended is not None:
            self._stream_ended(ended)
        if ended is not None or any(isinstance(record, AgentSettled) for record in records):
            self.view_changed()
            await self.apply_changes()
        if any(isinstance(record, _NEW_FACTS) for record in records):
            self.model.set_state(self.state())  # what pi would answer now: the model, the counts
            self.model.set_stats(self.stats())
            await self.apply_changes()

    def _stream_ended(self, ended: StreamEnded) -> None:
        model = self.model
        if model.running or not ended.settled:
            if model.running:
                model.apply(AgentSettled(aborted=True))
            model.banner("error", f"The writer of {self.view.source} went away before the run settled",
                         "pi was stopped or crashed, or the pipe was closed: what it wrote is shown.")
            self.tell.warn(f"{self.view.source}: the writer went away before the run settled", title="View")
        else:
            self.tell.say(f"{self.view.source}: the run settled and its writer closed the stream", title="View")


class ReplaySession(ViewSession):
    """A recording played back: pi's lines at their pace, pi's recorded answers (the state,
    the session's messages, its stats) taken in their place, as the live app took them."""

    def __init__(self, config: LaunchConfig, host: SessionHost, client: RpcClient | None = None) -> None:
        super().__init__(config, host, client)
        self.recorded_state: SessionState | None = None
        self.recorded_stats: SessionStats | None = None

    @property
    def replay(self) -> ReplayClient:
        assert isinstance(self.view, ReplayClient)
        return self.view

    def state(self) -> Any:
        return self.recorded_state if self.recorded_state is not None else super().state()

    def stats(self) -> Any:
        return self.recorded_stats if self.recorded_stats is not None else view_stats(self.model, None, None)

    async def fold(self, records: list[Any]) -> None:
        """The records in order, pi's recorded answers taken where they come."""
        segment: list[Any] = []
        if any(isinstance(record, Skipped) for record in records):
            self.view_changed()  # (the count of lines skipped)
        for record in records:
            if isinstance(record, Response):
                if segment:
                    await super().fold(segment)
                    segment = []
                await self._take_answer(record)
            else:
                segment.append(record)
        if segment:
            await super().fold(segment)

    async def _take_answer(self, response: Response) -> None:
        data = response.data if response.success and response.data_error is None else None
        if isinstance(data, SessionState):
            self.recorded_state = data
            self.model.set_state(data)
        elif isinstance(data, SessionStats):
            self.recorded_stats = data
            self.model.set_stats(data)
        elif isinstance(data, MessageList):
            self.model.load_messages(data.messages)  # as the live app's reload_session
        else:
            return
        await self.apply_changes()

    def _stream_ended(self, ended: StreamEnded) -> None:
        client = self.replay
        code = "" if client.exit_code is None else f"; pi exited then (code {client.exit_code})"
        skipped = ""
        if client.skipped:
            where = client.protocol_log.where if client.protocol_log is not None else "nowhere"
            skipped = (f"; {client.skipped:,} {'line' if client.skipped == 1 else 'lines'} of it could not be played "
                       f"and {'was' if client.skipped == 1 else 'were'} passed over (logged: {where})")
        if client.failure is not None:
            self.model.banner("error", f"The replay of {client.source} stopped", client.failure)
            self.tell.fail(f"The replay of {client.source} stopped: {client.failure}{skipped}", title="Replay")
        elif client.skipped:
            self.tell.warn(f"The recording {client.source} has been played to its end{code}{skipped}", title="Replay")
        else:
            self.tell.say(f"The recording {client.source} has been played to its end{code}", title="Replay")
