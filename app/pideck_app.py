"""The pideck Textual app: wires the protocol client and session model to the screen.

Records from pi are queued by the record pump (app/record_pump.py), which never
waits on the UI; once per frame the batch is folded into the session model and only
what changed is re-rendered. User actions go back to pi as typed commands.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingsMap
from textual.driver import Driver
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.widgets import Static

from app.attachments import Attachments
from app.command_keys import CommandKeys
from app.external_editor import edit_prompt
from app.gc_pause import StreamingGC
from app.exit_signals import ExitSignals
from app.hangup import HANGUP_EXIT, install_hangup_guards, stdin_fd, terminal_driver, watch_hangup
from app.keys import install_alt_arrows, install_alt_keys
from app.launch import LaunchConfig, no_model_help
from app.palette import KeyActions, PiCommands, PideckCommands
from app.notifications import Toasts, notifications_command
from app.notifier import Notifier
from app.problem_monitor import ProblemMonitor
from app.record_pump import RecordPump, fold_in_slices
from app.pi_settings import copy_on_select, scrollbar_setting, terminal_progress, wheel_lines
from app.selection_copy import SelectionCopy
from app.terminal_progress import TerminalProgress
from app.slash_commands import REGISTRY, parse
from app import queue_actions
from app.command_context import CommandContext
from app.crash_recovery import CrashRecovery
from protocol.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.commands import (
    Abort,
    AbortBash,
    Bash,
    Command,
    ExtensionUIResponse,
    GetCommands,
    GetMessages,
    GetSessionStats,
    GetState,
    Prompt,
)
from protocol.events import AgentSettled, QueueUpdate
from protocol.extension_ui import DIALOG_REQUESTS, DialogRequest, RefusedDialogRequest, UnknownUIRequest, as_text
from protocol.protocol_log import ProtocolLog, default_log_path
from protocol.redact import Redactor
from protocol.responses import BashResult, CommandInfo, SessionState
from protocol.session_files import session_cwd
from protocol.session_model import SessionModel
from widgets.attachments import AttachmentBar
from widgets.completion import CompletionMenu, complete
from widgets.crash_bar import CrashBar
from widgets.dialogs import ExtensionDialog, dialog_for
from widgets.extension_widgets import MAX_WIDGETS, more_widgets, widget_text
from widgets.key_footer import KeyFooter
from widgets.message_views import tool_summary
from widgets.prompt_editor import PromptEditor
from widgets.safe_text import clean
from widgets.side_panes import QueuePane, StatsPane, StatusLine, ToolLog
from widgets.startup_error import StartupErrorScreen
from widgets.tool_output import ShowToolOutput, ToolOutputScreen
from widgets.transcript import Transcript
from widgets.transcript_search import SearchBar

QUIT_WINDOW = 1.5  # seconds within which a second ctrl+c on an empty editor quits
SIDE_MIN_WIDTH = 100  # columns below which the side panes hide themselves
# Seconds a timed dialog must have left when its turn comes to be shown; one with less is
# reported as timed out (pi's timer started a little before pideck saw the request, and a
# dialog that closes at once cannot be answered).
DIALOG_MIN_LEFT = 1.0


class PideckApp(CommandKeys, App[int]):
    CSS_PATH = "pideck.tcss"
    TITLE = "pideck"
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "f1"  # pi's Ctrl+P cycles models
    COMMANDS = App.COMMANDS | {PideckCommands, PiCommands, KeyActions}
    BINDINGS = [
        Binding("f1", "command_palette", "Commands", show=False, priority=True,
                tooltip="Command palette: pideck's and pi's commands, and the actions of these keys"),
        Binding("ctrl+l", "select_model", "Model", tooltip="Select a model (/model)"),
        Binding("ctrl+p", "cycle_model", "Next model", show=False, tooltip="Next model (pi's cycle_model)"),
        Binding("ctrl+shift+p,alt+p", "cycle_model_back", "Previous model", show=False,
                tooltip="Previous model (Alt+P where the terminal cannot tell Ctrl+Shift+P)"),
        Binding("shift+tab", "cycle_thinking", "Thinking level", show=False, priority=True,
                tooltip="Next thinking level (/thinking sets one)"),
        Binding("ctrl+x", "copy_last", "Copy answer", show=False, priority=True,
                tooltip="Copy the last answer (/copy); with a selection in the prompt, cut it"),
        Binding("escape", "interrupt", "Abort", show=True,
                tooltip="Abort: clear the queue into the prompt, then stop the run, a retry, a compaction or !cmd"),
        Binding("alt+up", "restore_queue", "Restore queue", show=False),
        Binding("f5", "edit_queue", "Edit queue", show=False),
        Binding("ctrl+g", "external_editor", "External editor", show=False),
        Binding("ctrl+c", "clear_or_quit", "Clear/Quit", priority=True,
                tooltip="Copy the selection; else clear the prompt, twice to quit"),
        Binding("ctrl+d", "quit_if_empty", "Quit", show=False, priority=True,
                tooltip="Quit when the prompt is empty (else delete right)"),
        Binding("ctrl+t", "toggle_thinking", "Thinking", tooltip="Collapse or show thinking blocks"),
        Binding("ctrl+o", "toggle_tools", "Tool output", tooltip="Expand or collapse tool output"),
        Binding("f2", "toggle_side", "Panes", tooltip="Hide or show the side panes"),
        Binding("f3", "focus_tool_log", "Tool log", tooltip="Focus the tool log (Enter jumps to a tool)"),
        Binding("f8", "notifications", "Notifications", show=False,
                tooltip="List the notifications, with the full text of each (/notifications)"),
        Binding("f4", "focus_editor", "Editor", show=False, tooltip="Back to the prompt"),
        Binding("ctrl+home", "transcript('top')", "Top", show=False,
                tooltip="Scroll to the start of the transcript; there, load earlier messages"),
        Binding("ctrl+end", "transcript('bottom')", "End", show=False,
                tooltip="Scroll to the end of the transcript and follow new output"),
        Binding("ctrl+shift+up,ctrl+up", "transcript('previous_prompt')", "Previous prompt", show=False,
                tooltip="Scroll to your previous message"),
        Binding("ctrl+shift+down,ctrl+down", "transcript('next_prompt')", "Next prompt", show=False,
                tooltip="Scroll to your next message (after the last, to the end)"),
        Binding("ctrl+s,ctrl+shift+f", "search", "Search", show=False,
                tooltip="Search the transcript (Enter/Down next, Up previous, Esc closes)"),
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True,
                tooltip="Suspend pideck to the shell (fg brings it back); pi keeps its state"),
        Binding("ctrl+r", "restart_pi", "Restart pi",
                tooltip="Start pi again after it exited, on the same session (/restart)"),
    ]

    def __init__(self, config: LaunchConfig, *, client: RpcClient | None = None) -> None:
        super().__init__()
        install_alt_keys()
        install_alt_arrows()
        install_hangup_guards()
        self.config = config
        self.model = SessionModel()
        # pi's working directory (`@` paths, /resume's folder): where it was started, then the
        # one its session records, as a switch to a session of another directory moves pi there
        self.cwd = Path(config.cwd)
        self.attachments = Attachments(self, self.model.image_names, lambda: self.cwd)
        redactor = Redactor.from_env(config.env)
        self.client = client or RpcClient(
            config.argv, env=config.env, cwd=config.cwd, redactor=redactor,
            protocol_log=ProtocolLog(config.protocol_log, redactor=redactor, fallback=default_log_path()),
        )
        self._remove_listener = lambda: None
        self.tell = Notifier(self.notify)  # toasts of pideck's own, markup off
        self.problems = ProblemMonitor(self, self.model, lambda: self.client,
                                       closing=lambda: not self.is_running or self._closing)
        self.recovery = CrashRecovery(
            self, config, self.model, client=lambda: self.client, attach_client=self.attach_client,
            reload_session=self.reload_session, load_commands=self.load_commands, apply_changes=self._apply_changes,
            forget_dialogs=self._forget_dialogs, bad_answer=self.problems.bad_answer,
        )
        self.toasts = Toasts(self, self._unnotify)
        self.selection = SelectionCopy(self, copy_on_select(config), lambda: self.searching)
        self.progress = TerminalProgress(self.set_interval, self._write_to_terminal, terminal_progress(config))
        self.command_context = CommandContext(
            notify=self.notify, config=config, session=self.model, attachments=self.attachments,
            client=lambda: self.client, cwd=lambda: self.cwd, editor=lambda: self.query_one(PromptEditor),
            ask=self.push_screen_wait, reload=self.reload_session, load_commands=self.load_commands,
            refresh=self.refresh_stats, bad_answer=self.problems.bad_answer, notices=lambda: self.toasts.center,
            key_bindings=lambda: (self.key_bindings, self.query_one(PromptEditor).key_bindings),
            copy=self.copy_to_clipboard, restart=self.recovery.restart, quit=lambda: self.exit(self.return_code or 0),
            commands=REGISTRY,
        )
        self.commands: list[CommandInfo] = []
        self.pump = RecordPump(
            self._apply_records, self._fold_ahead, schedule=self.set_timer, soon=self.call_next,
            run=lambda flush: self.run_worker(flush, name="flush", group="flush", exit_on_error=True),
            closed=lambda: self.leaving,
        )
        self._status_line: StatusLine | None = None
        self._dialogs: asyncio.Queue[tuple[DialogRequest, float | None]] = asyncio.Queue()  # and its deadline
        self._applying = asyncio.Lock()  # one _apply_changes at a time (flush and workers)
        self._gc = StreamingGC(self.set_timer)
        self._thinking_collapsed = False
        self._tools_expanded = False
        self._last_ctrl_c = 0.0
        self._leaving = False  # exit() was called: what pi sends now is dropped
        self._side_chosen: bool | None = None  # F2 / F3 showed or hid the side panes
        self._session_ready = False
        self._exit_status = 0
        self._exit_signals: ExitSignals | None = None

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver(super().get_driver_class())

    @property
    def key_bindings(self) -> BindingsMap:
        """The app's key bindings (for the palette and /hotkeys)."""
        return self._bindings

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="conversation"):
                yield Transcript(self.model, wheel_lines=wheel_lines(self.config), id="transcript",
                                 classes=f"-scrollbar-{scrollbar_setting(self.config)}")
                yield SearchBar(id="search")
                yield CrashBar(id="crash-bar")
                yield Vertical(id="widgets-above", classes="extension-widgets")
                yield CompletionMenu(id="completion")
                yield AttachmentBar(id="attachments")
                yield PromptEditor(id="editor")
                yield Vertical(id="widgets-below", classes="extension-widgets")
            with Vertical(id="side"):
                yield StatsPane(self.model, id="stats")
                yield QueuePane(self.model, id="queue")
                yield ToolLog(self.model, id="tool-log")
        yield StatusLine(self.model, id="status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._status_line = self.query_one(StatusLine)  # the tick finds it without a walk of the DOM
        self._status_line.starting_since = time.monotonic()  # "starting pi… Ns" until get_state answers
        editor = self.query_one(PromptEditor)
        editor.focus()
        editor.border_title = "prompt · enter send · alt+enter follow-up · ctrl+j newline · / commands · @ files"
        editor.menu = self.query_one(CompletionMenu)
        editor.completer = lambda before: complete(before, self.all_commands(), self.cwd)
        editor.paste_handler = self.attachments.paste
        self.query_one(SearchBar).transcript = self.query_one(Transcript)
        self._fit_side(self.size.width)
        self.attach_client(self.client)
        self._refresh_panes()
        self.set_interval(0.25, self._tick)
        self.app_resume_signal.subscribe(self, self._resumed)
        if not self.is_headless and (fd := stdin_fd()) is not None:
            watch_hangup(asyncio.get_running_loop().add_signal_handler, self.set_interval, fd, self._hang_up)
        if self._exit_signals is not None:
            self._exit_signals.attach(asyncio.get_running_loop(), self._signalled)
        self.start_session()
        self.run_dialogs()

    def _resumed(self, _: object) -> None:
        """Back from Ctrl+Z: the shell had the terminal, so all of it is painted again."""
        self.refresh(layout=True)

    def _hang_up(self) -> None:
        """The terminal is gone: pi is closed in order (on unmount) and pideck exits."""
        self.exit(HANGUP_EXIT)

    def _signalled(self, signum: int) -> None:
        """SIGINT or SIGTERM (app/exit_signals.py): leave as on Ctrl+C twice."""
        self.exit(128 + signum)

    def exit(self, result: int | None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Leave, once: a later quit, signal or hang-up does not change how."""
        if not self._leaving:
            self._leaving = True
            super().exit(result, return_code, message)

    @property
    def leaving(self) -> bool:
        """The app is exiting or has stopped: records, timers and workers leave the views alone."""
        return self._leaving or not self.is_running

    def run_app(self, signals: ExitSignals | None = None) -> int:
        """Run full screen, `signals` ending it in order; the exit code is 0 unless pi could
        not be started, 128 + the signal's number after a signal, 129 after a hang-up."""
        self._exit_signals = signals
        try:
            result = self.run()
        finally:
            if signals is not None:
                signals.detach()
            self.config.close()
        return result if isinstance(result, int) else (self.return_code or self._exit_status)

    # --- pi records -----------------------------------------------------------------------

    def _fold_ahead(self, records: list[Any]) -> bool:
        """Fold deltas a flood holds into the model (not while views take changes: they
        read the model between awaits)."""
        if self._applying.locked():
            return False
        self.model.apply_all(records)
        return True

    async def _apply_records(self, records: list[Any]) -> None:
        """A flush: what needs the app is handled, the records are folded into the model
        and the views take the changes of the whole flush at once, for one frame."""
        for record in records:
            if isinstance(record, DIALOG_REQUESTS):  # its timeout runs from now, in pi too
                self._dialogs.put_nowait((record, record.deadline(time.monotonic())))
            elif isinstance(record, ChildExited):
                self._child_exited(record)
            elif isinstance(record, (UnknownUIRequest, RefusedDialogRequest)):
                self.decline_request(record)
            elif isinstance(record, AgentSettled):
                self.refresh_stats()
        await fold_in_slices(records, self.model.apply_all)
        self._gc.streaming(self.model.running)
        await self._apply_changes()

    async def _apply_changes(self) -> None:
        async with self._applying:  # views mounting for one batch are not touched by another
            await self._apply_changes_now()

    async def _apply_changes_now(self) -> None:
        if self.leaving or self._closing:
            return  # a worker finishing while the app closes: the views are going away
        changes = self.model.take_changes()
        if not changes:
            return
        transcript = self.query_one(Transcript)
        with self.batch_update():
            await transcript.apply(changes)
            if changes.tools or changes.reset:  # a loaded session brings its tool runs
                self.query_one(ToolLog).refresh_runs()
            if changes.queue:
                self.query_one(QueuePane).refresh_queue()
            if changes.session or changes.usage:
                self.query_one(StatsPane).refresh_stats()
            if changes.extension_ui:
                await self._refresh_extension_widgets()
            if changes.run or changes.extension_ui or changes.protocol_errors or changes.session:
                self.query_one(StatusLine).refresh_status()  # (session: a model chosen, or none)
            if changes.run:
                self.progress.show(self.model.running)
            if changes.editor_text is not None:
                self.query_one(PromptEditor).load(clean(changes.editor_text))  # no terminal controls back to pi
            if changes.title is not None:
                self.set_terminal_title(changes.title)
            for severity, message in changes.notifications:
                self.notify(clean(message), severity=_SEVERITY.get(severity, "information"), markup=False)
            self.problems.check()

    def _tick(self) -> None:
        """Animate the spinner and running tool durations; report what pi sent wrong."""
        status = self._status_line
        if not self.is_running or self._closing or status is None or not status.is_attached:
            return  # the app is closing: its widgets are going away
        self.problems.check()
        if self.model.running or status.starting_since is not None:
            status.refresh_status()
            if any(not run.done for run in self.model.tools.values()):
                self.query_one(ToolLog).refresh_runs()

    def _refresh_panes(self) -> None:
        self.query_one(StatsPane).refresh_stats()
        self.query_one(QueuePane).refresh_queue()
        self.query_one(ToolLog).refresh_runs()
        self.query_one(StatusLine).refresh_status()

    async def _refresh_extension_widgets(self) -> None:
        for placement, container_id in (("aboveEditor", "#widgets-above"), ("belowEditor", "#widgets-below")):
            container = self.query_one(container_id, Vertical)
            await container.remove_children()
            widgets = [widget for _, widget in sorted(self.model.widgets.items()) if widget.placement == placement]
            texts = [widget_text(widget.lines) for widget in widgets[:MAX_WIDGETS]]
            if len(widgets) > MAX_WIDGETS:
                texts.append(more_widgets(len(widgets) - MAX_WIDGETS))
            await container.mount_all(Static(text, classes="extension-widget") for text in texts)

    def _write_to_terminal(self, sequence: str) -> None:
        if self._driver is not None:
            self._driver.write(sequence)

    def set_terminal_title(self, title: str) -> None:
        """An extension's setTitle: the terminal title, with control characters removed."""
        self.title = clean(title).replace("\n", " ")[:200]
        if self._driver is not None and not self.is_headless:
            self._driver.write(f"\x1b]2;{self.title}\x07")

    # --- start-up -------------------------------------------------------------------------

    @work(exclusive=True, group="session")
    async def start_session(self) -> None:
        self.problems.check_log()
        await self.client.start()
        if self.client.exited is not None:
            return  # _child_exited shows why
        try:
            state = await self.client.call(GetState(), timeout=60)
        except RpcError as exc:
            if self.client.exited is None:
                self._show_startup_error(f"pi did not answer get_state: {exc}")
            return
        try:
            await self.reload_session(state)
        except RpcError as exc:
            if self.client.exited is None:
                self._show_startup_error(f"pideck could not load pi's session: {exc}")
            return
        self._session_ready = True
        self.query_one(StatusLine).starting_since = None
        self.query_one(StatusLine).refresh_status()
        if self.model.state is not None and self.model.state.model is None:  # pi's "unknown" stand-in too
            self.model.banner("error", "pi has no model to answer with", no_model_help(self.config))
            await self._apply_changes()
        await self.load_commands()

    async def load_commands(self) -> None:
        """pi's commands (extensions, prompt templates, skills), for completion and the
        palette; they stay as they were if pi does not answer."""
        try:
            self.commands = (await self.client.call(GetCommands())).commands
        except RpcDataError as exc:
            self.problems.bad_answer(exc)
        except RpcError:
            pass

    async def reload_session(self, state: SessionState | None = None) -> None:
        """Transcript, queue and stats from pi (after start, switch, fork, clone, new)."""
        if state is None:
            state = await self.client.call(GetState())
        status = self.query_one(StatusLine)  # "loading session… N MB" until the messages are shown
        status.loading_since, status.received = time.monotonic(), lambda: self.client.receiving
        status.refresh_status()
        ticking = self.set_interval(0.25, status.refresh_status)
        try:
            messages = await self.client.call(GetMessages())
            if state.session_file and (cwd := session_cwd(state.session_file, Path(self.config.cwd))) is not None:
                self.cwd = cwd
            self.model.set_state(state)
            self.model.load_messages(messages.messages)
            if not state.pending_message_count:  # a session pi switched to starts with an empty queue
                self.model.apply(QueueUpdate(steering=[], follow_up=[]))
            await self._apply_changes()
        finally:
            ticking.stop()
            status.loading_since = None
            status.refresh_status()
        self.refresh_stats()

    @work(group="stats")
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
        await self._apply_changes()

    def _child_exited(self, exited: ChildExited) -> None:
        if self.leaving:
            return  # pideck closed it
        if not self._session_ready:
            self._show_startup_error(exited.error or f"pi exited during start-up (exit code {exited.returncode})")
            return
        self.recovery.child_exited(exited)  # the session model adds the banner with pi's stderr

    def attach_client(self, client: RpcClient) -> None:
        """Make `client` the app's pi (at start and after a restart); records flow from it."""
        self._remove_listener()
        if client is not self.client:
            self.problems.client_replaced()
            self.client = client
        self._remove_listener = client.add_listener(self.pump.feed)

    def action_restart_pi(self) -> None:
        self.run_worker(self.recovery.restart(), name="restart", group="restart", exclusive=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "restart_pi":  # offered (and shown in the footer) only while pi is not running
            return self._session_ready and not self.client.running and not self.recovery.restarting
        return super().check_action(action, parameters)  # CommandKeys: keys that fall through

    @work(group="send")
    async def decline_request(self, request: UnknownUIRequest | RefusedDialogRequest) -> None:
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

    def _show_startup_error(self, reason: str) -> None:
        self._exit_status = 1
        status = self.query_one(StatusLine)
        status.starting_since, status.notice = None, "pi could not start"
        status.refresh_status()
        self.push_screen(StartupErrorScreen(reason, self.client.stderr_tail, self.config), lambda _: self.exit(1))

    # --- dialogs --------------------------------------------------------------------------

    @work(group="dialogs")
    async def run_dialogs(self) -> None:
        """Show extension dialogs one after another, in the order pi asked; one whose
        timeout ran out while it waited is not shown (pi went on without it)."""
        while True:
            request, deadline = await self._dialogs.get()
            if deadline is not None and deadline - time.monotonic() < DIALOG_MIN_LEFT:
                self.dialog_timed_out(request)
                continue
            response = await self.push_screen_wait(dialog_for(request, deadline))
            if response is not None and self.client.running:
                try:
                    await self.client.send(response)
                except RpcError as exc:
                    self.tell.fail(f"could not answer the extension: {exc}")

    def _forget_dialogs(self) -> None:
        """Drop the extension dialogs waiting for their turn, and close the one shown (pi exited)."""
        while not self._dialogs.empty():
            self._dialogs.get_nowait()
        if isinstance(self.screen, ExtensionDialog):
            self.screen.dismiss(None)

    def dialog_timed_out(self, request: DialogRequest) -> None:
        """Report a dialog whose timeout ran out before its turn came."""
        title = " ".join(clean(as_text(request.title)).split())[:80]
        self.tell.warn(f"An extension's {type(request).__struct_config__.tag} dialog “{title}” timed out before "
                       "pideck could show it; pi went on without an answer", title="Dialog timed out")

    # --- sending --------------------------------------------------------------------------

    @on(PromptEditor.Submitted)
    async def submit(self, event: PromptEditor.Submitted) -> None:
        text = event.text
        if not self._session_ready and parse(text) is None:
            self.tell.warn("pi is still starting: the prompt stays here; send it once the status line says ready.",
                           title="Not sent yet")
            return
        if "@" in text:
            text = await self.attachments.scan(self.query_one(PromptEditor), final=True)
        if not text.strip() and not self.attachments.bar.attachments:
            return
        editor = self.query_one(PromptEditor)
        editor.remember(text)
        editor.load("")
        if text.startswith("!"):
            exclude = text.startswith("!!")
            self.query_one(Transcript).to_bottom()  # its output comes at the end: follow it
            self.run_bash(text[2 if exclude else 1 :].strip(), exclude)
            return
        invoked = parse(text)
        if invoked is not None:
            command, args = invoked
            self.run_worker(command.run(self.command_context, args), name=f"/{command.name}", group="slash")
            return
        images = await self.attachments.take(text, queued=self.model.running)
        if self.model.running:  # a prompt with its streamingBehavior, which pi runs at once if it has just gone idle
            behavior = "followUp" if event.mode == "follow_up" else "steer"
            self.send_command(Prompt(message=text, images=images, streaming_behavior=behavior), restore=text)
        else:  # a new prompt's answer comes at the end: follow it (a steer leaves the reader where they are)
            self.query_one(Transcript).to_bottom()
            self.send_command(Prompt(message=text, images=images), restore=text)

    @on(PromptEditor.Changed)
    async def attach_images(self, event: PromptEditor.Changed) -> None:
        if isinstance(event.text_area, PromptEditor):
            await self.attachments.scan(event.text_area)

    def all_commands(self) -> list[CommandInfo]:
        """pideck's own `/` commands, then pi's (extensions, prompt templates, skills)."""
        own = [CommandInfo(name=c.name, description=c.description, source="pideck") for c in REGISTRY.values()]
        return [*own, *(c for c in self.commands if c.name not in REGISTRY)]

    @work(group="send")
    async def send_command(self, command: Command, restore: str = "") -> None:
        try:
            await self.client.call(command)
        except RpcDataError as exc:  # pi took the message; only its answer could not be read
            self.problems.bad_answer(exc)
        except RpcError as exc:
            self.tell.fail(str(exc), title="pi refused")
            editor = self.query_one(PromptEditor)
            if restore and not editor.text:
                editor.load(restore)  # never lose what the user typed
            # the whole of pi's answer stays in the transcript, where a toast cuts it and fades
            self.model.banner("error", "pi refused the message", str(exc))
            await self._apply_changes()
            if images := getattr(command, "images", None):
                await self.attachments.restore(images)

    @work(group="bash")
    async def run_bash(self, command: str, exclude: bool) -> None:
        if not command:
            return
        request = Bash(command=command, exclude_from_context=exclude, id=self.client.next_id())
        self.model.begin_bash(request.id or "", command, exclude)
        await self._apply_changes()
        try:
            result: BashResult = await self.client.call(request)
            self.model.end_bash(request.id or "", result)
        except RpcError as exc:
            self.model.end_bash(request.id or "", None, str(exc))
        await self._apply_changes()

    # --- actions --------------------------------------------------------------------------

    async def action_interrupt(self) -> None:
        """Esc: while pi works, clear_queue (the texts go back into the editor), then abort;
        otherwise stop a /compact or a running `!cmd`."""
        if not self.client.running:
            return
        try:
            if self.model.running:
                try:
                    context = self.command_context
                    await queue_actions.put_in_editor(context, await queue_actions.take_queue(context))
                except RpcDataError as exc:  # pi emptied its queue but the answer is unreadable: abort all the same
                    self.problems.bad_answer(exc)
                await self.client.call(Abort())
            elif self.model.compaction is not None:  # a /compact: pi's abort stops it
                await self.client.call(Abort())
            elif self.model.bash_running:
                await self.client.call(AbortBash())
        except RpcError as exc:
            self.tell.fail(str(exc), title="abort failed")

    async def action_restore_queue(self) -> None:
        """Alt+Up: the queued messages back into the editor, without aborting."""
        if len(self.screen_stack) == 1:
            await queue_actions.restore_queue(self.command_context)

    def action_edit_queue(self) -> None:
        if len(self.screen_stack) == 1:
            self.run_worker(queue_actions.edit_queue(self.command_context), name="edit queue", group="queue-editor")

    def action_external_editor(self) -> None:
        """Ctrl+G: edit the prompt in $VISUAL / $EDITOR."""
        if len(self.screen_stack) == 1:
            edit_prompt(self, self.config.env)

    def action_clear_or_quit(self) -> None:
        """Ctrl+C: copy the text selected with the mouse, if any; else clear the prompt, and
        on an empty prompt a second Ctrl+C quits."""
        if self.selection.copy():
            return
        editor = self.query_one(PromptEditor)
        if editor.text:
            editor.load("")
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit(self._exit_status)
            return
        self._last_ctrl_c = now
        self.notify("Press ctrl+c again to quit", timeout=QUIT_WINDOW)

    def action_quit_if_empty(self) -> None:
        if not self.query_one(PromptEditor).text:
            self.exit(self._exit_status)

    def action_toggle_thinking(self) -> None:
        self._thinking_collapsed = not self._thinking_collapsed
        self.query_one(Transcript).set_thinking_collapsed(self._thinking_collapsed)

    def action_toggle_tools(self) -> None:
        self._tools_expanded = not self._tools_expanded
        self.query_one(Transcript).set_tools_expanded(self._tools_expanded)

    async def action_search(self) -> None:
        if len(self.screen_stack) == 1:  # not from under a dialog
            await self.query_one(SearchBar).open()

    @property
    def searching(self) -> bool:
        """The search bar is open (its matches are shown as selections)."""
        return bool(self.query_one(SearchBar).display)

    def on_text_selected(self) -> None:
        self.selection.selected()

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.query_one(PromptEditor).focus()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_side(event.size.width)

    def _fit_side(self, width: int) -> None:
        """Side panes only where the conversation keeps room (at start and on every resize),
        unless F2 or F3 chose otherwise."""
        if self._side_chosen is None:
            self.query_one("#side").display = width >= SIDE_MIN_WIDTH

    def action_toggle_side(self) -> None:
        side = self.query_one("#side")
        side.display = self._side_chosen = not side.display

    def action_focus_tool_log(self) -> None:
        side = self.query_one("#side")
        side.display = self._side_chosen = True
        self.query_one(ToolLog).focus()

    def action_focus_editor(self) -> None:
        self.query_one(PromptEditor).focus()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast, pideck's and extensions', goes through the notification center
        (app.notifications): a few at once, cut short, all of them kept for F8."""
        self.toasts.notify(message, title, severity, timeout, markup)

    def action_notifications(self) -> None:
        """F8: /notifications."""
        if len(self.screen_stack) == 1:
            self.run_worker(notifications_command(self.command_context, ""), name="/notifications", group="slash")

    async def action_transcript(self, move: str) -> None:
        """Move around the transcript from wherever the focus is (as pi's keys do)."""
        transcript = self.query_one(Transcript)
        if move == "top":
            await transcript.to_top()
        elif move == "bottom":
            transcript.to_bottom()
        elif move in ("page_up", "page_down"):
            transcript.page(-1 if move == "page_up" else 1)
        else:
            await transcript.jump_prompt(-1 if move == "previous_prompt" else 1)

    @on(ToolLog.Selected)
    async def jump_to_tool(self, event: ToolLog.Selected) -> None:
        """To the tool call in the transcript, mounting it first if it was left out."""
        transcript = self.query_one(Transcript)
        view = transcript.view_for_tool(event.tool_call_id)
        key = self.model.call_item(event.tool_call_id)
        if view is None and key is not None and await transcript.reveal(key):
            view = transcript.view_for_tool(event.tool_call_id)
        if view is not None:
            transcript.show_view(view)
            view.add_class("-flash")
            self.set_timer(1.0, lambda: view.remove_class("-flash"))

    @on(ShowToolOutput)
    def show_tool_output(self, event: ShowToolOutput) -> None:
        run = self.model.tools.get(event.tool_call_id)
        if run is None or not run.output:
            self.tell.say("This tool has printed nothing yet.")
            return
        self.push_screen(ToolOutputScreen(f"{run.name} {tool_summary(run.name, run.args)}", run.output))

    async def on_unmount(self) -> None:
        self.progress.clear()
        self._gc.close()
        await self.client.close()


_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
