"""`pideck replay FILE`: a recording (`--record`) played back into pideck's UI, read-only.

pi's lines come at their recorded pace (or faster) through the record pump, as a live
pi's do; pi's answers to the commands pideck sent then (the state, the session's messages,
its stats) are taken in their place in the stream, as the live app took them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.view_app import ViewApp
from protocol.wire.responses import MessageList, Response, SessionState, SessionStats
from protocol.state.run_summary import view_stats
from protocol.files.view_client import ReplayClient, StreamEnded
from protocol.wire.recording import Skipped
from widgets.side_panes import ViewLine


class ReplayApp(ViewApp):
    def __init__(self, *args: Any, cwd: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorded_state: SessionState | None = None
        self.recorded_stats: SessionStats | None = None
        if cwd:
            self.cwd = Path(cwd)

    def _state(self) -> Any:
        return self.recorded_state if self.recorded_state is not None else super()._state()

    def _stats(self) -> Any:
        return self.recorded_stats if self.recorded_stats is not None else view_stats(self.session, None, None)

    def _from_view(self) -> bool:
        return self.recorded_state is None  # (pi's own answer, once the recording gives one)

    def _view_line(self) -> ViewLine:
        client = self.view
        assert isinstance(client, ReplayClient)
        pace = "as fast as possible" if client.speed <= 0 else f"×{client.speed:g}"
        lines = f"{client.skipped:,} {'line' if client.skipped == 1 else 'lines'}"
        skipped = f" · {lines} skipped" if client.skipped else ""
        if client.ended is None:
            return ViewLine("replay of", client.source, f"playing {pace}{skipped}", live=True)
        if client.failure is not None:
            return ViewLine("replay of", client.source, f"stopped{skipped}", "error")
        return ViewLine("replay of", client.source, f"finished{skipped}")

    async def fold_records(self, records: list[Any]) -> None:
        """The records in order, pi's recorded answers taken where they come."""
        segment: list[Any] = []
        if any(isinstance(record, Skipped) for record in records):
            self._refresh_view_line()  # (the count of lines skipped)
        for record in records:
            if isinstance(record, Response):
                if segment:
                    await super().fold_records(segment)
                    segment = []
                await self._take_answer(record)
            else:
                segment.append(record)
        if segment:
            await super().fold_records(segment)

    async def _take_answer(self, response: Response) -> None:
        data = response.data if response.success and response.data_error is None else None
        if isinstance(data, SessionState):
            self.recorded_state = data
            self.session.set_state(data)
        elif isinstance(data, SessionStats):
            self.recorded_stats = data
            self.session.set_stats(data)
        elif isinstance(data, MessageList):
            self.session.load_messages(data.messages)  # as the live app's reload_session
        else:
            return
        await self._apply_changes()

    def _stream_ended(self, ended: StreamEnded) -> None:
        client = self.view
        assert isinstance(client, ReplayClient)
        code = "" if client.exit_code is None else f"; pi exited then (code {client.exit_code})"
        skipped = ""
        if client.skipped:
            where = client.protocol_log.where if client.protocol_log is not None else "nowhere"
            skipped = (f"; {client.skipped:,} {'line' if client.skipped == 1 else 'lines'} of it could not be played "
                       f"and {'was' if client.skipped == 1 else 'were'} passed over (logged: {where})")
        if client.failure is not None:
            self.session.banner("error", f"The replay of {client.source} stopped", client.failure)
            self.tell.fail(f"The replay of {client.source} stopped: {client.failure}{skipped}", title="Replay")
        elif client.skipped:
            self.tell.warn(f"The recording {client.source} has been played to its end{code}{skipped}", title="Replay")
        else:
            self.tell.say(f"The recording {client.source} has been played to its end{code}", title="Replay")
