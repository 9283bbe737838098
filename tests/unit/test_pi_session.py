"""One pi session as one object (app/pi/session.py): started, fed and crashed on the fake
child with a host that is no Textual App, as the issue of several sessions needs it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, kill_group, ui

from app.pi.session import PiSession
from protocol.state.session_model import Changes
from protocol.wire.extension_ui import ConfirmRequest
from protocol.wire.commands import Prompt


class Timer:
    def __init__(self, handle: asyncio.TimerHandle | None = None) -> None:
        self.handle = handle

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()


class Host:
    """A session's host made of asyncio alone: it keeps every `Changes` it is shown."""

    def __init__(self) -> None:
        self.shown: list[Changes] = []
        self.toasts: list[str] = []
        self.drawing = True  # False: the session is not shown (another is)
        self.tasks: set[asyncio.Task[None]] = set()
        self.leaving = False
        self.holds: list[float] = []  # hold_frames, in order

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Timer:
        return Timer(asyncio.get_running_loop().call_later(delay, callback))

    def set_interval(self, interval: float, callback: Callable[[], None]) -> Timer:
        timer = Timer()

        def tick() -> None:
            callback()
            timer.handle = asyncio.get_running_loop().call_later(interval, tick)

        timer.handle = asyncio.get_running_loop().call_later(interval, tick)
        return timer

    def call_next(self, callback: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_soon(callback)

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def after_frame(self) -> None:
        return None

    def hold_frames(self, seconds: float) -> None:
        self.holds.append(seconds)

    def notify(self, message: str, **_: Any) -> None:
        self.toasts.append(message)

    def changes_to_draw(self, pending: Changes) -> bool:
        return self.drawing

    async def show_changes(self, changes: Changes) -> None:
        self.shown.append(changes)


async def until(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while not (value := condition()):
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)
    return value


async def test_a_session_starts_loads_and_shows_a_reply_through_its_host(tmp_path: Path) -> None:
    fake, host = Fake(tmp_path), Host()
    session = PiSession(fake.config(), host)
    try:
        await session.start()
        assert session.ready and session.model.life.starting_since is None
        assert any(changes.status for changes in host.shown), "the status line was told pi started"
        assert [kind for kind in fake.kinds() if kind.startswith("get_")][:3] == ["get_state", "get_messages", "get_commands"] \
            or "get_commands" in fake.kinds()
        fake.inject(ui("confirm", "ask-1", title="Go on?", message="sure"))
        changes = await until(lambda: next((c for c in host.shown if c.dialogs), None), "the dialog")
        (request,) = changes.dialogs
        assert isinstance(request, ConfirmRequest) and request.id == "ask-1"
        assert session.deadline(request) is None  # no timeout asked
        fake.inject(ui("nosuchmethod", "odd-1"))
        await until(lambda: "odd-1" in str(fake.commands("extension_ui_response")), "the decline")
        assert fake.commands("extension_ui_response")[-1] == {"type": "extension_ui_response", "id": "odd-1",
                                                              "cancelled": True}
    finally:
        await session.close()


async def test_a_session_not_shown_keeps_its_drawing_and_hands_over_its_dialogs(tmp_path: Path) -> None:
    fake, host = Fake(tmp_path, "--rate", "1/5"), Host()
    session = PiSession(fake.config(), host)
    try:
        await session.start()
        host.drawing, host.shown = False, []
        await session.client.call(Prompt(message="hi"))
        fake.inject(ui("confirm", "ask-2", title="Go on?", message="sure"))
        await until(lambda: any(c.dialogs for c in host.shown), "the dialog handed over at once")
        await until(lambda: session.model.items and not session.model.running, "the reply folded", timeout=30)
        assert not any(c.added or c.appended or c.replaced for c in host.shown), "nothing to draw while not shown"
        host.drawing, before = True, len(host.shown)
        await session.apply_changes()
        (drawn,) = host.shown[before:]
        assert drawn.added and not drawn.dialogs, "all it kept, once, and no dialog twice"
    finally:
        await session.close()


async def test_a_crash_is_model_state_and_a_restart_clears_it(tmp_path: Path) -> None:
    fake, host = Fake(tmp_path), Host()
    session = PiSession(fake.config(), host)
    try:
        await session.start()
        kill_group(session.client)
        crash = await until(lambda: session.model.life.crash, "the crash")
        assert "SIGKILL" in crash.reason and "ctrl+r" in session.model.life.notice
        assert any(changes.exited is not None for changes in host.shown)
        assert session.can_restart()
        await session.restart()
        assert session.client.running and session.model.life.crash is None and not session.model.life.notice
        assert not session.restarting and not session.model.life.restarting
        assert any(getattr(item, "title", "").startswith("pi restarted") for item in session.model.items)
    finally:
        await session.close()


def test_the_session_runs_without_textual() -> None:
    probe = "import sys, app.pi.session; print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=Path(__file__).parents[2], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
