"""One pi session: its client, its life (start, reload, restart after a crash), its session
model, its record pump and its problem monitor. No Textual here: the app that shows it is
a `SessionHost`, and what the host must draw or do comes out of the model as `Changes`.

When pi dies, everything stays on screen and a restart is offered: pi persists its session
file as it goes, so a restart runs the same command with the session-choosing flags
(`app/pi/args.py`) replaced by `--session <file>` from the last `get_state`, and the
transcript, queue and stats reload from pi. The editor is never touched. A session never
saved (`--no-session`) cannot be resumed: pi restarts on an empty one, and the old
transcript stays above a banner that says so. The crash bar and the status line show the
model's `life`.

A record's way: the client's reader hands it to `_record_read`, which only queues it in
the pump; once a frame the pump's flush folds the batch into the model (`SessionModel.apply`
sees every record) and `apply_changes` hands the model's `Changes` to the host, once. What
is the session's own business in them (pi exited, a request to decline, stats gone stale)
the session does before the host sees them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from app.notifier import Notifier
from app.pi.args import resume_argv
from app.pi.checkpoint_launch import AFTER_USER_BASH, checkpoint_root
from app.pi.early_start import pi_client
from app.pi.launch import LaunchConfig, no_model_help
from app.pi.one_writer import OwnClaim, held_pi_for, taken_before_start
from app.pi.problem_monitor import ProblemMonitor
from app.pi.record_pump import RecordPump, Stoppable, fold_in_slices
from protocol.files.session_files import session_cwd
from protocol.state.session_model import Changes, SessionModel, exit_reason
from protocol.wire.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.wire.commands import Bash, ExtensionUIResponse, GetCommands, GetMessages, GetSessionStats, GetState, Prompt
from protocol.wire.events import QueueUpdate
from protocol.wire.link import LinkError
from protocol.wire.extension_ui import DIALOG_REQUESTS, DialogRequest, RefusedDialogRequest, UnknownUIRequest
from protocol.wire.responses import BashResult, CommandInfo, SessionState

if TYPE_CHECKING:
    from app.pi.file_reverts import FileReverts

LOADING_TICK = 0.25  # seconds between two updates of "loading session… N MB"
LEAVE_WAIT = 10.0  # seconds a window leaving a held pi waits, at most, for what it sent the holder (its draft) to be sent


class SessionHost(Protocol):
    """What a session asks of the app that shows it."""

    @property
    def leaving(self) -> bool:
        """The app is exiting: records, timers and workers leave the views alone."""
        ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Stoppable: ...

    def set_interval(self, interval: float, callback: Callable[[], None]) -> Stoppable: ...

    def call_next(self, callback: Callable[[], None]) -> object: ...

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> object:
        """Run `work` as a task of the app's (a worker), not awaited."""
        ...

    async def after_frame(self) -> None:
        """Return once the screen has drawn what is due (at once when nothing is)."""
        ...

    def hold_frames(self, seconds: float) -> None:
        """Draw no frame of this session's screen for up to `seconds` (0: draw again)."""
        ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def changes_to_draw(self, pending: Changes) -> bool:
        """Whether the model's changes are drawn now: a session not shown keeps them for
        when it is (and is given only what cannot wait)."""
        ...

    async def show_changes(self, changes: Changes) -> None:
        """Draw what changed and do what the changes ask of the app (dialogs, alerts)."""
        ...

    def shown_here(self, session_file: str) -> bool:
        """Whether another session of this window has `session_file` open: then that one is
        shown, and this one closes."""
        ...


class PiSession:
    """`client` is a pi already spawned (early start) or a reader of a file (`pideck view`);
    without one, the session makes the client of the pi `config` describes."""

    writes = True  # its pi writes the session file it has open (a view only reads one): claimed for it

    def __init__(self, config: LaunchConfig, host: SessionHost, client: RpcClient | None = None) -> None:
        self.config = config
        self.host = host
        self.model = SessionModel()
        self.model.cwd = str(config.cwd)
        self.client = client or pi_client(config)
        self.tell = Notifier(host.notify)
        self.commands: list[CommandInfo] = []  # pi's (extensions, prompt templates, skills)
        self.ready = False  # the session was loaded once: a later exit is a crash, not a failed start
        self.problems = ProblemMonitor(self.model, lambda: self.client, self.tell, closing=lambda: host.leaving)
        self.restarting = False  # a restart is under way
        self._starting: RpcClient | None = None  # a restarted pi that has not answered yet
        self.pump = RecordPump(
            self.fold, self._fold_ahead, schedule=host.set_timer, soon=host.call_next,
            run=lambda flush: host.in_background(flush, "flush"), closed=lambda: host.leaving,
            hold_frames=host.hold_frames,
        )
        self._applying = asyncio.Lock()  # one apply_changes at a time (the flush and workers)
        self._dialog_arrived: dict[int, float] = {}  # by id(): when each dialog request not yet shown was read
        self._remove_listener: Callable[[], None] = lambda: None
        self.last_record_at: float | None = None  # monotonic time pi last sent something (/sessions)
        self._reverts: FileReverts | None = None
        self.claim = OwnClaim()  # the session file of a pi of this window's own (app/pi/one_writer.py)
        self.attach(self.client)

    @property
    def reverts(self) -> FileReverts:
        """The reverts made on the files this session's pi changed (the Changes view, /rewind):
        kept per pi session, made when first asked for."""
        if self._reverts is None:
            from app.pi.file_reverts import session_reverts  # (not before pi is spawned: it reads pi's records)

            self._reverts = session_reverts(self.config, self.session_id, lambda: self.cwd)
        return self._reverts

    def session_id(self) -> str:
        """The id of the pi session open ("" before pi said)."""
        state = self.model.state
        return state.session_id if state is not None else ""

    @property
    def cwd(self) -> Path:
        """pi's working directory (`@` paths, /resume's folder): where it was started, then the
        one its session records, as a switch to a session of another directory moves pi there."""
        return Path(self.model.cwd)

    @cwd.setter
    def cwd(self, value: Path) -> None:
        self.model.cwd = str(value)

    @property
    def exit_status(self) -> int:
        """pideck's exit status for this session: 1 once it could not start."""
        return 1 if self.model.life.startup_error is not None else 0

    def can_restart(self) -> bool:
        """Ctrl+R is offered only while pi is not running (and was started once)."""
        return self.ready and not self.client.running and not self.restarting

    # --- records --------------------------------------------------------------------------

    def attach(self, client: RpcClient) -> None:
        """Make `client` this session's pi (at start and after a restart); records flow from it."""
        self._remove_listener()
        if client is not self.client:
            self.problems.client_replaced()
            self.client = client
        self._remove_listener = client.add_listener(self._record_read)

    def _record_read(self, record: Any) -> None:
        """A record pi sent, as the client reads it. A dialog request's time runs from now: the
        pump may show it only after a flush that takes a while (a long reply), and a deadline
        counted from then kept the dialog open after pi had given up on it."""
        if isinstance(record, ChildExited) and self.client.link.taken is not None:
            return  # (a pi closed unused, for the held pi that has its file: app/pi/one_writer.py)
        self.last_record_at = now = time.monotonic()
        if isinstance(record, DIALOG_REQUESTS) and not self.host.leaving:
            self._dialog_arrived[id(record)] = now
        self.pump.feed(record)

    def prompt_sent(self) -> None:
        """A prompt that starts a run is being written: busy from now on, and what pi echoes
        of it shown with the reply's start (app/pi/record_pump.py)."""
        self.model.prompt_sent()
        self.pump.hold_echo()

    async def refused(self, reason: str) -> None:
        """pi refused a message: its whole answer stays in the transcript, where a toast cuts
        it and fades."""
        self.model.banner("error", "pi refused the message", reason)
        await self.apply_changes()

    def prompt_answered(self, disposition: str | None) -> None:
        """pi answered a prompt that starts a run (how it took it, if it said)."""
        self.model.prompt_answered(disposition)

    async def run_bash(self, command: str, exclude: bool) -> None:
        """A `!command` (`!!`: left out of the model's context): shown running, run by pi,
        shown with its result; then pideck's checkpoints snapshot what it changed."""
        client = self.client
        request = Bash(command=command, exclude_from_context=exclude, id=client.next_id())
        self.model.begin_bash(request.id or "", command, exclude)
        await self.apply_changes()
        try:
            result: BashResult = await client.call(request)
            self.model.end_bash(request.id or "", result)
        except RpcError as exc:
            self.model.end_bash(request.id or "", None, str(exc))
        await self.apply_changes()
        if checkpoint_root(self.config) is not None:  # the extension snapshots what it changed
            with contextlib.suppress(RpcError):
                await client.call(Prompt(message=f"/{AFTER_USER_BASH}"))

    def deadline(self, request: DialogRequest) -> float | None:
        """When a dialog request times out (pi's timer runs from when it was read)."""
        return request.deadline(self._dialog_arrived.pop(id(request), None) or time.monotonic())

    def _fold_ahead(self, records: list[Any]) -> bool:
        """Fold deltas a flood holds into the model (not while views take changes: they
        read the model between awaits)."""
        if self._applying.locked():
            return False
        self.model.apply_all(records)
        return True

    async def fold(self, records: list[Any]) -> None:
        """A flush: the records folded into the model, and the host given the changes of the
        whole flush at once, for one frame. Not while views take changes another task asked
        for (a session shown again, stats read): they are made of the model as it is when
        they mount, and deltas folded meanwhile were given to them a second time."""
        async with self._applying:
            await fold_in_slices(records, self.model.apply_all)
            await self._apply_changes()

    @property
    def drawing(self) -> asyncio.Lock:
        """Held while changes are folded or drawn: what else changes the views takes it too."""
        return self._applying

    async def apply_changes(self) -> None:
        """The one way changes of the model reach the screen."""
        async with self._applying:  # views mounting for one batch are not touched by another
            await self._apply_changes()

    async def _apply_changes(self) -> None:
        if self.host.leaving:
            return  # a worker finishing while the app closes: the views are going away
        pending = self.model.changes
        if pending.exited is not None:
            self._exited(pending.exited)
        self.problems.check()
        changes = self.model.take_changes() if self.host.changes_to_draw(pending) else self.model.take_urgent()
        if not changes:
            return
        for request in changes.declines:
            self.host.in_background(self.decline(request), "send")
        await self.host.show_changes(changes)
        if changes.stats_stale:
            self.host.in_background(self._refresh_stats_after_frame(), "stats")

    def _exited(self, exited: ChildExited) -> None:
        self.claim.release()
        if not self.ready:
            self.model.could_not_start(exited.error or f"pi exited during start-up (exit code {exited.returncode})")
            return
        self._crashed(exited)  # the model's banner has pi's stderr

    def _crashed(self, exited: ChildExited) -> None:
        """pi exited after the session was loaded: say why and offer a restart."""
        reason = exit_reason(exited)
        if self._starting is not None and self._starting is self.client:
            reason = f"pi could not be restarted — {reason}"
        tail = exited.stderr_tail.strip().splitlines()[-1:] if exited.stderr_tail.strip() else []
        detail = (f"stderr: {tail[0][:300]}\n" if tail else "") + (
            "The transcript and your prompt stay here; ctrl+r or the button starts pi again on this session."
        )
        self.model.crashed(reason, detail)

    async def decline(self, request: UnknownUIRequest | RefusedDialogRequest) -> None:
        """An extension asked with a method pideck does not know, or for a dialog it cannot
        show (which a toast explains): answer "cancelled" so it does not wait forever (pi
        ignores answers to requests that expect none)."""
        try:
            await self.client.send(ExtensionUIResponse(id=request.id, cancelled=True))
        except RpcError:
            pass
        if isinstance(request, RefusedDialogRequest):
            self.tell.warn(f"An extension's {request.method} dialog could not be shown, so pideck cancelled it: "
                           f"{request.reason}", title="Dialog cancelled")

    # --- life -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start pi, load its session and its commands; a failure is said in the model. On a
        session file another pi has open already, no pi is started: the one that has it is
        shown (app/pi/one_writer.py)."""
        self.model.starting(time.monotonic())  # "starting pi… Ns" until get_state answers
        self.problems.check_log()
        taken = await asyncio.to_thread(taken_before_start, self.config) if self.writes and not self.client.running else None
        if taken is None:
            await self.client.start()
            if self.client.exited is not None:
                return  # its ChildExited record says why
            attached = self.attached()
            try:
                state = await self.client.call(GetState(), timeout=60)
            except RpcError as exc:
                if self.client.exited is None:
                    await self.could_not_start(f"pi did not answer get_state: {exc}")
                return
            taken = self.claim.taken(self.client, self.config, state.session_file) if self.writes else None
        if taken is not None:
            shown = await self.show_holder_of(taken)
            if not isinstance(shown, SessionState):
                if shown:
                    await self.could_not_start(shown)
                return
            state, attached = shown, True
        try:
            await self.reload(state, attached=attached)
        except RpcError as exc:
            if self.client.exited is None:
                await self.could_not_start(f"pideck could not load pi's session: {exc}")
            return
        self.ready = True
        self.model.started()
        if self.model.state is not None and self.model.state.model is None:  # pi's "unknown" stand-in too
            self.model.banner("error", "pi has no model to answer with", no_model_help(self.config))
        await self.apply_changes()
        await self.load_commands()

    async def show_holder_of(self, taken: dict[str, Any]) -> SessionState | str:
        """pi opened a session file another pi has open (`taken` says who): it is closed unused,
        and this session shows the held pi that has it, attached; pi's state then, else the
        line that says why it cannot ("" when the attach failed, its exit says why, or another
        session of this window has the file and is shown instead)."""
        self._remove_listener()  # (the exit of a pi that never wrote is nobody's business)
        self._remove_listener = lambda: None
        await self.client.close()
        if self.host.shown_here(str(taken.get("session_file"))):
            return ""
        found = await asyncio.to_thread(held_pi_for, taken, self.config)
        if isinstance(found, str):
            return found
        client = pi_client(found)
        self.config = found
        self.attach(client)
        await client.start()
        if client.exited is not None:
            return ""
        self.attached()
        try:
            state = await client.call(GetState(), timeout=60)
        except RpcError as exc:
            return "" if client.exited is not None else f"held pi {found.attach} did not answer get_state: {exc}"
        self.tell.say(f"Held pi {found.attach} had this session open already: this window shows it, attached "
                      "(pideck ls lists it)", title="Attached")
        return state

    async def _leave_file(self, taken: dict[str, Any]) -> None:
        """pi switched to a session file another pi has open: it is closed before it writes."""
        number = taken.get("number")
        where = f"held pi {number} (pideck ls)" if isinstance(number, int) else "another pideck's own pi"
        self.tell.warn(f"pi was closed: {Path(str(taken.get('session_file'))).name}, the session it switched to, is "
                       f"open in {where}", title="Session open elsewhere")
        await self.client.close()

    def attached(self) -> bool:
        """A held pi this window attached to (protocol/hold/): its messages before the run in
        progress are the model's now, before any record of the run, which follow as pi's do;
        a later restart starts a pi of its own."""
        snapshot = self.client.snapshot
        if snapshot is None:
            return False
        self.model.load_messages(snapshot.history)
        self.config = replace(self.config, attach=None)
        return True

    async def could_not_start(self, reason: str) -> None:
        """Say why the session could not start (the start-up error screen)."""
        self.model.could_not_start(reason)
        await self.apply_changes()

    async def load_commands(self) -> None:
        """pi's commands (extensions, prompt templates, skills), for completion and the
        palette; they stay as they were if pi does not answer."""
        try:
            commands = (await self.client.call(GetCommands())).commands
            self.commands = [command for command in commands if command.name != AFTER_USER_BASH]  # pideck's own
        except RpcDataError as exc:
            self.problems.bad_answer(exc)
        except RpcError:
            pass

    async def reload(self, state: SessionState | None = None, attached: bool = False) -> None:
        """Transcript, queue and stats from pi (after start, switch, fork, clone, new);
        `attached`: the transcript is the held pi's (`attached`), only state and stats are read."""
        if state is None:
            state = await self.client.call(GetState())
        model = self.model  # "loading session… N MB" until the messages are shown
        model.loading(time.monotonic())
        if (state.session_file and self.config.remote is None  # pi's file is on its host
                and (cwd := session_cwd(state.session_file, Path(self.config.cwd))) is not None):
            self.cwd = cwd
        model.set_state(state)  # the model's name is shown while the messages come
        if self.ready and self.writes and (taken := self.claim.taken(self.client, self.config, state.session_file)) is not None:
            await self._leave_file(taken)  # (a switch to a file another pi opened meanwhile)
            return
        self.host.in_background(self.apply_changes(), "flush")  # (not awaited: pi answers meanwhile)
        ticking = self.host.set_interval(LOADING_TICK, self._loading_tick)
        try:
            if not attached:
                model.load_messages((await self.client.call(GetMessages())).messages)
            if not state.pending_message_count and not attached:  # a session pi switched to starts with an empty queue
                model.apply(QueueUpdate(steering=[], follow_up=[]))
        finally:
            ticking.stop()
            model.loading(None)
            await self.apply_changes()
        await self.refresh_stats()  # (before start-up ends: the stats pane's rows wait for them)

    def _loading_tick(self) -> None:
        if self.model.life.loading_since is not None:
            self.model.loading(self.model.life.loading_since, self.client.receiving)
            self.host.in_background(self.apply_changes(), "flush")

    async def _refresh_stats_after_frame(self) -> None:
        """The stats asked for once the changes that made them stale are on screen: pi's
        answers, read and shown before, held back the frame with the end of a reply."""
        await self.host.after_frame()
        await self.refresh_stats()

    async def refresh_stats(self) -> None:
        try:
            stats = await self.client.call(GetSessionStats())
            state = await self.client.call(GetState())
        except RpcDataError as exc:
            self.problems.bad_answer(exc)
            return
        except RpcError:
            return
        self.model.set_stats(stats)
        self.model.set_state(state)
        await self.apply_changes()

    async def restart(self) -> None:
        """Start pi again on the session it had open and reload the transcript from it (Ctrl+R, /restart)."""
        running = self.client.running
        if running or self.restarting:
            if running:
                self.tell.say("pi is running; there is nothing to restart")
            return
        self.restarting = True
        self.model.restarting(True)
        await self.apply_changes()
        try:
            await self._restart()
        finally:
            self.restarting = False
            self.model.restarting(False)
            await self.apply_changes()

    async def _restart(self) -> None:
        model = self.model
        state = model.state
        session_file = state.session_file if state is not None else None
        await self.client.close()  # it has exited; this only releases its pipes
        # (held again if it was, a pi of the holder's own: the one attached to is gone; the
        # restarted pi goes on in the same recording)
        client = pi_client(replace(self.config, argv=resume_argv(self.config.argv, session_file), attach=None))
        self.attach(client)
        self._starting = client
        await client.start()
        if client.exited is not None:
            return  # its ChildExited record shows why, through _crashed
        try:
            state = await client.call(GetState(), timeout=60)
            if (taken := self.claim.taken(client, self.config, state.session_file)) is not None:
                await self._restart_shows_holder_of(taken)
                return
            if session_file is not None:
                await self.reload(state)
        except RpcError as exc:
            if isinstance(exc, RpcDataError):
                self.problems.bad_answer(exc)
            if client.exited is None:  # started but does not answer: stop it; its exit shows the reason
                await client.close(grace=0.5, term_grace=0.5)
            return
        self._starting = None
        if session_file is None:
            model.set_state(state)
            model.banner(
                "error",
                "pi restarted on a new, empty session",
                "This session was not saved (--no-session), so pi could not resume it: "
                "the messages above are not in the new session's context.",
            )
        else:
            model.banner("restart", "pi restarted", f"resumed session {session_file}")
        model.restarted()
        await self.apply_changes()
        await self.load_commands()

    async def _restart_shows_holder_of(self, taken: dict[str, Any]) -> None:
        """The session file is open in another pi by now (one held went on while this window
        lost it): the pi just started is closed unused, and the held one shown."""
        shown = await self.show_holder_of(taken)
        if isinstance(shown, str):
            if shown:
                self.model.crashed("pi was not restarted", shown)
            return
        self._starting = None
        await self.reload(shown, attached=True)
        self.model.banner("restart", "pi shown again", "the held pi that had this session open, attached")
        self.model.restarted()
        await self.apply_changes()
        await self.load_commands()

    @property
    def kept(self) -> bool:
        """pi went on at this window's quit: another window shows it (protocol/hold/)."""
        return self.client.link.kept

    @property
    def held(self) -> bool:
        """pi is the holder's (protocol/hold/): it can go on without this window."""
        return self.client.held is not None

    def report_draft(self, draft: str) -> None:
        """Tell a held pi's holder what the prompt holds (kept for the next window if this one goes)."""
        self.client.link.report_draft(draft)

    async def close(self, detach: bool = False, draft: str = "") -> None:
        """End pi in order; with `detach`, a held pi is left to the holder instead, with
        `draft` for the window that attaches next."""
        if detach:
            try:
                self.client.detach(draft)
            except LinkError:
                pass  # (a pi of this window's own: it ends with it)
            else:
                await self.client.link.written(LEAVE_WAIT)  # (the draft whole in the holder before this window ends)
                return
        self.report_draft(draft)  # (a held pi may stay for another window: the holder keeps the draft then)
        await self.client.close()
        self.claim.release()
