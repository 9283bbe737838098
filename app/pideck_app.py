"""The pideck Textual app: the host of one pi session (app/pi/session.py), extension
dialogs, toasts, the palette and the global keys.

The session owns pi's client, its life, the record pump and the session model; once per
frame it hands the model's changes to `show_changes`, which has the main screen
(app/main_screen.py) re-render only what changed and does what they ask of the app
(dialogs, alerts, the start-up error). The conversation's panes, keys and prompt are the
main screen's.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from collections.abc import Coroutine, Iterable
from typing import Any

from rich.console import RenderableType
from textual import events, work
from textual.app import App, ScreenStackError, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingsMap
from textual.driver import Driver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker

from app.attachments import Attachments
from app.gc_pause import StreamingGC
from app.terminal.signals import ExitSignals
from app.terminal.hangup import HANGUP_EXIT, install_hangup_guards, stdin_fd, terminal_driver, watch_hangup
from app.terminal.keys import install_alt_arrows, install_alt_keys
from app.keybindings import pi_keymap
from app.pi.launch import LaunchConfig
from app.commands.login import run_in_foreground
from app.main_screen import MainScreen
from app.command_palette import KeyActions, PiCommands, PideckCommands
from app.git_branch import BranchFollower
from app.toasts import Toasts
from app.notifier import Notifier
from app.pi.settings import copy_on_select, display, terminal_progress
from app.selection_copy import SelectionCopy
from app.run_alerts import RunAlerts, notify_setting, run_error
from app.terminal.progress import TerminalProgress
from app.themes import Themes
from app.terminal.unchanged_lines import TerminalLines, UnchangedLeftOut
from app.commands.registry import REGISTRY
from app.commands.context import CommandContext
from app.terminal.dim_filter import use_safe_dim_filter
from app.pi.checkpoint_launch import with_checkpoints
from app.pi.session import PiSession
from app.terminal.type_ahead import HeldKeys, keys_in
from protocol.wire.client import RpcClient, RpcError
from protocol.files.pi_colors import RGB
from protocol.wire.extension_ui import DialogRequest, as_text
from protocol.wire.responses import CommandInfo
from protocol.files.session_files import agent_dir
from protocol.state.notification_center import NotificationCenter
from protocol.state.session_model import Changes
from widgets.screens.dialogs import ExtensionDialog, dialog_for
from widgets.prompt_editor import PromptEditor
from widgets.safe_text import clean
from widgets.screens.startup_error import StartupErrorScreen
from widgets.textual_private import CompositorUpdate

QUIT_WINDOW = 1.5  # seconds within which a second ctrl+c on an empty editor quits
# Seconds a timed dialog must have left when its turn comes to be shown; one with less is
# reported as timed out (pi's timer started a little before pideck saw the request, and a
# dialog that closes at once cannot be answered).
DIALOG_MIN_LEFT = 1.0


class PideckApp(App[int], inherit_bindings=False):  # not Textual's Ctrl+Q (quit at once): pi has none
    CSS_PATH = "pideck.tcss"
    TITLE = "pideck"
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "f1"  # pi's Ctrl+P cycles models
    COMMANDS = App.COMMANDS | {PideckCommands, PiCommands, KeyActions}
    session_class: type[PiSession] = PiSession
    # The keys that work over every screen; the conversation's are MainScreen's.
    BINDINGS = [
        Binding("f1", "command_palette", "Commands", show=False, priority=True,
                tooltip="Command palette: pideck's and pi's commands, and the actions of these keys"),
        Binding("ctrl+c", "clear_or_quit", "Clear/Quit", priority=True,
                tooltip="Copy the selection; else clear the prompt, twice to quit", id="app.clear"),
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True,
                tooltip="Suspend pideck to the shell (fg brings it back); pi keeps its state", id="app.suspend"),
    ]

    def __init__(self, config: LaunchConfig, *, client: RpcClient | None = None,
                 terminal_colors: tuple[RGB | None, RGB | None] = (None, None), type_ahead: bytes = b"") -> None:
        super().__init__()
        use_safe_dim_filter(self._filters)  # TEXTUAL_FILTERS=dim with the terminal's own colours
        install_alt_keys()
        install_alt_arrows()
        install_hangup_guards()
        if client is None:
            config = with_checkpoints(config)
        self.config = config
        self.pi = self.session_class(config, self, client)  # pi's client, life, record pump and session model
        self.session = self.pi.model
        self.pump = self.pi.pump
        self.problems = self.pi.problems
        self.attachments = Attachments(self, self.session.image_names, lambda: self.cwd)
        self.tell = Notifier(self.notify)  # toasts of pideck's own, markup off
        self.themes = Themes(config, register=self.register_theme, use=self._use_theme, console=lambda: self.console,
                             warn=lambda text: self.tell.warn(text, title="Theme"), background=terminal_colors[0],
                             foreground=terminal_colors[1])  # (the terminal's background and foreground)
        self.toasts = Toasts(self, self._unnotify)
        self.selection = SelectionCopy(self, copy_on_select(config), lambda: self.main.searching)
        self.progress = TerminalProgress(self.set_interval, self._write_to_terminal, terminal_progress(config))
        self.alerts = RunAlerts(self._write_to_terminal, notify_setting(config.env), focused=lambda: self.app_focus,
                                title=lambda: self.title, env=config.env)  # bell, desktop notification, title mark
        self.terminal_lines = TerminalLines()
        self.command_context = CommandContext(self.pi, self, attachments=self.attachments, themes=self.themes,
                                              commands=REGISTRY)
        self.main = MainScreen(self.command_context, self.selection, commands=self.all_commands,
                               keymap=lambda: self.keys.keymap)
        self._dialogs: asyncio.Queue[tuple[DialogRequest, float | None]] = asyncio.Queue()  # and its deadline
        self._gc = StreamingGC(self.set_timer)
        self._last_ctrl_c = 0.0
        self._leaving = False  # exit() was called: what pi sends now is dropped
        self._startup_error_shown = False
        self._exit_signals: ExitSignals | None = None
        self.read_keybindings()
        # keys typed while pideck starts (type_ahead: before the app ran) wait for the prompt
        self.held_keys = HeldKeys(self._keys_have_a_place, lambda event: App.on_event(self, event), keys_in(type_ahead))

    # --- the session's ----------------------------------------------------------------------

    @property
    def client(self) -> RpcClient:
        """The session's pi (a restart replaces it)."""
        return self.pi.client

    @property
    def commands(self) -> list[CommandInfo]:
        """pi's commands (extensions, prompt templates, skills)."""
        return self.pi.commands

    @property
    def _session_ready(self) -> bool:
        return self.pi.ready

    @property
    def _exit_status(self) -> int:
        return self.pi.exit_status

    @property
    def cwd(self) -> Path:
        """pi's working directory (the session's: tool paths show relative to it)."""
        return self.pi.cwd

    @cwd.setter
    def cwd(self, value: Path) -> None:
        self.pi.cwd = value

    # --- what commands ask of the screen (app.commands.context.CommandUI) ------------------

    @property
    def editor(self) -> PromptEditor:
        return self.main.editor

    @property
    def notices(self) -> NotificationCenter:
        return self.toasts.center

    async def show_tool_call(self, tool_call_id: str) -> None:
        await self.main.show_tool_call(tool_call_id)

    def key_tables(self) -> tuple[BindingsMap, BindingsMap, list[str]]:
        return self.key_bindings, self.main.editor.key_bindings, self.keys.notes

    def quit(self) -> None:
        self.exit(self.return_code or self._exit_status)

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> Worker[None]:
        return self.run_worker(work, name=group, group=group, exit_on_error=True)

    def refresh_stats(self) -> Worker[None]:
        """Read pi's state and stats again and show them; `.wait()` for them."""
        return self.run_worker(self.pi.refresh_stats(), name="stats", group="stats", exit_on_error=True)

    async def _apply_changes(self) -> None:
        await self.pi.apply_changes()

    async def on_event(self, event: events.Event) -> None:
        if not await self.held_keys.take(event):
            await super().on_event(event)

    def _keys_have_a_place(self) -> bool:
        """The prompt has the focus, or whatever screen came over it before has."""
        try:
            focused, screen = self.focused, self.screen
        except ScreenStackError:  # no screen yet
            return False
        return focused is not None and (isinstance(focused, PromptEditor) or screen is not self.main)

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver(super().get_driver_class())

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette commands but its theme picker, whose themes are not pi's
        (/theme switches those)."""
        return (command for command in super().get_system_commands(screen) if command.title != "Theme")

    @property
    def key_bindings(self) -> BindingsMap:
        """pideck's keys in force, the global ones then the main screen's (for the palette
        and /hotkeys); the main screen's actions are named `screen.…`."""
        bindings = BindingsMap.merge([self._bindings, self.main.own_bindings])
        bindings.apply_keymap(self.keys.keymap)
        return bindings

    def read_keybindings(self) -> None:
        """pi's keybindings.json onto pideck's keys (before start-up and on /reload; the
        editor reads the keys it handles itself when it mounts)."""
        ours = [binding for _, binding in BindingsMap.merge([self._bindings, BindingsMap(MainScreen.BINDINGS)])]
        editor = [binding for _, binding in PromptEditor._merged_bindings if binding.id is not None]  # not TextArea's
        self.keys = pi_keymap(agent_dir(self.config.env), [*ours, *editor])
        self.set_keymap(self.keys.keymap)
        if self.main.is_mounted:
            self.main.editor.use_keymap(self.keys.keymap)

    def reread_settings(self) -> None:
        """/reload: pi's keybindings.json, display settings and theme again."""
        self.read_keybindings()
        self.say_keybinding_problems()
        self.main.follow_display()
        self.show_terminal_cursor()
        self.themes.start()

    def run_in_terminal(self, argv: list[str]) -> int | None:
        """Hand the terminal to `argv` (pi's /login), as Ctrl+Z hands it to the shell; its exit
        status, or None where the app cannot be suspended."""
        try:
            with self.suspend():
                return run_in_foreground(argv, self.config.env, self.cwd)
        except SuspendNotSupported:
            return None

    def say_keybinding_problems(self) -> None:
        """What keybindings.json asks that pideck cannot do, once in a toast (and in /hotkeys)."""
        if self.keys.problems:
            self.tell.warn("pideck left these out: " + "; ".join(self.keys.problems), title="keybindings.json")

    def on_mount(self) -> None:
        # the keys held come once the prompt has the focus, in the app's turn (before any key after)
        self.watch(self.main, "focused", lambda _: self.call_later(self.held_keys.release), init=False)
        self.themes.start()
        self.say_keybinding_problems()
        for problem in self.alerts.setting.problems:
            self.tell.warn(problem, title="Notifications")
        self.show_terminal_cursor()
        if self.config.remote is None:  # (pi's folder on its host is not read from here)
            BranchFollower(self, lambda: self.cwd, self._branch_shown).start()
        self.set_interval(0.25, self._tick)
        self.app_resume_signal.subscribe(self, self._resumed)
        if not self.is_headless and (fd := stdin_fd()) is not None:
            watch_hangup(asyncio.get_running_loop().add_signal_handler, self.set_interval, fd, self._hang_up)
        if self._exit_signals is not None:
            self._exit_signals.attach(asyncio.get_running_loop(), self._signalled)
        self.start_session()
        self._gc.started()
        self.run_dialogs()

    def _use_theme(self, name: str) -> None:
        """Draw with Textual theme `name` (registered, perhaps again under the same name) and
        render the text on screen again in the palette's new colours."""
        same = self.theme == name
        self.theme = name
        if same and self.is_running:
            self.refresh_css()
        if self.main.is_mounted:
            self.main.refresh_panes()
            self.call_later(self.main.transcript.rebuild)

    def _resumed(self, _: object) -> None:
        """Back from Ctrl+Z: the shell had the terminal, so all of it is painted again."""
        self.terminal_lines.forget()
        self.refresh(layout=True)
        self.show_terminal_cursor()

    def show_terminal_cursor(self) -> None:
        """The terminal's own cursor shown (pi's showHardwareCursor; Textual keeps it where the
        prompt's cursor is) or hidden, as Textual has it."""
        if not self.is_headless:
            self._write_to_terminal("\x1b[?25h" if display(self.config).hardware_cursor else "\x1b[?25l")

    def _hang_up(self) -> None:
        """The terminal is gone: pi is closed in order (on unmount) and pideck exits."""
        self.exit(HANGUP_EXIT)

    def _signalled(self, signum: int) -> None:
        """SIGINT or SIGTERM (app/terminal/signals.py): leave as on Ctrl+C twice."""
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

    def run_app(self, signals: ExitSignals | None = None, runner: asyncio.Runner | None = None) -> int:
        """Run full screen, `signals` ending it in order, on `runner`'s loop if given (pi
        started on it early; the runner is closed after); the exit code is 0 unless pi could
        not be started, 128 + the signal's number after a signal, 129 after a hang-up."""
        self._exit_signals = signals
        try:
            result = self.run(loop=runner.get_loop() if runner is not None else None)
        finally:
            if signals is not None:
                signals.detach()
            self.config.close()
            if runner is not None:
                runner.close()
        return result if isinstance(result, int) else (self.return_code or self._exit_status)

    # --- the session's changes -------------------------------------------------------------

    async def show_changes(self, changes: Changes) -> None:
        """Draw what changed in the session model, and do what the changes ask of the app."""
        await self.main.composed.wait()  # pi may exit (or a file load) before the panes are there
        if self.leaving or self._closing:
            return  # the views are going away
        if changes.settled is not None:  # (before the run's end below: how long it ran)
            self.alerts.settled(changes.settled.aborted, run_error(self.session))
        with self.batch_update():
            await self.main.show_changes(changes)
            if changes.run:
                self.progress.show(self.session.running)
                self.alerts.run(self.session.running)
            if changes.title is not None:
                self.set_terminal_title(changes.title)
            for severity, message in changes.notifications:
                self.notify(message, severity=_SEVERITY.get(severity, "information"), markup=False)
        for request in changes.dialogs:
            self._dialogs.put_nowait((request, self.pi.deadline(request)))
        if changes.exited is not None and self.pi.ready:
            self._forget_dialogs()  # extension questions from the dead pi cannot be answered
        self._gc.streaming(self.session.running)
        if changes.status:
            self.refresh_bindings()  # Ctrl+R is offered while pi is not running
            if self.session.life.startup_error is not None and not self._startup_error_shown:
                self._startup_error_shown = True
                self.push_screen(StartupErrorScreen(self.session.life.startup_error, self.client.stderr_tail, self.config),
                                 lambda _: self.exit(1))

    def _branch_shown(self, branch: str | None) -> None:
        self.main.branch = branch
        self.main.show_where()

    def _tick(self) -> None:
        """Animate the spinner and running tool durations; report what pi sent wrong."""
        if not self.is_running or self._closing or not self.main.status.is_attached:
            return  # the app is closing: its widgets are going away
        self.problems.check()
        self.main.animate()

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        """Textual's, sending only the pieces of lines the terminal does not show yet."""
        if (isinstance(renderable, CompositorUpdate) and self._running and not self._closed and not self._batch_count
                and self._driver is not None and not self.is_headless and not self.is_inline):
            text = self.terminal_lines.render(renderable, self.console, self.size)
            if not self.terminal_lines.cursor_moved(self.cursor_position) and not text:
                return  # (the terminal's own cursor may be shown: Textual moves it after each update)
            renderable = UnchangedLeftOut(text)
        super()._display(screen, renderable)

    def _write_to_terminal(self, sequence: str) -> None:
        if self._driver is not None:
            self._driver.write(sequence)

    def set_terminal_title(self, title: str) -> None:
        """An extension's setTitle: the terminal title, with control characters removed."""
        self.title = clean(title).replace("\n", " ")[:200]
        if not self.is_headless:
            self.alerts.show_title()  # with the running mark while pi works

    # --- start-up -------------------------------------------------------------------------

    @work(exclusive=True, group="session")
    async def start_session(self) -> None:
        await self.pi.start()

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
            self.alerts.dialog(as_text(request.title))
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

    def all_commands(self) -> list[CommandInfo]:
        """pideck's own `/` commands, then pi's (extensions, prompt templates, skills)."""
        own = [CommandInfo(name=c.name, description=c.description, source="pideck") for c in REGISTRY.values()]
        return [*own, *(c for c in self.commands if c.name not in REGISTRY)]

    # --- actions --------------------------------------------------------------------------

    def action_clear_or_quit(self) -> None:
        """Ctrl+C: copy the text selected with the mouse, if any; else clear the prompt, and
        on an empty prompt a second Ctrl+C quits."""
        if self.selection.copy():
            return
        editor = self.main.editor
        if editor.text:
            editor.load("")
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit(self._exit_status)
            return
        self._last_ctrl_c = now
        self.notify("Press ctrl+c again to quit", timeout=QUIT_WINDOW)

    def on_text_selected(self) -> None:
        self.selection.selected()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast, pideck's and extensions', goes through the notification center
        (app.toasts): a few at once, cut short, all of them kept for F8."""
        self.toasts.notify(message, title, severity, timeout, markup)

    async def on_unmount(self) -> None:
        self.progress.clear()
        self._gc.close()
        await self.pi.close()


_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
