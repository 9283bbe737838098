"""One open pi session in pideck (the App keeps them, in the order they were opened): its
`PiSession`, its main screen in a Textual mode of its own (so a dialog or a picker stays
with its session when another is shown), its command context, the extension dialogs it
waits on and its run alerts.

A slot is its session's host. While it is not shown, its records are read and folded as
ever, and what cannot wait is done at once (a dialog queued and its session marked, a run's
end noted and alerted, requests declined, stats read); the drawing waits in the model's
changes until the session is shown again, and is then done in one go.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, Protocol

from textual.binding import BindingsMap
from textual.screen import Screen
from textual.worker import Worker

from app.keybindings import PiKeymap
from app.selection_copy import SelectionCopy
from app.themes import Themes

from app.attachments import Attachments
from app.commands.context import CommandContext, SlashCommand
from app.commands.registry import REGISTRY
from app.main_screen import MainScreen
from app.pi.launch import LaunchConfig
from app.pi.record_pump import Stoppable
from app.pi.session import PiSession
from app.run_alerts import RunAlerts, notify_setting, run_error
from protocol.state.desk import Mark, SessionLine, cost_label, mark_of, model_label, session_name
from protocol.state.notification_center import NotificationCenter
from protocol.state.session_model import Changes
from protocol.wire.client import RpcClient
from protocol.wire.extension_ui import DialogRequest
from protocol.wire.responses import CommandInfo
from widgets.prompt_editor import PromptEditor
from widgets.screens.dialogs import ExtensionDialog

# Items added while a session was not shown above which showing it builds the transcript's
# newest window afresh instead of mounting each of them.
REBUILD_AFTER = 40


class DialogQueue:
    """A session's extension dialogs waiting for their turn, each with its deadline."""

    def __init__(self) -> None:
        self._items: deque[tuple[DialogRequest, float | None]] = deque()
        self._arrived = asyncio.Event()

    def put(self, request: DialogRequest, deadline: float | None) -> None:
        self._items.append((request, deadline))
        self._arrived.set()

    async def get(self) -> tuple[DialogRequest, float | None]:
        while not self._items:
            self._arrived.clear()
            await self._arrived.wait()
        return self._items.popleft()

    def clear(self) -> None:
        self._items.clear()

    def live(self, now: float) -> int:
        """How many pi still waits on (their timeout has not run out)."""
        return sum(1 for _, deadline in self._items if deadline is None or deadline > now)


class Desk(Protocol):
    """What a session asks of the app that keeps the sessions (the App is one)."""

    session_class: type[PiSession]
    screen_class: type[MainScreen]
    slash_commands: Mapping[str, SlashCommand]  # pideck's `/` commands its sessions offer
    themes: Themes
    selection: SelectionCopy
    keys: PiKeymap
    slots: list[SessionSlot]
    title: str
    app_focus: bool
    notices: NotificationCenter

    @property
    def leaving(self) -> bool: ...

    @property
    def key_bindings(self) -> BindingsMap: ...

    def write_to_terminal(self, sequence: str) -> None: ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Any: ...

    def set_interval(self, interval: float, callback: Callable[[], None]) -> Any: ...

    def call_next(self, callback: Callable[[], None]) -> Any: ...

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> Worker[None]: ...

    def run_worker(self, work: Any, name: str | None = "", group: str = "default", exit_on_error: bool = True) -> Any: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    async def show_changes(self, changes: Changes, slot: SessionSlot | None = None) -> None: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def run_in_terminal(self, argv: list[str], cwd: Path | None = None) -> int | None: ...

    def reread_settings(self) -> None: ...

    def quit(self) -> None: ...

    def session_lines(self) -> list[SessionLine]: ...

    def open_session(self, cwd: Path, pi_args: list[str] | None = None, pi_flag: str | None = None,
                     session: str | None = None) -> SessionSlot: ...

    async def close_session(self, slot: SessionSlot | None = None) -> None: ...

    def show_session(self, number: int) -> bool: ...


class SerialWork:
    """Coroutines run one after another in one long-lived worker, started by the first: the
    record pump's flushes, which ran as a worker each, a task and three state messages to
    the app per frame of a reply (they never overlap: a flush waits for the one before)."""

    def __init__(self, start: Callable[[Coroutine[Any, Any, None]], Worker[None]]) -> None:
        self._start = start
        self._queue: deque[Coroutine[Any, Any, None]] = deque()
        self._due = asyncio.Event()
        self.worker: Worker[None] | None = None

    def run(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        self._queue.append(work)
        self._due.set()
        if self.worker is None or self.worker.is_finished:
            self.worker = self._start(self._run())
        return self.worker

    async def _run(self) -> None:
        try:
            while True:
                await self._due.wait()
                self._due.clear()
                while self._queue:
                    await self._queue.popleft()
        finally:  # cancelled (the session closes) or a flush failed (the app shows why)
            for work in self._queue:
                work.close()
            self._queue.clear()


class SessionSlot:
    def __init__(self, app: Desk, config: LaunchConfig, serial: int, client: RpcClient | None = None) -> None:
        self.app = app
        self.config = config
        self.mode = f"session-{serial}"  # its Textual mode: its main screen and what is pushed over it
        self.shown = False
        self.unread = False  # a run ended while it was not shown, not looked at since
        self._kept = False  # changes were kept while it was not shown
        self.closing = False
        self.dialogs = DialogQueue()
        self.dialog_taken: float | None = None  # one of them waits for the session to be shown, or is on
        # its screen: its deadline (inf without one)
        self.dialog_screen: ExtensionDialog | None = None  # the one on its screen
        self.startup_error_shown = False
        self._shown_event = asyncio.Event()
        self.title: str | None = None  # an extension's setTitle
        self.pi: PiSession = app.session_class(config, self, client)
        self.attachments = Attachments(app, self.pi.model.image_names, lambda: self.pi.cwd, lambda: self.main)
        self.context = CommandContext(self.pi, self, attachments=self.attachments, themes=app.themes,
                                      commands=app.slash_commands)
        self.main = app.screen_class(self.context, app.selection, commands=self.all_commands,
                                     keymap=lambda: app.keys.keymap, id=f"session-{serial}")
        self.alerts = RunAlerts(app.write_to_terminal, notify_setting(config.env), focused=lambda: self.shown and app.app_focus,
                                title=lambda: app.title, env=config.env, shown=lambda: self.shown,
                                label=lambda: self.name if len(app.slots) > 1 else "")
        self.workers: list[Worker[None]] = []  # its start, its dialogs and its flushes, cancelled when it closes
        self._flushes = SerialWork(self._start_flushes)

    @property
    def name(self) -> str:
        return session_name(self.pi.model, str(self.pi.cwd), self.config.remote)

    @property
    def number(self) -> int:
        return self.app.slots.index(self) + 1

    def waiting(self) -> int:
        """Extension dialogs waiting for an answer (shown or not)."""
        now = time.monotonic()
        taken = (self.dialog_taken is not None and self.dialog_taken > now
                 and (self.dialog_screen is None or not self.dialog_screen.expired))
        return self.dialogs.live(now) + taken

    @property
    def mark(self) -> Mark:
        pi = self.pi
        return mark_of(pi.model, pi_running=pi.client.running, dialogs_waiting=self.waiting(), unread=self.unread,
                       failed=not pi.model.running and run_error(pi.model) is not None)

    def line(self) -> SessionLine:
        """This session as /sessions lists it."""
        model = self.pi.model
        last = self.pi.last_record_at
        return SessionLine(number=self.number, name=self.name, mark=self.mark, model=model_label(model),
                           folder=str(self.pi.cwd), host=self.config.remote, cost=cost_label(model),
                           idle_for=None if last is None else time.monotonic() - last, current=self.shown)

    def all_commands(self) -> list[CommandInfo]:
        """pideck's own `/` commands, then pi's (extensions, prompt templates, skills)."""
        own = [CommandInfo(name=c.name, description=c.description, source="pideck")
               for c in self.context.commands.values()]
        return [*own, *(c for c in self.pi.commands if c.name not in REGISTRY)]

    def show(self, shown: bool) -> None:
        self.shown = shown
        if shown:
            self.unread = False
            self._shown_event.set()
        else:
            self._shown_event.clear()

    async def until_shown(self) -> None:
        await self._shown_event.wait()

    # --- the session's host (app.pi.session.SessionHost) -------------------------------------

    @property
    def leaving(self) -> bool:
        return self.closing or self.app.leaving

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Stoppable:
        return self.app.set_timer(delay, callback)

    def set_interval(self, interval: float, callback: Callable[[], None]) -> Stoppable:
        return self.app.set_interval(interval, callback)

    def call_next(self, callback: Callable[[], None]) -> object:
        return self.app.call_next(callback)

    async def after_frame(self) -> None:
        if self.main.is_running:  # (its frame, or its idle when nothing is due: shown or not)
            await self.main.wait_for_refresh()

    def hold_frames(self, seconds: float) -> None:
        if self.main.is_running:
            self.main.hold_frames(seconds)

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> Worker[None]:
        if group == "flush":
            return self._flushes.run(work)
        return self.app.in_background(work, group)

    def _start_flushes(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        worker = self.app.in_background(work, "flushes")
        self.workers.append(worker)
        return worker

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        if not self.shown and len(self.app.slots) > 1:  # a session not shown says whose it is
            title = f"{self.name} · {title}" if title else self.name
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def changes_to_draw(self, pending: Changes) -> bool:
        """Whether the model's changes are drawn now; a session not shown keeps them, and
        one that kept many builds its transcript's window afresh when shown."""
        if not self.shown:
            self._kept = True
            return False
        if self._kept and len(pending.added) > REBUILD_AFTER:
            pending.reset = True
        self._kept = False
        return True

    async def show_changes(self, changes: Changes) -> None:
        await self.app.show_changes(changes, self)

    # --- what commands ask of the screen (app.commands.context.CommandUI) --------------------

    @property
    def editor(self) -> PromptEditor:
        return self.main.editor

    @property
    def notices(self) -> NotificationCenter:
        return self.app.notices

    async def push_screen_wait(self, screen: Screen[Any]) -> Any:
        return await self.app.push_screen_wait(screen)

    def copy_to_clipboard(self, text: str) -> None:
        self.app.copy_to_clipboard(text)

    def run_in_terminal(self, argv: list[str]) -> int | None:
        return self.app.run_in_terminal(argv, self.pi.cwd)

    async def show_tool_call(self, tool_call_id: str) -> None:
        await self.main.show_tool_call(tool_call_id)

    def refresh_stats(self) -> Worker[None]:
        return self.app.run_worker(self.pi.refresh_stats(), name="stats", group="stats", exit_on_error=True)

    def reread_settings(self) -> None:
        self.app.reread_settings()

    def key_tables(self) -> tuple[BindingsMap, BindingsMap, list[str]]:
        return self.app.key_bindings, self.main.editor.key_bindings, self.app.keys.notes

    def quit(self) -> None:
        self.app.quit()

    def session_lines(self) -> list[SessionLine]:
        return self.app.session_lines() if len(self.app.slots) > 1 else []

    def open_session(self, cwd: Path, pi_args: list[str] | None, pi_flag: str | None, session: str | None = None) -> None:
        self.app.open_session(cwd, pi_args, pi_flag, session)

    async def close_session(self) -> None:
        await self.app.close_session(self)

    def show_session(self, number: int) -> bool:
        return self.app.show_session(number)
