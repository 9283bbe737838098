"""The actions behind pi's model, thinking and copy keys, mixed into `PideckApp`.

Their bindings are in `PideckApp.BINDINGS`. Shift+Tab, Ctrl+X and Ctrl+D are
priority bindings (the screen and the editor bind those keys too); `check_action`
lets the key through to the widget when pideck's action does not apply: in a dialog,
Ctrl+X while the prompt has a selection (cut), Ctrl+D on a non-empty prompt (delete
right, as in pi). The keys run the same functions as their `/` commands, with the
app's `command_context`.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from app.command_context import CommandContext, Handler
from app.export_commands import copy_command
from app.model_commands import cycle_model, cycle_model_back, cycle_thinking, model_command
from app.selection_copy import SelectionCopy
from widgets.prompt_editor import PromptEditor

# Actions that act on the conversation: off while a dialog or picker is open.
MAIN_SCREEN_ONLY = frozenset({"select_model", "cycle_model", "cycle_model_back", "cycle_thinking", "copy_last"})


class CommandKeys:
    command_context: CommandContext
    selection: SelectionCopy

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        app: App[Any] = self  # type: ignore[assignment]
        if action in MAIN_SCREEN_ONLY and app.screen.is_modal:
            return False
        if action == "copy_last" and not app.query_one(PromptEditor).selection.is_empty:
            return False
        if action == "quit_if_empty" and (app.screen.is_modal or app.query_one(PromptEditor).text):
            return False
        return super().check_action(action, parameters)  # type: ignore[misc]

    def _run(self, handler: Handler, name: str) -> None:
        app: App[Any] = self  # type: ignore[assignment]
        app.run_worker(handler(self.command_context, ""), name=name, group="slash")

    def action_select_model(self) -> None:
        """Ctrl+L: the model picker (/model)."""
        self._run(model_command, "/model")

    def action_cycle_model(self) -> None:
        self._run(cycle_model, "cycle model")

    def action_cycle_model_back(self) -> None:
        self._run(cycle_model_back, "cycle model back")

    def action_cycle_thinking(self) -> None:
        self._run(cycle_thinking, "cycle thinking")

    def action_copy_last(self) -> None:
        """Ctrl+X: /copy, the last answer; as in pi, the mouse's selection instead when a
        drag does not copy it already (`fullscreenCopyOnSelect` false)."""
        if self.selection.on_select or not self.selection.copy():
            self._run(copy_command, "/copy")
