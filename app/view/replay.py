"""`pideck replay FILE`: a recording (`--record`) played back into pideck's UI, read-only.

pi's lines come at their recorded pace (or faster) through the record pump, as a live
pi's do; pi's answers to the commands pideck sent then are taken in their place in the
stream (`ReplaySession`, app/pi/view_session.py). The app says how the replay stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from app.desk.desk import Desk
from app.pi.view_session import ReplaySession
from app.view.app import ViewApp, ViewDesk
from widgets.panes.side import ViewLine


class ReplayDesk(ViewDesk):
    session_class = ReplaySession


class ReplayApp(ViewApp):
    desk_class: type[Desk] = ReplayDesk

    def __init__(self, *args: Any, cwd: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if cwd:
            self.desk.current.pi.cwd = Path(cwd)

    def _from_view(self) -> bool:
        return cast(ReplaySession, self.desk.current.pi).recorded_state is None  # (pi's own answer, once the recording gives one)

    def _view_line(self) -> ViewLine:
        client = cast(ReplaySession, self.desk.current.pi).replay
        pace = "as fast as possible" if client.speed <= 0 else f"×{client.speed:g}"
        lines = f"{client.skipped:,} {'line' if client.skipped == 1 else 'lines'}"
        skipped = f" · {lines} skipped" if client.skipped else ""
        if client.ended is None:
            return ViewLine("replay of", client.source, f"playing {pace}{skipped}", live=True)
        if client.failure is not None:
            return ViewLine("replay of", client.source, f"stopped{skipped}", "error")
        return ViewLine("replay of", client.source, f"finished{skipped}")
