"""The pideck Textual app: the sessions open (app/session_slot.py, each with its pi, screen,
dialogs and alerts), which one is shown, toasts, the palette, themes, keymaps and the
global keys.

A session's `PiSession` (app/pi/session.py) hands its model's changes once per frame to its
slot, which draws them on its main screen (app/main_screen.py) and does its part; what they
ask of the whole app (the terminal's progress and title, the sessions row, a start-up error)
comes back here as `session_changed`. Frames reach the terminal through the engine's App
(widgets/engine/app.py).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from textual import events
from textual.app import App, ScreenStackError, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingsMap
from textual.driver import Driver
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import TextArea
from textual.worker import Worker

from app.attachments import Attachments
from app.gc_pause import StreamingGC
from app.terminal.signals import ExitSignals
from app.terminal.hangup import HANGUP_EXIT, stdin_fd, watch_hangup
from app.terminal.signals import hold_interrupt_key
from widgets.engine import SETTING, off_note, setting_problem
from widgets.engine.app import EngineApp
from widgets.engine.bindings import class_bindings
from widgets.engine.driver import terminal_driver
from widgets.engine.key_events import EIGHT_BIT_ALT, follow_keymap, keys_in
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
from app.run_alerts import RunAlerts
from protocol.state.desk import Mark, SessionLine
from app.terminal.progress import TerminalProgress
from app.themes import Themes
from app.commands.context import CommandContext, SlashCommand
from app.commands.registry import REGISTRY
from app.pi.checkpoint_launch import with_checkpoints
from app.pi.problem_monitor import ProblemMonitor
from app.pi.record_pump import RecordPump
from app.pi.session import PiSession
from app.pi.launch import open_launch
from app.session_slot import SessionSlot
from app.terminal.type_ahead import HeldKeys
from widgets.colors.depth import Depth, depth_for, filters_for
from protocol.wire.client import RpcClient
from protocol.files.pi_colors import RGB
from protocol.wire.responses import CommandInfo, SessionState
from protocol.files.session_files import agent_dir
from protocol.state.notification_center import NotificationCenter
from protocol.state.session_model import Changes, SessionModel
from widgets.markdown.stream import RENDERER, import_renderer
from widgets.prompt.editor import PromptEditor
from widgets.text.safe import clean
from widgets.screens.on_purpose import KeyPace
from widgets.screens.startup_error import StartupErrorScreen

FIRST_MODE = "session-1"
HIDDEN_VIEWS = 40  # messages a session keeps mounted while another is shown
QUIT_WINDOW = 1.5  # seconds within which a second ctrl+c on an empty editor quits
EXPLAIN_FOR = 20.0  # seconds a toast that explains a setting stays up
DRAFT_EVERY = 1.0  # seconds between two reports of a held pi's changed draft to its holder


def attached_note(windows: list[int]) -> str:
    """What an attach says of the held pis it brought back, given how many other windows
    showed each."""
    alone, shared = sum(not count for count in windows), sum(bool(count) for count in windows)
    them = "them" if len(windows) > 1 else "it"
    if not shared:
        they = "they" if alone > 1 else "it"
        said = f"{alone} held pi{'s' * (alone > 1)} brought back as {they} went on without a window"
    elif not alone:
        said = (f"{shared} held pi{'s' * (shared > 1)} shown here too: another window shows {them} as well, "
                f"and both follow and answer the same run{'s' * (shared > 1)}")
    else:
        said = (f"{len(windows)} held pis brought back: {alone} went on without a window, {shared} "
                f"{'is' if shared == 1 else 'are'} shown in another window too")
    return f"{said} (pideck ls lists {them}; /open starts another)"


class PideckApp(EngineApp[int], inherit_bindings=False):  # not Textual's Ctrl+Q (quit at once): pi has none
    CSS_PATH = Path(__file__).with_name("pideck.tcss")  # (the view's App, built on this one, too)
    TITLE = "pideck"
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "f1"  # pi's Ctrl+P cycles models
    COMMANDS = App.COMMANDS | {PideckCommands, PiCommands, KeyActions}
    session_class: type[PiSession] = PiSession
    screen_class: type[MainScreen] = MainScreen  # each session's screen
    slash_commands: Mapping[str, SlashCommand] = REGISTRY  # pideck's `/` commands (the palette's too)
    # Each session's screen is in a Textual mode of its own; the first mode, the first
    # session's, starts on `get_default_screen` (its mode is added once the app runs).
    DEFAULT_MODE = FIRST_MODE
    # The keys that work over every screen; the conversation's are MainScreen's.
    BINDINGS = [
        Binding("f1", "command_palette", "Commands", show=False, priority=True,
                tooltip="Command palette: pideck's and pi's commands, and the actions of these keys"),
        Binding("ctrl+c", "clear_or_quit", "Clear/Quit", priority=True,
                tooltip="Copy the selection; else clear the prompt, twice to quit", id="app.clear"),
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True,
                tooltip="Suspend pideck to the shell (fg brings it back); pi keeps its state", id="app.suspend"),
        Binding("ctrl+backslash", "detach", "Detach", show=False, priority=True,
                tooltip="Leave this window; held pis go on (pideck attach brings them back)", id="pideck.detach"),
        # Alt+N twice: for the prompt, which runs it as it reads the key (the keys of a burst after
        # it go to the session it shows; widgets/engine/keys_in_order.py), and over a dialog or a
        # picker, where it acts at once (`check_action` offers each only where it applies)
        *(Binding(f"alt+{n}", f"show_session({n}{over})", f"Session {n}", show=False, priority=bool(over),
                  tooltip="Show session 1 to 9, as the sessions row numbers them (/sessions lists them)",
                  id=f"pideck.session.{n}") for n in range(1, 10) for over in ("", ", True")),
        *(Binding("alt+0", f"next_needing_you({over})", "Needs you", show=False, priority=bool(over),
                  tooltip="Show the next session that needs you (a dialog waits), else one whose run ended unseen",
                  id="pideck.session.needsYou") for over in ("", "True")),
        # Alt+N's where the terminal types a character for Alt+digit (xterm's default, "±" for Alt+1)
        *(Binding(key, f"step_session({step}{over})", label, show=False, priority=bool(over),
                  tooltip=f"Show the {name} session, round the end (where Alt+1…9 type characters: xterm)",
                  id=f"pideck.session.{name}")
          for key, step, name, label in (("ctrl+pageup", -1, "previous", "Previous session"),
                                         ("ctrl+pagedown", 1, "next", "Next session"))
          for over in ("", ", True")),
    ]

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
        self.selection = SelectionCopy(self, copy_on_select(config), lambda: self.main.searching)
        self.progress = TerminalProgress(self.set_interval, self.write_to_terminal, terminal_progress(config))
        self.slots: list[SessionSlot] = []  # the sessions open, in the order Alt+N reaches them
        self.closed: list[SessionSlot] = []  # closed with /close (their resume commands are printed at exit)
        self._serial = 0
        self._restore = list(restore or ())  # sessions to open beside the first (--restore)
        self._drafts = list(drafts or ())  # the drafts --restore brought, the first session's first
        self._notes = list(notes or ())  # what --restore said of the sessions it left out
        self._attaching = sum(launch.brought_back for launch in (config, *self._restore))  # held pis brought back
        self._attached: list[int] = []  # of those started, how many other windows show each
        self._editors: dict[SessionSlot, PromptEditor] = {}  # each session's prompt, once composed (its draft at exit)
        self._draft_of: dict[SessionSlot, str] = {}  # a draft not in its prompt yet
        self._drafts_changed: set[SessionSlot] = set()  # held sessions whose draft the holder has not been told
        self._gc = StreamingGC(self.set_timer)
        self._last_ctrl_c = 0.0
        self._eight_bit_alt_said = False  # the toast on xterm's Alt+digit characters (said once)
        self._leaving = False  # exit() was called: what pi sends now is dropped
        self.left_held: list[SessionSlot] = []  # sessions whose pi the holder keeps at the exit (/detach, a hang-up)
        self._exit_signals: ExitSignals | None = None
        self.read_keybindings()  # (before the first screen: it reads the keymap as it mounts)
        self.current = self._new_slot(config, client)
        # the git branch of the shown session's folder (one look every 2 s, not one per session)
        self._branches = BranchFollower(self, lambda: self.current.pi.cwd, self._branch_shown)
        # keys typed while pideck starts (type_ahead: before the app ran) wait for the prompt
        self.key_pace = KeyPace()  # when keys and pastes arrive (widgets/screens/on_purpose.py)
        self.held_keys = HeldKeys(self._keys_have_a_place, lambda event: App.on_event(self, event), keys_in(type_ahead))

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's line filters, and the one the terminal's colours need (widgets/colors/depth.py)."""
        return filters_for(self.color_depth, super().get_line_filters())

    def _new_slot(self, config: LaunchConfig, client: RpcClient | None = None) -> SessionSlot:
        self._serial += 1
        slot = SessionSlot(self, config, self._serial, client)
        if not self.slots:
            slot.show(True)  # the screen pideck starts with: what pi sends before it mounts waits for it there
        self.slots.append(slot)
        return slot

    # --- the session shown --------------------------------------------------------------------

    @property
    def pi(self) -> PiSession:
        return self.current.pi

    @property
    def session(self) -> SessionModel:
        return self.current.pi.model

    @property
    def main(self) -> MainScreen:
        return self.current.main

    @property
    def pump(self) -> RecordPump:
        return self.current.pi.pump

    @property
    def problems(self) -> ProblemMonitor:
        return self.current.pi.problems

    @property
    def attachments(self) -> Attachments:
        return self.current.attachments

    @property
    def command_context(self) -> CommandContext:
        return self.current.context

    @property
    def alerts(self) -> RunAlerts:
        return self.current.alerts

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

    # --- what a session's commands ask of the app (through app/session_slot.py) -------------

    def quit(self) -> None:
        self.exit(self.return_code or self._exit_status)

    @property
    def notices(self) -> NotificationCenter:
        return self.toasts.center

    def in_background(self, work: Coroutine[Any, Any, None], group: str) -> Worker[None]:
        return self.run_worker(work, name=group, group=group, exit_on_error=True)

    def refresh_stats(self) -> Worker[None]:
        """Read the shown session's state and stats again and show them; `.wait()` for them."""
        return self.current.refresh_stats()

    async def on_event(self, event: events.Event) -> None:
        if not event.is_forwarded:
            self.key_pace.arrived(event)  # (a question that writes tells typed-ahead keys by it)
        if type(event) is events.Key and not event.is_forwarded and event.character in EIGHT_BIT_ALT:
            self._typed_eight_bit_alt(event.character)
        if not await self.held_keys.take(event):
            await super().on_event(event)

    def _typed_eight_bit_alt(self, character: str) -> None:
        """A character xterm types for Alt+digit ("±" for Alt+1), typed while several sessions
        are open: once, a toast says how to make Alt+digit reach pideck, and the other keys.
        The character is typed as ever (a keyboard has "°" and "²" too)."""
        if self._eight_bit_alt_said or len(self.slots) < 2:
            return
        self._eight_bit_alt_said = True
        self.tell.say(f"“{character}” is what xterm types for Alt+{EIGHT_BIT_ALT[character]} unless it sends Alt as Esc: "
                      "for Alt+1…9 and Alt+0 to switch sessions, put XTerm*metaSendsEscape: true in ~/.Xresources "
                      "(then xrdb -merge ~/.Xresources, and a new xterm). Ctrl+PgUp / Ctrl+PgDn show the previous / "
                      "next session in any terminal", title="Alt+digits", timeout=EXPLAIN_FOR)

    def _keys_have_a_place(self) -> bool:
        """The prompt has the focus, or whatever screen came over it before has."""
        try:
            focused, screen = self.focused, self.screen
        except ScreenStackError:  # no screen yet
            return False
        return focused is not None and (isinstance(focused, PromptEditor) or screen is not self.main)

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
    def own_bindings(self) -> BindingsMap:
        """The keys that work over every screen (BINDINGS)."""
        return BindingsMap(self.BINDINGS)

    @property
    def key_bindings(self) -> BindingsMap:
        """pideck's keys in force, the global ones then the main screen's (for the palette
        and /hotkeys); the main screen's actions are named `screen.…`."""
        bindings = BindingsMap.merge([self.own_bindings, self.main.own_bindings])
        bindings.apply_keymap(self.keys.keymap)
        return bindings

    def read_keybindings(self) -> None:
        """pi's keybindings.json onto pideck's keys (before start-up and on /reload; the
        editor reads the keys it handles itself when it mounts)."""
        ours = [binding for _, binding in BindingsMap.merge([self.own_bindings, BindingsMap(MainScreen.BINDINGS)])]
        editor = [binding for _, binding in class_bindings(PromptEditor) if binding.id is not None]  # not TextArea's
        self.keys = pi_keymap(agent_dir(self.config.env), [*ours, *editor])
        self.set_keymap(self.keys.keymap)
        follow_keymap(key for keys in self.keys.keymap.values() for key in keys.split(","))
        for slot in self.slots:
            if slot.main.is_mounted:
                slot.main.editor.use_keymap(self.keys.keymap)

    def reread_settings(self) -> None:
        """/reload: pi's keybindings.json, display settings and theme again."""
        self.read_keybindings()
        self.say_keybinding_problems()
        for slot in self.slots:
            if slot.main.is_mounted:
                slot.main.follow_display()
        self.show_terminal_cursor()
        self.themes.start()

    def run_in_terminal(self, argv: list[str], cwd: Path | None = None) -> int | None:
        """Hand the terminal to `argv` (pi's /login), as Ctrl+Z hands it to the shell; its exit
        status, or None where the app cannot be suspended."""
        try:
            with self.suspend():
                return run_in_foreground(argv, self.config.env, cwd or self.cwd)
        except SuspendNotSupported:
            return None

    def say_keybinding_problems(self) -> None:
        """What keybindings.json asks that pideck cannot do, once in a toast (and in /hotkeys)."""
        if self.keys.problems:
            self.tell.warn("pideck left these out: " + "; ".join(self.keys.problems), title="keybindings.json")

    def on_mount(self) -> None:
        first = self.current
        # the keys held come once the prompt has the focus, in the app's turn (before any key after)
        self.watch(first.main, "focused", lambda _: self.call_later(self.held_keys.release), init=False)
        self.themes.start()
        self.say_keybinding_problems()
        for problem in self.alerts.setting.problems:
            self.tell.warn(problem, title="Notifications")
        if (problem := setting_problem(os.environ.get(SETTING))) is not None:
            self.tell.warn(problem, title=SETTING)
        if (note := off_note()) is not None:
            self.tell.say(note, title="Engine")
        if self.config.unheld is not None:
            self.tell.warn(self.config.unheld, title="Not held")
        for note in self._notes:
            self.tell.warn(note, title="--restore")
        configs = (self.config, *self._restore)
        if merged := [config for config in configs if len(config.attach_drafts) > 1]:
            count = sum(len(config.attach_drafts) for config in merged)
            self.tell.say(f"{count} drafts left by windows that went are in the prompt{'s' * (len(merged) > 1)}, the "
                          "newest first, each older one after a line “─── an older draft, left by another window ───”",
                          title="Drafts", timeout=EXPLAIN_FOR)
        self.show_terminal_cursor()
        self.set_interval(0.25, self._tick)
        self.set_interval(DRAFT_EVERY, self._report_drafts)
        self.app_resume_signal.subscribe(self, self._resumed)
        if not self.is_headless and (fd := stdin_fd()) is not None:
            watch_hangup(asyncio.get_running_loop().add_signal_handler, self.set_interval, fd, self._hang_up)
        if self._exit_signals is not None:
            self._exit_signals.attach(asyncio.get_running_loop(), self._signalled)
        drafts = iter(self._drafts)
        self._open_slot(first, draft=next(drafts, ""))
        self._branches.start()
        self.call_after_refresh(self._gc.started)  # (what the first frame made is kept too)
        for config in self._restore:
            self._open_slot(self._new_slot(config), show=False, draft=next(drafts, ""))

    def _open_slot(self, slot: SessionSlot, show: bool = True, draft: str = "") -> None:
        """Give `slot` its screen's mode, start its pi and its dialogs; show it; `draft` goes
        into its prompt once that is there."""
        self.add_mode(slot.mode, lambda: slot.main)  # (the first one's stack is there already)
        if show:
            self._switch(slot)
        self.start_session(slot)
        slot.workers.append(self.run_worker(slot.run_dialogs(), name="dialogs", group="dialogs"))
        if draft:
            self._draft_of[slot] = clean(draft)  # (what the file holds: no terminal controls into the prompt)
        slot.workers.append(self.run_worker(self._prompt_composed(slot), name="prompt", group="session"))
        self.desk_changed()

    async def _prompt_composed(self, slot: SessionSlot) -> None:
        """Keep the session's prompt (its draft is read from it at exit), and put in it the
        draft --restore brought, once its screen is first shown."""
        await slot.main.composed.wait()
        editor = self._editors[slot] = slot.main.editor
        if draft := self._draft_of.pop(slot, ""):
            editor.put_before([draft])

    def get_default_screen(self) -> Screen[Any]:
        return self.slots[0].main

    def start_session(self, slot: SessionSlot) -> None:
        slot.pi.model.starting(time.monotonic())  # "starting pi…" from the first frame, never "ready" before it
        if slot.main.is_mounted:
            slot.main.status.refresh_status()
        slot.workers.append(self.run_worker(self._start(slot), name="session", group="session"))

    async def _start(self, slot: SessionSlot) -> None:
        await slot.pi.start()
        if slot.config.brought_back:
            self._brought_back(slot)
        if slot.pi.ready and RENDERER not in sys.modules:
            self.run_worker(import_renderer, thread=True, group="import", exit_on_error=False)

    def _brought_back(self, slot: SessionSlot) -> None:
        """A held pi attached to has started: a run it ended that no window showed is marked
        unseen (its ✓) where it is not shown; once all have, a toast says what they were."""
        hello = slot.pi.client.hello
        if hello is not None and hello.state == "done" and not slot.shown:
            slot.unread = True
            self.desk_changed()
        self._attached.append(hello.windows if hello is not None else 0)
        if len(self._attached) == self._attaching:
            self.tell.say(attached_note(self._attached), title="Attached")

    async def _apply_changes(self) -> None:
        await self.pi.apply_changes()

    def _switch(self, slot: SessionSlot) -> None:
        """Show `slot`'s screen (its own mode: what was over it is still there)."""
        previous = self.current
        if previous is not slot:
            previous.show(False)
        self.current = slot
        slot.show(True)
        self.switch_mode(slot.mode)
        self.title = slot.title or self.TITLE
        if not self.is_headless:
            slot.alerts.show_title()
        self.progress.show(slot.pi.model.running)
        if previous is not slot and self.is_running:
            self._branches.look_afresh()
            self.call_after_refresh(self.run_worker, self._trim_hidden(previous), name="trim", group="trim")

    def _use_theme(self, name: str) -> None:
        """Draw with Textual theme `name` (registered, perhaps again under the same name) and
        render the text on screen again in the palette's new colours."""
        same = self.theme == name
        self.theme = name
        if same and self.is_running:
            self.refresh_css()
        for slot in self.slots:
            if slot.main.composed.is_set():
                slot.main.refresh_panes()
                if slot.main.transcript.views:  # (none at start-up: nothing to draw again)
                    self.call_later(slot.main.transcript.rebuild)

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
        if not self.leaving:
            self.left_held = [slot for slot in self.slots if slot.pi.held]
        self.exit(HANGUP_EXIT)

    def detach(self) -> bool:
        """/detach, Ctrl+\\: the held pis go on in the holder and the window quits (a pi not
        held is closed as on a quit); False, and nothing done, when none is held."""
        held = [slot for slot in self.slots if slot.pi.held]
        if not held or self.leaving:
            return False
        self.left_held = held
        self.exit(0)
        return True

    @property
    def detached(self) -> int:
        """How many pis the holder keeps at this window's exit."""
        return len(self.left_held)

    def action_detach(self) -> None:
        if not self.detach():
            self.tell.warn("pi runs in this window, not held (started with --no-hold or PIDECK_HOLD=0, or --demo): "
                           "it would end with the window, so there is nothing to detach", title="Detach")

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

    # --- the sessions' changes -------------------------------------------------------------

    def session_changed(self, slot: SessionSlot, changes: Changes) -> None:
        """What a session's changes ask of the app (the session drew them and did its part):
        the terminal's progress and title while it is shown, the collector's pace, the keys
        offered, a start-up error, the sessions row."""
        if slot.shown:
            if changes.run:
                self.progress.show(slot.pi.model.running)
            if changes.title is not None:
                slot.title = changes.title
                self.set_terminal_title(changes.title)
        self._gc.streaming(any(other.pi.model.running for other in self.slots))
        if changes.status:
            if slot.shown:
                self.refresh_bindings()  # Ctrl+R is offered while pi is not running
            self._say_startup_error(slot)
        if changes.run or changes.status or changes.settled is not None or changes.dialogs or changes.session:
            self.desk_changed()

    async def _trim_hidden(self, slot: SessionSlot) -> None:
        """A session no longer shown keeps only its newest HIDDEN_VIEWS messages mounted (when
        it was following the end; the others load as in a long session): showing it again lays
        out its screen's every widget, 0.5 s for 400 messages."""
        async with slot.pi.drawing:
            if not slot.shown and not slot.closing and slot.main.is_mounted:
                await slot.main.transcript.trim(HIDDEN_VIEWS)

    def _say_startup_error(self, slot: SessionSlot) -> None:
        """The start-up error screen of a session whose pi could not start, once it is shown:
        closing it quits pideck when it was the only session, else closes that session."""
        error = slot.pi.model.life.startup_error
        if error is None or slot.startup_error_shown or not slot.shown:
            return
        slot.startup_error_shown = True
        only = len(self.slots) == 1
        self.push_screen(StartupErrorScreen(error, slot.pi.client.stderr_tail, slot.config),
                         lambda _: self.exit(1) if only else self.run_worker(self.close_session(slot), group="desk"))

    def _branch_shown(self, branch: str | None) -> None:
        slot = self.current
        if slot.config.remote is not None:
            return  # pi's folder is on its host: not read from here
        slot.main.branch = branch
        if slot.main.is_mounted:
            slot.main.show_where()

    def _tick(self) -> None:
        """Animate the spinner and running tool durations; report what pi sent wrong."""
        if not self.is_running or self.closing or not self.main.status.is_attached:
            return  # the app is closing: its widgets are going away
        for slot in self.slots:
            slot.pi.problems.check()
            slot.follow_name()
        self.main.animate()
        self.toasts.after_question()
        if len(self.slots) > 1:
            self.desk_changed()  # (a dialog's time running out changes its session's mark)

    def set_terminal_title(self, title: str) -> None:
        """An extension's setTitle: the terminal title, with control characters removed."""
        self.title = clean(title).replace("\n", " ")[:200]
        if not self.is_headless:
            self.alerts.show_title()  # with the running mark while pi works

    # --- the sessions open ------------------------------------------------------------------

    def open_session(self, cwd: Path, pi_args: list[str] | None = None, pi_flag: str | None = None,
                     session: str | None = None) -> SessionSlot:
        """/open: another pi, in `cwd` (on `session`'s file), shown at once, and a toast that
        names it. Raises LaunchError for what cannot start."""
        config = with_checkpoints(open_launch(self.current.config, cwd, pi_args, pi_flag, session))
        slot = self._new_slot(config)
        self._open_slot(slot)
        self.tell.say("Alt+1 to Alt+9 switch sessions, /sessions lists them, /close ends one",
                      title=f"Session {slot.number} opened: {slot.name}")
        return slot

    async def close_session(self, slot: SessionSlot | None = None) -> None:
        """/close: end a session's pi in order and take its screen away; the last one quits."""
        slot = slot or self.current
        if len(self.slots) == 1:
            self.quit()
            return
        if slot.closing:
            return
        slot.closing = True
        self.closed.append(slot)
        index = self.slots.index(slot)
        self.slots.remove(slot)
        if slot.shown:
            self._switch(self.slots[min(index, len(self.slots) - 1)])
        for worker in slot.workers:
            worker.cancel()
        await self.remove_mode(slot.mode)
        await slot.pi.close()
        self.desk_changed()

    def sessions_at_exit(self) -> list[tuple[str, LaunchConfig, SessionState | None, bool, str]]:
        """Every session open and closed: its name, launch, pi's last state, whether it is the
        one pideck was started with, and the draft left in its prompt (none for one closed).
        Not those whose pi goes on held (`pideck attach` brings them back): a desk restored
        would start a second pi on the same session file."""
        return [(slot.name, slot.config, slot.pi.model.state, slot.config is self.config,
                 "" if slot in self.closed else self._draft(slot)) for slot in [*self.slots, *self.closed]
                if slot not in self.left_held and not slot.pi.kept]

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """A held session's prompt changed: its holder is told within DRAFT_EVERY s."""
        for slot, editor in self._editors.items():
            if editor is event.text_area and slot.pi.held:
                self._drafts_changed.add(slot)

    def _report_drafts(self) -> None:
        """Tell the holder of each held pi whose prompt changed what it holds now, so that a
        window killed without a word (SIGKILL) leaves its draft all the same."""
        changed, self._drafts_changed = self._drafts_changed, set()
        for slot in changed:
            if slot in self.slots and not self.leaving:
                slot.pi.report_draft(self._draft(slot))

    def held_at_exit(self) -> list[tuple[tuple[str, LaunchConfig, SessionState | None, bool, str], int, int]]:
        """The sessions whose pi the holder keeps at the exit (a detach, a hang-up, another
        window that shows it), as sessions_at_exit gives them, each with its pi's number and its holder's pid."""
        return [((slot.name, slot.config, slot.pi.model.state, slot.config is self.config, self._draft(slot)),
                 hello.number, hello.holder)
                for slot in self.slots
                if (slot in self.left_held or slot.pi.kept) and (hello := slot.pi.client.hello) is not None]

    def held_stopped_at_exit(self) -> set[tuple[int, int]]:
        """The held pis this window stopped at its exit (a quit), by number and holder's pid."""
        return {(hello.number, hello.holder) for slot in [*self.slots, *self.closed]
                if (hello := slot.pi.client.hello) is not None and slot not in self.left_held and not slot.pi.kept}

    def _draft(self, slot: SessionSlot) -> str:
        """What its prompt holds, after the messages that waited for pi to be ready."""
        editor = self._editors.get(slot)
        if editor is None:
            return self._draft_of.get(slot, "")
        return "\n\n".join(text for text in (*slot.main.waiting_texts, editor.expanded_text) if text)

    def session_lines(self) -> list[SessionLine]:
        return [slot.line() for slot in self.slots]

    def show_session(self, number: int) -> bool:
        """Show the session Alt+`number` reaches; False if there is none."""
        if not 1 <= number <= len(self.slots):
            return False
        self._switch(self.slots[number - 1])
        self.run_worker(self.current.pi.apply_changes(), group="flush", exit_on_error=True)  # what waited to be drawn
        self.desk_changed()
        return True

    def show_open_session(self, slot: SessionSlot, session_file: str) -> bool:
        """`slot`'s pi opened `session_file`, which another session here has open (/open of a
        session this window shows): that one is shown and `slot` closed; False if none has it."""
        other = next((shown for shown in self.slots if shown is not slot and shown.pi.model.state is not None
                      and shown.pi.model.state.session_file == session_file), None)
        if other is None:
            return False
        self.show_session(other.number)
        self.run_worker(self._give_way(slot), group="desk")
        self.tell.say(f"That session is open here already, as session {other.number}: it is shown", title="Sessions")
        return True

    async def _give_way(self, slot: SessionSlot) -> None:
        """Close `slot`, a second view of a session shown here: no resume command or desk entry of its own."""
        await self.close_session(slot)
        if slot in self.closed:
            self.closed.remove(slot)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The session keys' priority bindings only over a dialog or a picker (see BINDINGS)."""
        if action in ("show_session", "next_needing_you", "step_session") and parameters and parameters[-1] is True:
            return self.screen is not self.current.main
        return super().check_action(action, parameters)

    def action_show_session(self, number: int, over: bool = False) -> None:
        if not self.show_session(number) and len(self.slots) > 1:
            self.tell.say(f"There are {len(self.slots)} sessions: Alt+1 to Alt+{len(self.slots)}", title="Sessions")
        elif len(self.slots) == 1 and number != 1:
            self.tell.say("One session is open: /open starts another", title="Sessions")

    def action_step_session(self, step: int, over: bool = False) -> None:
        """Ctrl+PgUp / Ctrl+PgDn: the session before or after the one shown, round the end."""
        if len(self.slots) == 1:
            self.tell.say("One session is open: /open starts another", title="Sessions")
            return
        self.show_session((self.slots.index(self.current) + step) % len(self.slots) + 1)

    def action_next_needing_you(self, over: bool = False) -> None:
        """Alt+0: the next session after the one shown whose dialog waits, else whose run
        ended unseen, else one that failed."""
        order = self.slots[self.slots.index(self.current) + 1 :] + self.slots[: self.slots.index(self.current)]
        for marks in ((Mark.NEEDS_YOU,), (Mark.DONE,), (Mark.FAILED, Mark.EXITED)):
            for slot in order:
                if slot.mark in marks:
                    self.show_session(slot.number)
                    return
        self.tell.say("No other session needs you", title="Sessions")

    def desk_changed(self) -> None:
        """The sessions row of the screen shown says the sessions as they are now."""
        if self.is_running and not self.leaving:
            self.current.main.show_desk(self.current.session_lines())

    def all_commands(self) -> list[CommandInfo]:
        """pideck's own `/` commands, then pi's (extensions, prompt templates, skills)."""
        return self.current.all_commands()

    # --- actions --------------------------------------------------------------------------

    def action_clear_or_quit(self) -> None:
        """Ctrl+C: copy the text selected with the mouse, if any; else clear the prompt, and
        on an empty prompt a second Ctrl+C quits."""
        if self.selection.copy():
            return
        editor = self.main.editor
        if editor.text:  # a press that clears is not the first of two that quit
            editor.load("")
            self._last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.exit(self._exit_status)
            return
        self._last_ctrl_c = now
        working = [slot.name for slot in self.slots if slot.pi.held and slot.pi.model.busy]
        if working:  # a run the holder would keep: say that a quit stops it, and how to keep it
            self.tell.warn(f"Press ctrl+c again to quit: it stops the run{'s' * (len(working) > 1)} still working "
                           f"in {', '.join(working)}. Ctrl+\\ (or /detach) leaves {(it := 'them' if len(working) > 1 else 'it')} "
                           f"working: pideck attach brings {it} back", title="Quit", timeout=QUIT_WINDOW)
            return
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
        # every pi closed in order (held ones left to the holder on a detach or a hang-up)
        await asyncio.gather(*(slot.pi.close(detach=bool(self.detached), draft=self._draft(slot)) for slot in self.slots))

