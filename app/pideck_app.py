"""The pideck Textual app, the shell of the desk (app/desk/desk.py: the sessions open, which
one is shown, each one's life): the global keys and their actions, key events, the driver,
mount and unmount, themes' and keymaps' Textual side, toasts and the palette, and what the
desk asks of Textual (`app.desk.shell.Shell`). Frames reach the terminal through the
engine's App (widgets/engine/app.py).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from textual import events
from textual.app import App, ScreenStackError, SuspendNotSupported, SystemCommand
from textual.binding import BindingsMap
from textual.driver import Driver
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import TextArea

from app.command_palette import KeyActions, PiCommands, PideckCommands
from app.commands.login import run_in_foreground
from app.desk.desk import Desk
from app.global_keys import GLOBAL_KEYS
from app.keybindings import pi_keymap
from app.main_screen import MainScreen
from app.notifier import Notifier
from app.pi.checkpoint_launch import with_checkpoints
from app.pi.launch import LaunchConfig
from app.pi.settings import copy_on_select, display
from app.selection_copy import SelectionCopy
from app.terminal.hangup import HANGUP_EXIT, stdin_fd, watch_hangup
from app.terminal.signals import ExitSignals, hold_interrupt_key
from app.terminal.type_ahead import HeldKeys
from app.themes import Themes
from app.toasts import Toasts
from protocol.files.pi_colors import RGB
from protocol.files.session_files import agent_dir
from protocol.wire.client import RpcClient
from widgets.colors.depth import Depth, depth_for, filters_for
from widgets.engine.app import EngineApp
from widgets.engine.bindings import class_bindings
from widgets.engine.driver import terminal_driver
from widgets.engine.key_events import EIGHT_BIT_ALT, follow_keymap, keys_in
from widgets.prompt.editor import PromptEditor
from widgets.screens.on_purpose import KeyPace

QUIT_WINDOW = 1.5  # seconds within which a second ctrl+c on an empty editor quits
DRAFT_EVERY = 1.0  # seconds between two reports of a held pi's changed draft to its holder


class PideckApp(EngineApp[int], inherit_bindings=False):  # not Textual's Ctrl+Q (quit at once): pi has none
    CSS_PATH = Path(__file__).with_name("pideck.tcss")  # (the view's App, built on this one, too)
    TITLE = "pideck"
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "f1"  # pi's Ctrl+P cycles models
    COMMANDS = App.COMMANDS | {PideckCommands, PiCommands, KeyActions}
    desk_class: type[Desk] = Desk  # (a view's is another: its sessions, screens and commands)
    # Each session's screen is in a Textual mode of its own; the first mode, the first
    # session's, starts on `get_default_screen` (its mode is added once the app runs).
    DEFAULT_MODE = "session-1"
    BINDINGS = GLOBAL_KEYS  # the keys that work over every screen; the conversation's are MainScreen's

    def __init__(self, config: LaunchConfig, *, client: RpcClient | None = None,
                 terminal_colors: tuple[RGB | None, RGB | None] = (None, None), type_ahead: bytes = b"",
                 restore: list[LaunchConfig] | None = None, drafts: list[str] | None = None,
                 notes: list[str] | None = None) -> None:
        super().__init__()
        self.color_depth = depth_for(os.environ)  # what the terminal can show: as Rich found, 16 colours or none
        self.set_class(self.color_depth is Depth.NONE, "-no-color")  # (its list cursors underlined: pideck.tcss)
        if client is None:
            config = with_checkpoints(config)
        self.config = config  # the first session's: it owns the demo model and the recording
        self.tell = Notifier(self.notify)  # toasts of pideck's own, markup off
        self.themes = Themes(config, register=self.register_theme, use=self._use_theme, console=lambda: self.console,
                             warn=lambda text: self.tell.warn(text, title="Theme"), background=terminal_colors[0],
                             foreground=terminal_colors[1])  # (the terminal's background and foreground)
        self.toasts = Toasts(self, self.unnotify)
        self.selection = SelectionCopy(self, copy_on_select(config), lambda: self.desk.current.main.searching)
        self._last_ctrl_c = 0.0
        self._leaving = False  # exit() was called: what pi sends now is dropped
        self._exit_signals: ExitSignals | None = None
        self.desk = self.desk_class(self, config, client=client, restore=restore, drafts=drafts, notes=notes)
        self.read_keybindings()  # (before the first screen: it reads the keymap as it mounts)
        # keys typed while pideck starts (type_ahead: before the app ran) wait for the prompt
        self.key_pace = KeyPace()  # when keys and pastes arrive (widgets/screens/on_purpose.py)
        self.held_keys = HeldKeys(self._keys_have_a_place, lambda event: App.on_event(self, event), keys_in(type_ahead))

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's line filters, and the one the terminal's colours need (widgets/colors/depth.py)."""
        return filters_for(self.color_depth, super().get_line_filters())

    async def on_event(self, event: events.Event) -> None:
        if not event.is_forwarded:
            self.key_pace.arrived(event)  # (a question that writes tells typed-ahead keys by it)
        if type(event) is events.Key and not event.is_forwarded and event.character in EIGHT_BIT_ALT:
            self.desk.typed_eight_bit_alt(event.character)
        if not await self.held_keys.take(event):
            await super().on_event(event)

    def _keys_have_a_place(self) -> bool:
        """The prompt has the focus, or whatever screen came over it before has."""
        try:
            focused, screen = self.focused, self.screen
        except ScreenStackError:  # no screen yet
            return False
        return focused is not None and (isinstance(focused, PromptEditor) or screen is not self.desk.current.main)

    def get_driver_class(self) -> type[Driver]:
        return terminal_driver(super().get_driver_class(), self._left_terminal)

    def _left_terminal(self, fd: int) -> None:
        """Leaving for good (not a Ctrl+Z suspend), Ctrl+C stays a key until pideck ends
        (app/terminal/signals.py)."""
        if self.leaving:
            hold_interrupt_key(fd)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette commands but its theme picker, whose themes are not pi's
        (/theme switches those)."""
        return (command for command in super().get_system_commands(screen) if command.title != "Theme")

    @property
    def key_bindings(self) -> BindingsMap:
        """pideck's keys in force, the global ones then the main screen's (for the palette
        and /hotkeys); the main screen's actions are named `screen.…`."""
        bindings = BindingsMap.merge([BindingsMap(self.BINDINGS), self.desk.current.main.own_bindings])
        bindings.apply_keymap(self.keys.keymap)
        return bindings

    def read_keybindings(self) -> None:
        """pi's keybindings.json onto pideck's keys (before start-up and on /reload; the
        editor reads the keys it handles itself when it mounts)."""
        ours = [binding for _, binding in BindingsMap.merge([BindingsMap(self.BINDINGS), BindingsMap(MainScreen.BINDINGS)])]
        editor = [binding for _, binding in class_bindings(PromptEditor) if binding.id is not None]  # not TextArea's
        self.keys = pi_keymap(agent_dir(self.config.env), [*ours, *editor])
        self.set_keymap(self.keys.keymap)
        follow_keymap(key for keys in self.keys.keymap.values() for key in keys.split(","))
        for main in self.desk.screens():
            main.editor.use_keymap(self.keys.keymap)

    def reread_settings(self) -> None:
        """/reload: pi's keybindings.json, display settings and theme again."""
        self.read_keybindings()
        self.say_keybinding_problems()
        for main in self.desk.screens():
            main.follow_display()
        self.show_terminal_cursor()
        self.themes.start()

    def run_in_terminal(self, argv: list[str], cwd: Path) -> int | None:
        """Hand the terminal to `argv` (pi's /login), as Ctrl+Z hands it to the shell; its exit
        status, or None where the app cannot be suspended."""
        try:
            with self.suspend():
                return run_in_foreground(argv, self.config.env, cwd)
        except SuspendNotSupported:
            return None

    def say_keybinding_problems(self) -> None:
        """What keybindings.json asks that pideck cannot do, once in a toast (and in /hotkeys)."""
        if self.keys.problems:
            self.tell.warn("pideck left these out: " + "; ".join(self.keys.problems), title="keybindings.json")

    def on_mount(self) -> None:
        first = self.desk.current
        # the keys held come once the prompt has the focus, in the app's turn (before any key after)
        self.watch(first.main, "focused", lambda _: self.call_later(self.held_keys.release), init=False)
        self.themes.start()
        self.say_keybinding_problems()
        self.desk.say_at_start()
        self.show_terminal_cursor()
        self.set_interval(0.25, self.desk.tick)
        self.set_interval(DRAFT_EVERY, self.desk.report_drafts)
        self.app_resume_signal.subscribe(self, self._resumed)
        if not self.is_headless and (fd := stdin_fd()) is not None:
            watch_hangup(asyncio.get_running_loop().add_signal_handler, self.set_interval, fd, self._hang_up)
        if self._exit_signals is not None:
            self._exit_signals.attach(asyncio.get_running_loop(), lambda signum: self.exit(128 + signum))  # as Ctrl+C twice
        self.desk.start()

    def get_default_screen(self) -> Screen[Any]:
        return self.desk.slots[0].main

    def _use_theme(self, name: str) -> None:
        """Draw with Textual theme `name` (registered, perhaps again under the same name) and
        render the text on screen again in the palette's new colours."""
        same = self.theme == name
        self.theme = name
        if same and self.is_running:
            self.refresh_css()
        self.desk.restyle()

    def _resumed(self, _: object) -> None:
        """Back from Ctrl+Z: the shell had the terminal, so all of it is painted again."""
        self.forget_terminal()
        self.refresh(layout=True)
        self.show_terminal_cursor()

    def show_terminal_cursor(self) -> None:
        """The terminal's own cursor shown (pi's showHardwareCursor; Textual keeps it where the
        prompt's cursor is) or hidden, as Textual has it."""
        if not self.is_headless:
            self.write_to_terminal("\x1b[?25h" if display(self.config).hardware_cursor else "\x1b[?25l")

    def _hang_up(self) -> None:
        """The terminal is gone: a held pi goes on in the holder, any other is closed in order
        (on unmount), and pideck exits."""
        self.desk.hang_up()
        self.exit(HANGUP_EXIT)

    def action_detach(self) -> None:
        if not self.desk.detach():
            self.tell.warn("pi runs in this window, not held (started with --no-hold or PIDECK_HOLD=0, or --demo): "
                           "it would end with the window, so there is nothing to detach", title="Detach")

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
        return result if isinstance(result, int) else self.desk.exit_status

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """A held session's prompt changed: its holder is told within DRAFT_EVERY s."""
        self.desk.prompt_changed(event.text_area)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The session keys' priority bindings only over a dialog or a picker (see BINDINGS)."""
        if action in ("show_session", "next_needing_you", "step_session") and parameters and parameters[-1] is True:
            return self.screen is not self.desk.current.main
        return super().check_action(action, parameters)

    def action_show_session(self, number: int, over: bool = False) -> None:
        self.desk.show_number(number)

    def action_step_session(self, step: int, over: bool = False) -> None:
        self.desk.step(step)

    def action_next_needing_you(self, over: bool = False) -> None:
        self.desk.next_needing_you()

    def action_clear_or_quit(self) -> None:
        """Ctrl+C: copy the text selected with the mouse, if any; else clear the prompt, and
        on an empty prompt a second Ctrl+C quits."""
        if self.selection.copy():
            return
        editor = self.desk.current.main.editor
        if editor.text:  # a press that clears is not the first of two that quit
            editor.load("")
            self._last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit(self.desk.current.pi.exit_status)
            return
        self._last_ctrl_c = now
        if not self.desk.warn_of_held_runs(QUIT_WINDOW):
            self.notify("Press ctrl+c again to quit", timeout=QUIT_WINDOW)

    def on_text_selected(self) -> None:
        self.selection.selected()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every toast, pideck's and extensions', goes through the notification center
        (app.toasts): a few at once, cut short, all of them kept for F8."""
        self.toasts.notify(message, title, severity, timeout, markup)

    async def on_unmount(self) -> None:
        await self.desk.close_all(detach=bool(self.desk.detached))

