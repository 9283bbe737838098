"""The screen of a read-only view (`pideck view`, `pideck replay`): pideck's conversation
screen with only what works where no pi runs.

No key reaches pi (no abort, model, thinking level, queue, restart or session keys) and the
prompt is a command line (widgets/prompt/command_line.py): Enter finds its text in the transcript,
or runs one of the view's `/` commands (`VIEW_COMMANDS`); any other `/` command is refused
in a toast, its text kept in the line. The Queue pane says nothing of steering, nor the
queue above the prompt of the keys that take it back.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import BindingsMap
from textual.screen import Screen

from app.commands.registry import REGISTRY, parse
from app.main_screen import MainScreen
from protocol.files.view_client import ViewClient
from widgets.prompt.command_line import CommandLine
from widgets.prompt.completion import complete
from widgets.prompt.editor import PromptEditor

# pideck's commands that need no pi: they read what the view holds, or are pideck's own.
VIEW_COMMANDS = {name: REGISTRY[name] for name in
                 ("copy", "export", "diff", "notifications", "hotkeys", "theme", "reload", "quit")}

# The conversation screen's keys kept in a view: none of them reaches pi.
_KEPT = {"copy_last", "quit_if_empty", "toggle_thinking", "toggle_tools", "toggle_side", "focus_tool_log",
         "run('diff')", "run('notifications')", "focus_editor", "transcript('top')", "transcript('bottom')",
         "transcript('previous_prompt')", "transcript('next_prompt')", "search"}
_KEYS = [replace(b, show=True) if b.action == "search" else b for b in MainScreen.BINDINGS if b.action in _KEPT]


class ViewScreen(MainScreen, inherit_bindings=False):
    prompt_class = CommandLine
    BINDINGS = [*Screen.BINDINGS, *_KEYS]

    @property
    def own_bindings(self) -> BindingsMap:
        return BindingsMap(replace(b, action=f"screen.{b.action}") for b in _KEYS)

    def on_mount(self) -> None:  # (before MainScreen's, which draws the panes)
        self.queue.empty = "empty"
        self.queue_lines.hint = ""

    def set_up_prompt(self, editor: PromptEditor) -> None:
        editor.border_title = "enter finds the text · / runs a command · read-only: nothing goes to pi"
        editor.completer = lambda before: (complete(before, self._commands(), self.context.pi.cwd)
                                           if before.startswith("/") else (0, []))
        editor.submit_check = self._find_or_run

    def _find_or_run(self, text: str) -> bool:
        """Enter: True for a view's `/` command (the screen runs it); any other `/` command is
        refused and stays in the line; other text is found in the transcript."""
        context = self.context
        if not text.strip():
            return False
        if text.startswith("/"):
            invoked = parse(text)
            if invoked is not None and invoked[0].name in context.commands:
                return True
            client = context.pi.client
            program = client.program if isinstance(client, ViewClient) else "this view"
            name = text.split(maxsplit=1)[0][:40]
            shown = " ".join(f"/{command}" for command in context.commands)
            context.fail(f"{name} needs pi, and {program} starts none. Here: {shown}, and text to find "
                         "in the transcript", title=f"{program}: read-only")
            return False
        editor = self.editor
        found = editor.pastes.sent(text)
        editor.remember(text)
        editor.load("")
        self.app.run_worker(self.search_bar.open(found), name="find", group="find", exclusive=True)
        return False
