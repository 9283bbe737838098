"""The prompt of a read-only view (`pideck view`, `pideck replay`): a command line.

Nothing typed there goes to pi (none runs): Enter finds the text in the transcript or runs
one of the view's `/` commands (the screen decides which, app/view/screen.py). It is the
prompt editor with Enter named for that and without Alt+Enter's follow-up.
"""

from __future__ import annotations

from textual.binding import Binding

from widgets.prompt.editor import PromptEditor


class CommandLine(PromptEditor):
    BINDINGS = [
        Binding("enter", "submit('enter')", "Find or run", priority=False, id="tui.input.submit",
                tooltip="Find the text in the transcript, or run the / command"),
        Binding("alt+enter", "submit('enter')", "Find or run", show=False),  # (the prompt's follow-up key)
    ]
