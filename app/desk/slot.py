"""One open pi session in pideck (the desk, app/desk/desk.py, keeps them in the order they
were opened): its `PiSession`, its main screen in a Textual mode of its own (so a dialog or
a picker stays with its session when another is shown), its command context, the extension
dialogs it waits on and its run alerts.

A slot is its session's host (app.pi.session.SessionHost). While it is not shown, its records are read and folded as
ever, and what cannot wait is done at once (a dialog queued and its session marked, a run's
end noted and alerted, requests declined, stats read); the drawing waits in the model's
changes until the session is shown again, and is then done in one go.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable, Coroutine
from collections.abc import Mapping
from typing import Any, Protocol

from textual.worker import Worker

from app.attachments import Attachments
from app.commands.context import CommandContext, SlashCommand
from app.desk.shell import Shell
from app.commands.registry import REGISTRY
from app.pi.launch import LaunchConfig
from app.main_screen import MainScreen
from app.pi.session import PiSession
from app.run_alerts import RunAlerts, notify_setting, run_error
from protocol.state.desk import Mark, SessionLine, cost_label, mark_of, model_label, session_name
from protocol.state.session_model import Changes
from protocol.wire.client import RpcClient, RpcError
from protocol.wire.extension_ui import DialogRequest, as_text
from protocol.wire.responses import CommandInfo
from widgets.text.safe import clean
from widgets.screens.dialogs import ExtensionDialog, dialog_for


# Items added while a session was not shown above which showing it builds the transcript's
# newest window afresh instead of mounting each of them.
REBUILD_AFTER = 40
# Seconds a timed dialog must have left when its turn comes to be shown; one with less is
# reported as timed out (pi's timer started a little before pideck saw the request, and a
# dialog that closes at once cannot be answered).
DIALOG_MIN_LEFT = 1.0
_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}


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

    def drop(self, request_id: str) -> None:
        """Take out the dialog `request_id` (another window answered it)."""
        self._items = deque(item for item in self._items if item[0].id != request_id)

    def live(self, now: float) -> int:
        """How many pi still waits on (their timeout has not run out)."""
        return sum(1 for _, deadline in self._items if deadline is None or deadline > now)


class Keeper(Protocol):
    """What a slot asks of the desk that keeps it (app/desk/desk.py), named here so that the
    desk's module, which makes the slots, is not imported back."""

    shell: Shell
    slots: list[SessionSlot]
    session_class: type[PiSession]
    screen_class: type[MainScreen]
    commands: Mapping[str, SlashCommand]

    def session_changed(self, slot: SessionSlot, changes: Changes) -> None: ...

    def changed(self) -> None: ...

    def shown_here(self, slot: SessionSlot, session_file: str) -> bool: ...


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
    def __init__(self, desk: Keeper, config: LaunchConfig, serial: int, client: RpcClient | None = None) -> None:
        self.desk = desk
        shell = desk.shell
        self.config = config
        self.mode = f"session-{serial}"  # its Textual mode: its main screen and what is pushed over it
        self.shown = False
        self.unread = False  # a run ended while it was not shown, not looked at since
        self._asking: tuple[int, str] | None = None  # the toast that says it asks, and the name it says
        self._kept = False  # changes were kept while it was not shown
        self.closing = False
        self.dialogs = DialogQueue()
        self.dialog_taken: float | None = None  # one of them waits for the session to be shown, or is on
        # its screen: its deadline (inf without one)
        self.dialog_screen: ExtensionDialog | None = None  # the one on its screen
        self.startup_error_shown = False
        self._shown_event = asyncio.Event()
        self.title: str | None = None  # an extension's setTitle
        # the app's timers, as the session's host
        self.set_timer, self.set_interval, self.call_next = shell.set_timer, shell.set_interval, shell.call_next
        self.pi: PiSession = desk.session_class(config, self, client)
        self.attachments = Attachments(shell, self.pi.model.image_names, lambda: self.pi.cwd, lambda: self.main)  # type: ignore[arg-type]
        self.context = CommandContext(self.pi, desk, self.notify, attachments=self.attachments, commands=desk.commands)
        self.main = self.context.screen = desk.screen_class(self.context, shell.selection, commands=self.all_commands,
                                                            keymap=lambda: shell.keys.keymap, id=f"session-{serial}")
        self.alerts = RunAlerts(shell.write_to_terminal, notify_setting(config.env),
                                focused=lambda: self.shown and shell.app_focus, title=lambda: shell.title,
                                env=config.env, shown=lambda: self.shown,
                                label=lambda: self.name if len(desk.slots) > 1 else "")
        self.workers: list[Worker[None]] = []  # its start, its dialogs and its flushes, cancelled when it closes
        self._flushes = SerialWork(self._start_flushes)

    @property
    def name(self) -> str:
        return session_name(self.pi.model, str(self.pi.cwd), self.config.remote)

    @property
    def number(self) -> int:
        return self.desk.slots.index(self) + 1

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
                           idle_for=None if last is None else time.monotonic() - last, current=self.shown,
                           held=self.pi.client.held)

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

    # --- the session's host (app.pi.session.SessionHost) -------------------------------------

    @property
    def leaving(self) -> bool:
        return self.closing or self.desk.shell.leaving

    async def after_frame(self) -> None:
        if self.main.is_running:  # (its frame, or its idle when nothing is due: shown or not)
            await self.main.wait_for_refresh()

    def hold_frames(self, seconds: float) -> None:
        if self.main.is_running:
            self.main.hold_frames(seconds)

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> Worker[None]:
        """Run `work` as a worker of the app's (the flushes one after another, in one)."""
        if group == "flush":
            return self._flushes.run(work)
        return self.desk.shell.run_worker(work, name=group, group=group, exit_on_error=True)

    def _start_flushes(self, work: Coroutine[Any, Any, None]) -> Worker[None]:
        worker: Worker[None] = self.desk.shell.run_worker(work, name="flushes", group="flushes", exit_on_error=True)
        self.workers.append(worker)
        return worker

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        if not self.shown and len(self.desk.slots) > 1:  # a session not shown says whose it is
            title = f"{self.name} · {title}" if title else self.name
        self.desk.shell.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

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
        """Draw what changed in the model (shown: on its screen; not shown: only what cannot
        wait), do what the changes ask of the session (alerts, toasts, dialogs queued), then
        tell the desk (progress, title, the sessions row)."""
        if self.shown:
            await self.main.composed.wait()  # pi may exit (or a file load) before the panes are there
        if self.leaving or self.desk.shell.closing:
            return  # the views are going away
        model = self.pi.model
        if changes.settled is not None:  # (before the run's end below: how long it ran)
            self.unread = not self.shown
            self.alerts.settled(changes.settled.aborted, run_error(model))
        if self.shown:
            with self.desk.shell.batch_update():
                await self.main.show_changes(changes)
        if changes.status:
            self.main.pi_life_changed()
        for severity, message in changes.notifications:
            self.notify(message, severity=_SEVERITY.get(severity, "information"), markup=False)
        if changes.run:
            self.alerts.run(model.running)
        if changes.caught_up:  # (a held pi's cut asks again those still open)
            self.forget_dialogs()
        for request in changes.dialogs:
            self.dialogs.put(request, self.pi.deadline(request))
        for request_id in changes.answered:  # (a held pi: another window answered it)
            self.dialogs.drop(request_id)
            if self.dialog_screen is not None and self.dialog_screen.request.id == request_id:
                self.dialog_screen.expire()
        if changes.exited is not None and self.pi.ready:
            self.forget_dialogs()  # extension questions from the dead pi cannot be answered
        self.desk.session_changed(self, changes)

    # --- its extension dialogs ---------------------------------------------------------------

    async def run_dialogs(self) -> None:
        """Show the extension dialogs one after another, in the order pi asked, each once the
        session is shown; one whose timeout runs out before that is not shown (pi went on
        without it)."""
        while True:
            request, deadline = await self.dialogs.get()
            self.dialog_taken = math.inf if deadline is None else deadline
            try:
                if not await self._shown_before(deadline) or (
                        deadline is not None and deadline - time.monotonic() < DIALOG_MIN_LEFT):
                    self.dialog_timed_out(request)
                    continue
                self.alerts.dialog(as_text(request.title))
                self.dialog_screen = dialog_for(request, deadline)
                self.desk.changed()
                response = await self.desk.shell.push_screen_wait(self.dialog_screen)
            finally:
                self.dialog_taken = None
                self.dialog_screen = None
                self.desk.changed()
            if response is not None and self.pi.client.running:
                try:
                    await self.pi.client.send(response)
                except RpcError as exc:
                    self.context.fail(f"could not answer the extension: {exc}")

    async def _shown_before(self, deadline: float | None) -> bool:
        """Wait until the session is shown, or False once `deadline` passed first; meanwhile a
        toast says that it asks (taken off once it is shown)."""
        if self.shown:
            return True
        if len(self.desk.slots) > 1:
            self.alerts.dialog(self.name)  # the bell and the desktop say a session not shown asks
            self._say_asking()
        try:
            while not self.shown:
                try:
                    await asyncio.wait_for(self._shown_event.wait(), None if deadline is None else max(0.0, deadline - time.monotonic()))
                except TimeoutError:
                    return False
            return True
        finally:
            if self._asking is not None:  # (shown, or its time ran out: the toast says no more)
                self.desk.shell.toasts.take_off(self._asking[0])
                self._asking = None

    def follow_name(self) -> None:
        """The toast that says it asks names it as the sessions row does now (pi's name of it
        may come after its dialog: a held pi attached to asks before its state is read)."""
        if self._asking is not None and self._asking[1] != self.name:
            self._say_asking()

    def _say_asking(self) -> None:
        """The toast that says this session asks, naming it as the sessions row does (in
        place of the one before, if one is up)."""
        if self._asking is not None:
            self.desk.shell.toasts.take_off(self._asking[0])
            self._asking = None
        name = self.name
        key = self.desk.shell.toasts.notify(f"“{name}” asks a question: Alt+0 or Alt+{self.number} shows it",
                                     "Needs you", "warning", None, markup=False)
        if key is not None:
            self._asking = (key, name)

    def forget_dialogs(self) -> None:
        """Drop the extension dialogs waiting for their turn, and close the one shown (pi exited, or a held pi's cut asks them again)."""
        self.dialogs.clear()
        if self.dialog_screen is not None:
            self.dialog_screen.expire()  # (closed when its session is shown again)

    def dialog_timed_out(self, request: DialogRequest) -> None:
        """Report a dialog whose timeout ran out before its turn came."""
        title = " ".join(clean(as_text(request.title)).split())[:80]
        self.context.warn(
            f"An extension's {type(request).__struct_config__.tag} dialog “{title}” timed out before "
            "pideck could show it; pi went on without an answer", title="Dialog timed out")

    def shown_here(self, session_file: str) -> bool:
        """Whether another session of this window has `session_file` open: then that one is
        shown, and this one closes."""
        return self.desk.shown_here(self, session_file)
