"""The desk (app/desk/desk.py) is a plain object: driven here by a shell that is no Textual
App, it opens the sessions --restore brings, shows one (its mode switched to, the title
set), steps round the end, finds the one that needs you, and closes one in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from app.desk.desk import Desk
from app.pi.launch import LaunchConfig
from protocol.state.desk import Mark, SessionLine
from protocol.wire.extension_ui import ConfirmRequest


class Screen:
    """A session's screen, as far as the desk asks of it."""

    def __init__(self, *_: Any, **__: Any) -> None:
        self.is_mounted = False
        self.composed = asyncio.Event()
        self.rows: list[list[SessionLine]] = []

    def show_desk(self, lines: list[SessionLine]) -> None:
        self.rows.append(lines)


class Worker:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Shell:
    """What the desk asks of the App, kept in lists."""

    TITLE = "pideck"
    title = "pideck"
    app_focus = True
    is_headless = True
    is_running = True
    closing = False
    leaving = False
    return_code = None
    selection = None  # (the screen takes it; this one asks nothing of it)

    def __init__(self) -> None:
        self.modes: list[str] = []
        self.shown: list[str] = []
        self.removed: list[str] = []
        self.toasts_said: list[str] = []
        self.exits: list[int | None] = []

    def notify(self, message: str, **_: Any) -> None:
        self.toasts_said.append(message)

    def add_mode(self, mode: str, base_screen: Callable[[], object]) -> None:
        self.modes.append(mode)

    async def remove_mode(self, mode: str) -> None:
        self.removed.append(mode)

    def switch_mode(self, mode: str) -> None:
        self.shown.append(mode)

    def run_worker(self, work: Any, *_: Any, **__: Any) -> Worker:
        if isinstance(work, Coroutine):
            work.close()  # (nothing starts: no pi here)
        return Worker()

    def set_timer(self, delay: float, callback: Callable[[], None]) -> None:
        return None

    set_interval = set_timer

    def call_next(self, callback: Callable[[], None]) -> None:
        return None

    def call_after_refresh(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        for arg in args:
            if isinstance(arg, Coroutine):
                arg.close()

    def write_to_terminal(self, sequence: str) -> None:
        return None

    def exit(self, result: int | None = None) -> None:
        self.exits.append(result)


def launch(tmp_path: Path, name: str) -> LaunchConfig:
    folder = tmp_path / name
    folder.mkdir()
    return LaunchConfig(argv=("pi", "--mode", "rpc"), env={}, cwd=folder, demo=False, protocol_log=tmp_path / f"{name}.log")


class PlainDesk(Desk):
    screen_class = Screen  # type: ignore[assignment]


async def test_a_desk_runs_on_a_shell_that_is_no_textual_app(tmp_path: Path) -> None:
    shell = Shell()
    desk = PlainDesk(shell, launch(tmp_path, "one"), restore=[launch(tmp_path, "two"), launch(tmp_path, "three")])  # type: ignore[arg-type]
    desk.start()
    assert [slot.name for slot in desk.slots] == ["one", "two", "three"] and desk.current is desk.slots[0]
    assert shell.modes == ["session-1", "session-2", "session-3"] and shell.shown == ["session-1"]

    desk.step(-1)  # round the end
    assert desk.current is desk.slots[2] and desk.slots[2].shown and not desk.slots[0].shown
    assert shell.shown[-1] == "session-3" and shell.title == "pideck"
    assert [line.current for line in desk.slots[2].main.rows[-1]] == [False, False, True]

    desk.slots[1].dialogs.put(ConfirmRequest(id="u1", title="Sure?"), None)
    assert desk.slots[1].mark is Mark.NEEDS_YOU
    desk.next_needing_you()
    assert desk.current is desk.slots[1] and shell.shown[-1] == "session-2"

    second = desk.current
    await desk.close(second)
    assert second.workers and all(worker.cancelled for worker in second.workers)  # type: ignore[attr-defined]
    assert shell.removed == ["session-2"] and desk.closed == [second] and [slot.name for slot in desk.slots] == ["one", "three"]
    assert desk.current is desk.slots[1] and shell.shown[-1] == "session-3", "the next one shown in its place"
    desk.show_number(3)
    assert shell.toasts_said[-1] == "There are 2 sessions: Alt+1 to Alt+2"
