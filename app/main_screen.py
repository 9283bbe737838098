"""The conversation screen: the panes, the conversation's keys, the prompt's submit path,
and drawing the session model's changes.

Its session (app/pi/session.py) owns pi's client, the record pump and the model, which it
changes for the submit path; its slot (app/session_slot.py) the extension dialogs; the App
(app/pideck_app.py) the few global keys (F1, Ctrl+C, Ctrl+Z). Any screen pushed over this one (a dialog,
a picker, the palette) turns its bindings off, so no action here checks for one.
The keys that run `/` commands run the same functions with the command context. Its
frames are the engine's (widgets/engine/screen.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from textual import events, getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap, Keymap
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from app.commands import queue as queue_actions
from app.commands.changes import diff_command
from app.commands.context import CommandContext, Handler
from app.commands.export import copy_command
from app.external_editor import edit_prompt
from app.commands.model import cycle_model, cycle_model_back, cycle_thinking, model_command
from app.commands.notifications import notifications_command
from app.pi.settings import (
    display,
    display_warnings,
    double_escape_action,
    external_editor_setting,
    scrollbar_setting,
    wheel_lines,
)
from app.pi.remote import without_local_files
from app.selection_copy import SelectionCopy
from app.commands.registry import parse
from protocol.wire.client import RpcDataError, RpcError
from protocol.wire.commands import Abort, AbortBash, Command, Prompt
from protocol.wire.responses import CommandInfo
from protocol.state.desk import SessionLine
from protocol.state.session_model import Changes
from protocol.state.tool_runs import call_place
from widgets.prompt.attachments import AttachmentBar
from widgets.prompt.completion import CompletionMenu, complete
from widgets.panes.crash_bar import CrashBar
from widgets.panes.extension_widgets import MAX_WIDGETS, more_widgets, widget_text
from widgets.engine.screen import EngineScreen
from protocol.state.file_index import FileCache, FileIndex, list_entries
from widgets.panes.key_footer import UNBOUND, KeyFooter
from widgets.prompt.editor import PromptEditor
from widgets.panes.queue_lines import QueueLines
from widgets.text.safe import clean
from widgets.panes.sessions_row import SessionsRow
from widgets.panes.side import QueuePane, StatsPane, StatusLine, ToolLog
from widgets.panes.status_where import where_label
from widgets.tools.kinds import Call, kind_of
from widgets.tools.output import ShowToolOutput
from widgets.screens.tool_output_screen import ToolOutputScreen
from widgets.transcript.transcript import Transcript
from widgets.transcript.search import SearchBar

SIDE_MIN_WIDTH = 100  # columns below which the side panes hide themselves
DOUBLE_ESCAPE = 0.5  # seconds within which a second Esc on an empty prompt is doubleEscapeAction's (as pi)
QUIET_FOR = 0.2  # seconds without a frame of the session's changes after which the tick turns the spinner


# The commands keys run, by the name their binding gives `action_run` (Ctrl+L, Ctrl+P,
# Shift+Ctrl+P, Shift+Tab, F9, F8); any other name is one of pideck's `/` commands.
KEY_COMMANDS: dict[str, Handler] = {
    "model": model_command,
    "cycle_model": cycle_model,
    "cycle_model_back": cycle_model_back,
    "cycle_thinking": cycle_thinking,
    "diff": diff_command,
    "notifications": notifications_command,
}


class MainScreen(EngineScreen[None]):
    prompt_class: type[PromptEditor] = PromptEditor  # the editor under the transcript
    BINDINGS = [
        Binding("ctrl+l", "run('model')", "Model", tooltip="Select a model (/model)", id="app.model.select"),
        Binding("ctrl+p", "run('cycle_model')", "Next model", show=False,
                tooltip="Next model (of pi's scoped models, if set)", id="app.model.cycleForward"),
        Binding("ctrl+shift+p,alt+p", "run('cycle_model_back')", "Previous model", show=False,
                tooltip="Previous model (Alt+P where the terminal cannot tell Ctrl+Shift+P)",
                id="app.model.cycleBackward"),
        Binding("shift+tab", "run('cycle_thinking')", "Thinking level", show=False, priority=True,
                tooltip="Next thinking level (/thinking sets one)", id="app.thinking.cycle"),
        Binding("ctrl+x", "copy_last", "Copy answer", show=False, priority=True,
                tooltip="Copy the last answer (/copy); with a selection in the prompt, cut it", id="app.message.copy"),
        Binding("escape", "interrupt", "Abort", show=True,
                tooltip="Abort: clear the queue into the prompt, then stop the run, a retry, a compaction or !cmd",
                id="app.interrupt"),
        Binding("alt+up", "restore_queue", "Restore queue", show=False,
                tooltip="Take the queued messages back into the prompt; the run goes on", id="app.message.dequeue"),
        Binding("f5", "edit_queue", "Edit queue", show=False, tooltip="Edit the queue while the run goes on (/queue)"),
        Binding("ctrl+g", "external_editor", "External editor", show=False,
                tooltip="Edit the prompt in pi's externalEditor, else $VISUAL, $EDITOR or nano",
                id="app.editor.external"),
        Binding("ctrl+d", "quit_if_empty", "Quit", show=False, priority=True,
                tooltip="Quit when the prompt is empty (else delete right)", id="app.exit"),
        Binding("ctrl+t", "toggle_thinking", "Thinking", tooltip="Collapse or show thinking blocks",
                id="app.thinking.toggle"),
        Binding("ctrl+o", "toggle_tools", "Tool output", tooltip="Expand or collapse tool output",
                id="app.tools.expand"),
        Binding("f2", "toggle_side", "Panes", tooltip="Hide or show the side panes"),
        Binding("f3", "focus_tool_log", "Tool log", tooltip="Focus the tool log (Enter jumps to a tool)"),
        Binding("f9", "run('diff')", "Changes",
                tooltip="The files this session changed through edit, write and bash, with their diffs (/diff)"),
        Binding("f8", "run('notifications')", "Notifications", show=False,
                tooltip="List the notifications, with the full text of each (/notifications)"),
        Binding("f4", "focus_editor", "Editor", show=False, tooltip="Back to the prompt"),
        Binding("ctrl+home", "transcript('top')", "Top", show=False,
                tooltip="Scroll to the start of the transcript; there, load earlier messages", id="tui.altScreen.top"),
        Binding("ctrl+end", "transcript('bottom')", "End", show=False,
                tooltip="Scroll to the end of the transcript and follow new output", id="tui.altScreen.bottom"),
        Binding("ctrl+shift+up,ctrl+up", "transcript('previous_prompt')", "Previous prompt", show=False,
                tooltip="Scroll to your previous message", id="tui.altScreen.previousPrompt"),
        Binding("ctrl+shift+down,ctrl+down", "transcript('next_prompt')", "Next prompt", show=False,
                tooltip="Scroll to your next message (after the last, to the end)", id="tui.altScreen.nextPrompt"),
        Binding("ctrl+s,ctrl+shift+f", "search", "Search", show=False,
                tooltip="Search the transcript (Enter/Down next, Up previous, Esc closes)", id="tui.altScreen.search"),
        Binding("ctrl+r", "restart_pi", "Restart pi",
                tooltip="Start pi again after it exited, on the same session (/restart)"),
        # pi's session actions, without a key unless keybindings.json gives them one
        Binding(UNBOUND, "run('new')", "New session", show=False, tooltip="New session (/new)",
                id="app.session.new"),
        Binding(UNBOUND, "run('tree')", "Session tree", show=False, tooltip="Session tree (/tree)", id="app.session.tree"),
        Binding(UNBOUND, "run('fork')", "Fork", show=False, tooltip="Fork from one of your earlier messages (/fork)",
                id="app.session.fork"),
        Binding(UNBOUND, "run('resume')", "Resume a session", show=False, tooltip="Resume a saved session (/resume)",
                id="app.session.resume"),
    ]

    @property
    def own_bindings(self) -> BindingsMap:
        """This screen's keys, not Textual's Screen's, with actions named `screen.…` so the
        palette runs them here."""
        return BindingsMap(replace(b, action=f"screen.{b.action}") for b in self.BINDINGS if isinstance(b, Binding))

    transcript = getters.query_one(Transcript)
    editor = getters.query_one(PromptEditor)
    search_bar = getters.query_one(SearchBar)
    crash_bar = getters.query_one(CrashBar)
    side = getters.query_one("#side", Vertical)
    stats = getters.query_one(StatsPane)
    queue = getters.query_one(QueuePane)
    queue_lines = getters.query_one(QueueLines)
    tool_log = getters.query_one(ToolLog)
    widgets_above = getters.query_one("#widgets-above", Vertical)
    widgets_below = getters.query_one("#widgets-below", Vertical)

    def __init__(
        self,
        context: CommandContext,
        selection: SelectionCopy,
        *,
        commands: Callable[[], list[CommandInfo]],
        keymap: Callable[[], Keymap],
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.context = context
        self.session = context.pi.model
        self.selection = selection
        self.pi = context.pi
        self._commands = commands
        self._keymap = keymap  # pi's keybindings.json, as Textual's keymap
        self.status: StatusLine = StatusLine(self.session, id="status")  # the tick reaches it without a walk of the DOM
        self._thinking_collapsed = False
        self._last_escape = 0.0  # an Esc on an empty prompt while pi was idle
        self.code_block_indent: str | None = None  # pi's markdown.codeBlockIndent (widgets/markdown/stream.py reads it)
        self._tools_expanded = False
        self._side_chosen: bool | None = None  # F2 / F3 showed or hid the side panes
        self.status_at = 0.0  # monotonic time the session's changes last refreshed the status line
        self.files = FileCache(self._list_files)  # for `@` completion
        self.composed = asyncio.Event()  # the panes are there: changes can be drawn
        self.branch: str | None = None  # the git branch of pi's folder (app/git_branch.py)
        self._where: tuple[object, ...] | None = None  # the label on the prompt's bottom border, as compared
        self._theme_left: str | None = None  # the theme when another session's screen was shown (None: never)
        self._waiting: list[PromptEditor.Submitted] = []  # sent before pi was ready, to go once it is

    def compose(self) -> ComposeResult:
        config = self.context.pi.config
        yield SessionsRow(id="sessions-row")
        with Horizontal(id="main"):
            with Vertical(id="conversation"):
                yield Transcript(self.session, wheel_lines=wheel_lines(config), held=config.hold, id="transcript",
                                 classes=f"-scrollbar-{scrollbar_setting(config)}")
                yield SearchBar(id="search")
                yield CrashBar(id="crash-bar")
                yield QueueLines(self.session, id="queue-lines")
                yield Vertical(id="widgets-above", classes="extension-widgets")
                yield CompletionMenu(id="completion")
                yield AttachmentBar(id="attachments")
                yield self.prompt_class(id="editor")
                yield Vertical(id="widgets-below", classes="extension-widgets")
            with Vertical(id="side"):
                yield StatsPane(self.session, id="stats")
                yield QueuePane(self.session, id="queue")
                yield ToolLog(self.session, id="tool-log")
        yield self.status
        yield KeyFooter()

    def on_mount(self) -> None:
        self.composed.set()
        self.scrollbar_owner = self.transcript  # (its scrollbar is painted in the frame that moved it)
        self.show_desk(self.context.desk.lines())
        editor = self.editor
        editor.focus()
        editor.use_keymap(self._keymap())
        editor.menu = self.query_one(CompletionMenu)
        self.set_up_prompt(editor)
        self.search_bar.transcript = self.transcript
        self._fit_side(self.app.size.width)
        self.refresh_panes()
        self.follow_display()

    def set_up_prompt(self, editor: PromptEditor) -> None:
        """The prompt's title, its completions and what a paste may attach."""
        editor.border_title = "prompt · enter send · alt+enter follow-up · ctrl+j newline · / commands · @ files"
        editor.completer = lambda before: complete(
            before, self._commands(), self.context.pi.cwd,
            lambda query, limit: self.files.search(self.context.pi.cwd, query, limit),
        )  # fmt: skip
        if (host := self.context.pi.config.remote) is not None:
            editor.completer = without_local_files(editor.completer, host, lambda text: self.context.warn(text, "@"))
        editor.paste_handler = self.context.attachments.paste

    def follow_display(self) -> None:
        """pi's display settings (at start-up and on /reload); one pi would not take is
        ignored, and said in a toast."""
        config = self.context.pi.config
        shown = display(config)
        transcript = self.transcript
        self._thinking_collapsed = shown.hide_thinking
        transcript.set_thinking_collapsed(shown.hide_thinking)
        transcript.set_class(shown.output_pad == 0, "-output-pad-0")
        transcript.set_class(shown.quiet_startup, "-quiet-startup")
        self.set_class(shown.hyperlinks, "-hyperlinks")  # for the markdown rendered from now on
        self.code_block_indent = None if shown.code_indent is None else clean(shown.code_indent).replace("\n", " ")
        self.editor.styles.padding = None if shown.editor_padding is None else (0, shown.editor_padding)
        self.editor.hardware_cursor = shown.hardware_cursor
        self.editor.refresh()
        rows = shown.completion_rows
        self.query_one(CompletionMenu).styles.max_height = None if rows is None else rows + 2  # and its border
        if warnings := display_warnings(config):
            self.context.warn("pideck ignores these: " + "; ".join(warnings) + ".", title="pi's settings")

    @work(thread=True, group="file-index", exit_on_error=False)
    def _list_files(self, folder: Path, generation: int) -> None:
        try:
            index = FileIndex(list_entries(folder))
        except Exception as error:  # said once; @ goes on completing by prefix, and lists again after a tool run
            if self.files.failed != folder:
                self.files.failed = folder
                self.app.call_from_thread(self.context.warn, f"pideck could not list the files under {clean(str(folder))} "
                                          f"({clean(repr(error))[:200]}); @ completes one folder at a time", title="@ files")
            return
        self.app.call_from_thread(self._files_listed, folder, generation, index)

    def _files_listed(self, folder: Path, generation: int, index: FileIndex) -> None:
        self.files.store(folder, generation, index)
        editor = self.editor
        if (editor.menu is not None and editor.menu.display) or "@" in editor.document.get_line(editor.cursor_location[0]):
            editor.update_completion()  # the fuzzy candidates for the word being typed

    # --- drawing the model's changes ------------------------------------------------------

    async def show_changes(self, changes: Changes) -> None:
        """Bring the panes up to date with what changed in the session model."""
        await self.transcript.apply(changes)
        if changes.tools or changes.reset:  # a loaded session brings its tool runs
            self.tool_log.refresh_runs()
        if any((run := self.session.tools.get(key)) is not None and run.done for key in changes.tools):
            self.files.changed()  # a tool may have written files
        if changes.queue:
            self.queue.refresh_queue()
            self.queue_lines.refresh_queue()
        if changes.session or changes.usage or changes.status:  # (status: pi started, its rows filled)
            self.stats.refresh_stats()
        if changes.session or changes.reset or changes.status:  # a session's folder or name; pi held or gone
            self.show_where()
        if changes.extension_ui:
            await self._refresh_extension_widgets()
        if changes.status:
            self._show_life()
        if (changes.run or changes.extension_ui or changes.protocol_errors or changes.session or changes.status
                or self.session.running or (changes.usage and self.status.with_stats)):
            self.status.refresh_status()  # (session: a model chosen, or none; running: the spinner turns)
            self.status_at = time.monotonic()
        if changes.editor_text is not None:
            self.editor.load(clean(changes.editor_text))  # no terminal controls back to pi

    def post_message(self, message: Message) -> bool:
        """A session shown again (Textual's mode switch) restyles its screen's every widget,
        0.7 s for a long transcript's thousands; it is done only if the theme changed while
        another session was shown (a class changed meanwhile restyles its widget itself).
        Shown for the first time, its widgets were styled as they were mounted, and a theme
        set since restyles every widget of the app (App.refresh_css): restyled again, the
        new screen took some 40 ms of start-up."""
        if (isinstance(message, events.ScreenResume) and message.refresh_styles
                and self._theme_left in (None, self.app.theme)):
            message = events.ScreenResume(refresh_styles=False)
        return super().post_message(message)

    def on_screen_suspend(self) -> None:
        self._theme_left = self.app.theme

    def show_desk(self, lines: list[SessionLine]) -> None:
        """The sessions row: every open session (none while only this one is open)."""
        if self.is_mounted:
            self.query_one(SessionsRow).show_lines(lines)

    @on(SessionsRow.Chosen)
    def _session_chosen(self, event: SessionsRow.Chosen) -> None:
        self.run_action(f"app.show_session({event.number})")

    def _show_life(self) -> None:
        """The crash bar as pi's life is: hidden while pi runs, its button waiting while pi restarts."""
        life, bar = self.session.life, self.crash_bar
        if life.crash is None:
            if bar.display:
                bar.hide()
                self.editor.focus()
        elif life.restarting:
            bar.restarting()
        else:
            bar.show(life.crash.reason, life.crash.detail)

    def animate(self) -> None:
        """The spinner and running tools' durations (the App's tick). While the transcript
        streams the spinner turns on its frames, so the tick draws no frame of its own."""
        if (self.session.running or self.session.life.starting_since is not None) and time.monotonic() - self.status_at >= QUIET_FOR:
            self.status.refresh_status()
            if any(not run.done for run in self.session.tools.values()):
                self.tool_log.refresh_runs()

    def refresh_panes(self) -> None:
        self.stats.refresh_stats()
        self.queue.refresh_queue()
        self.queue_lines.refresh_queue()
        self.tool_log.refresh_runs()
        self.status.refresh_status()

    async def _refresh_extension_widgets(self) -> None:
        for placement, container in (("aboveEditor", self.widgets_above), ("belowEditor", self.widgets_below)):
            await container.remove_children()
            widgets = [widget for _, widget in sorted(self.session.widgets.items()) if widget.placement == placement]
            texts = [widget_text(widget.lines) for widget in widgets[:MAX_WIDGETS]]
            if len(widgets) > MAX_WIDGETS:
                texts.append(more_widgets(len(widgets) - MAX_WIDGETS))
            await container.mount_all(Static(text, classes="extension-widget") for text in texts)

    # --- sending --------------------------------------------------------------------------

    @property
    def _pi_takes_messages(self) -> bool:
        return self.pi.ready and not self.session.life.restarting  # (a restart: not loaded yet)

    @property
    def waiting_texts(self) -> list[str]:
        """The messages sent before pi was ready, still to go (the draft at exit keeps them)."""
        return [event.text for event in self._waiting]

    @on(PromptEditor.Submitted)
    async def submit(self, event: PromptEditor.Submitted) -> None:
        """Send what the editor held at Enter (it has emptied itself: keys typed since are the
        next message's). A message sent before pi is ready (its model's name shows while
        its messages are read) waits, and goes, in order, once pi is ready; a `/` command
        runs at once."""
        if parse(event.text) is not None:
            await self._send(event)
            return
        self._waiting.append(event)
        await self._send_waiting()
        if self._waiting:
            self.context.say("pi is still starting: the message goes to pi once the status line says ready",
                             title="Sent when ready")

    def pi_life_changed(self) -> None:
        """pi's life changed (ready, could not start): the messages waiting for it go, in
        the screen's turn (after any Enter before), or come back to the prompt."""
        if self._waiting:
            self.call_later(self._send_waiting)

    async def _send_waiting(self) -> None:
        if self.session.life.startup_error is not None:  # never sent: back in the prompt
            self.editor.put_before(self.waiting_texts)
            self._waiting.clear()
        while self._waiting and self._pi_takes_messages:
            await self._send(self._waiting.pop(0))

    async def _send(self, event: PromptEditor.Submitted) -> None:
        text = event.text
        context, attachments = self.context, self.context.attachments
        if "@" in text:
            text = await attachments.scan_sent(text)
        if not text.strip() and not attachments.bar.attachments:
            return
        editor = self.editor
        editor.remember(text)
        if text.startswith("!"):
            exclude = text.startswith("!!")
            self.transcript.to_bottom()  # its output comes at the end: follow it
            self.run_bash(text[2 if exclude else 1 :].strip(), exclude)
            return
        invoked = parse(text)
        if invoked is not None:
            command, args = invoked
            self.app.run_worker(command.run(context, args), name=f"/{command.name}", group="slash")
            return
        images = await attachments.take(text, queued=self.session.busy)
        if self.session.busy:  # a prompt with its streamingBehavior, which pi runs at once if it has just gone idle
            behavior = "followUp" if event.mode == "follow_up" else "steer"
            self.send_command(Prompt(message=text, images=images, streaming_behavior=behavior), restore=text)
        else:  # a new prompt's answer comes at the end: follow it (a steer leaves the reader where they are)
            self.transcript.to_bottom()
            self.pi.prompt_sent()
            self.send_command(Prompt(message=text, images=images), restore=text)

    @on(PromptEditor.Changed)
    async def attach_images(self, event: PromptEditor.Changed) -> None:
        if isinstance(event.text_area, PromptEditor):
            await self.context.attachments.scan(event.text_area)

    def send_command(self, command: Command, restore: str = "") -> None:
        """Send `command` now (written before the frame this step draws, where it can be)
        and take pi's answer in a worker."""
        self._answered(command, self.context.pi.client.call_now(command), restore)

    @work(group="send")
    async def _answered(self, command: Command, call: Awaitable[object], restore: str) -> None:
        answer = None
        try:
            answer = await call
        except RpcDataError as exc:  # pi took the message; only its answer could not be read
            self.context.pi.problems.bad_answer(exc)
        except RpcError as exc:
            self.context.fail(str(exc), title="pi refused")
            if restore:  # never lose what the user typed (large pastes as markers again), nor what they type since
                self.editor.put_before([restore])
            await self.pi.refused(str(exc))
            if images := getattr(command, "images", None):
                await self.context.attachments.restore(images)
        finally:
            if isinstance(command, Prompt) and command.streaming_behavior is None:
                self.pi.prompt_answered(getattr(answer, "disposition", None))

    @work(group="bash")
    async def run_bash(self, command: str, exclude: bool) -> None:
        if command:
            await self.pi.run_bash(command, exclude)

    # --- keys -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Shift+Tab, Ctrl+X and Ctrl+D are priority bindings (the editor binds those keys
        too): Ctrl+X goes to the editor while the prompt has a selection (cut), Ctrl+D on a
        non-empty prompt (delete right, as in pi)."""
        if action == "copy_last" and not self.editor.selection.is_empty:
            return False
        if action == "quit_if_empty" and self.editor.text:
            return False
        if action == "restart_pi":  # offered (and shown in the footer) only while pi is not running
            return self.pi.can_restart()
        return super().check_action(action, parameters)

    def _run(self, handler: Handler, name: str) -> None:
        self.app.run_worker(handler(self.context, ""), name=name, group="slash")

    def action_run(self, name: str) -> None:
        """A key's command: one of `KEY_COMMANDS`, else pideck's `/name` (pi's `app.session.*`
        actions: /new, /tree, /fork, /resume)."""
        handler = KEY_COMMANDS.get(name) or self.context.commands[name].run
        self._run(handler, f"/{name}")

    def action_copy_last(self) -> None:
        """Ctrl+X: /copy, the last answer; as in pi, the mouse's selection instead when a
        drag does not copy it already (`fullscreenCopyOnSelect` false)."""
        if self.selection.on_select or not self.selection.copy():
            self._run(copy_command, "/copy")

    async def action_interrupt(self) -> None:
        """Esc: while pi works, clear_queue (the texts go back into the editor), then abort;
        otherwise stop a /compact or a running `!cmd`; twice on an empty prompt, /tree or /fork."""
        context = self.context
        client = context.pi.client
        if not client.running:
            return
        try:
            if self.session.running:
                try:
                    await queue_actions.put_in_editor(context, await queue_actions.take_queue(context))
                except RpcDataError as exc:  # pi emptied its queue but the answer is unreadable: abort all the same
                    context.pi.problems.bad_answer(exc)
                await client.call(Abort())
            elif self.session.compaction is not None:  # a /compact: pi's abort stops it
                await client.call(Abort())
            elif self.session.bash_running:
                await client.call(AbortBash())
            elif not self.editor.text.strip():
                self._escape_on_empty_prompt()
        except RpcError as exc:
            context.fail(str(exc), title="abort failed")

    def _escape_on_empty_prompt(self) -> None:
        """Esc twice on an empty prompt while pi is idle: /tree or /fork, as pi's
        `doubleEscapeAction` setting says (or nothing)."""
        action = double_escape_action(self.context.pi.config)
        now = time.monotonic()
        if action == "none" or now - self._last_escape >= DOUBLE_ESCAPE:
            self._last_escape = now
            return
        self._last_escape = 0.0
        self.action_run(action)

    async def action_restore_queue(self) -> None:
        """Alt+Up: the queued messages back into the editor, without aborting."""
        await queue_actions.restore_queue(self.context)

    def action_edit_queue(self) -> None:
        self.app.run_worker(queue_actions.edit_queue(self.context), name="edit queue", group="queue-editor")

    def action_external_editor(self) -> None:
        """Ctrl+G: edit the prompt in pi's external editor (its setting, $VISUAL, $EDITOR)."""
        config = self.context.pi.config
        edit_prompt(self.app, self.editor, config.env, external_editor_setting(config))

    def action_quit_if_empty(self) -> None:
        if not self.editor.text:
            self.context.desk.quit()

    def action_restart_pi(self) -> None:
        self.app.run_worker(self.context.pi.restart(), name="restart", group="restart", exclusive=True)

    def action_toggle_thinking(self) -> None:
        self._thinking_collapsed = not self._thinking_collapsed
        self.transcript.set_thinking_collapsed(self._thinking_collapsed)

    def action_toggle_tools(self) -> None:
        self._tools_expanded = not self._tools_expanded
        self.transcript.set_tools_expanded(self._tools_expanded)

    async def action_search(self) -> None:
        await self.search_bar.open()

    @property
    def searching(self) -> bool:
        """The search bar is open (its matches are shown as selections)."""
        return bool(self.search_bar.display)

    @on(SearchBar.Closed)
    def _search_closed(self) -> None:
        self.editor.focus()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_side(event.size.width)
        self.show_where()

    def show_where(self) -> None:
        """pi's folder, branch and session name on the prompt's bottom border, as pi's footer
        shows them under its editor, and whether pi is held (widgets/panes/status_where.py); cut
        from the left to fit."""
        config, editor = self.context.pi.config, self.editor
        cells = editor.outer_size.width - 6 if editor.outer_size.width else 200  # its corners and a margin
        label = where_label(self.session, branch=self.branch, home=config.env.get("HOME"), host=config.remote, cells=cells,
                            held=self.pi.client.held)
        shown = (label.plain, label.style, label.spans)  # (a Text's == leaves its style out: a theme's colours)
        if shown != self._where:  # (a border set repaints the editor, as every state pi sends did: 1 ms a reply)
            self._where, editor.border_subtitle = shown, label

    def _fit_side(self, width: int) -> None:
        """Side panes only where the conversation keeps room (at start and on every resize),
        unless F2 or F3 chose otherwise."""
        if self._side_chosen is None:
            self._show_side(width >= SIDE_MIN_WIDTH)

    def _show_side(self, shown: bool) -> None:
        """The side panes shown or hidden; the status line and the lines above the prompt say
        what they would while hidden."""
        self.side.display = shown
        if self.queue_lines.panes_hidden == shown:
            self.queue_lines.panes_hidden = not shown
            self.queue_lines.refresh_queue()
        if self.status.with_stats == shown:
            self.status.with_stats = not shown
            self.status.refresh_status()

    def action_toggle_side(self) -> None:
        self._side_chosen = not self.side.display
        self._show_side(self._side_chosen)

    def action_focus_tool_log(self) -> None:
        self._side_chosen = True
        self._show_side(True)
        self.tool_log.focus()

    def action_focus_editor(self) -> None:
        self.editor.focus()

    async def action_transcript(self, move: str) -> None:
        """Move around the transcript from wherever the focus is (as pi's keys do)."""
        transcript = self.transcript
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
        await self.show_tool_call(event.run_key)

    async def show_tool_call(self, key: str) -> None:
        """To a tool run's call in the transcript (`tool_runs.run_key`), mounting it first if it was left out."""
        transcript = self.transcript
        view = transcript.view_for_tool(key)
        place = call_place(key)
        if view is None and place is not None and await transcript.reveal(place[0]):
            view = transcript.view_for_tool(key)
        if view is not None:
            transcript.show_view(view)
            view.add_class("-flash")
            self.set_timer(1.0, lambda: view.remove_class("-flash"))

    @on(ShowToolOutput)
    def show_tool_output(self, event: ShowToolOutput) -> None:
        run = self.session.tools.get(event.run_key)
        if run is None or not run.output:
            self.context.say("This tool has printed nothing yet.")
            return
        call = Call(run.name, run.args, run, self.session.cwd)
        full = kind_of(run.name).full(call)
        self.app.push_screen(ToolOutputScreen(kind_of(run.name).title(call), full.text, full.style))
