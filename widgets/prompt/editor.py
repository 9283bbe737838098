"""The multi-line prompt editor.

Enter sends, Alt+Enter queues a follow-up, Ctrl+J / Shift+Enter insert a newline,
Up/Down on the first/last row browse prompt history. Sending is the app's job:
the editor posts `PromptEditor.Submitted` to its screen with its text and empties itself at once, on
the key, so the keys typed after an Enter (a burst, an ssh link's bunch) start the next
message instead of joining this one's text before the app has read it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from textual import events
from textual.binding import Binding, BindingsMap
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import TextArea
from textual.widgets.text_area import Location

from widgets.prompt.completion import Candidate, CompletionMenu
from widgets.prompt.paste_markers import Pastes, cleaned, is_large
from widgets.engine.text_area import HardwareCursor
from widgets.prompt.readline_area import ReadlineTextArea
from widgets.engine.key_events import key_clock

Completer = Callable[[str], tuple[int, list[Candidate]]]
PasteHandler = Callable[[str], Awaitable[bool]]  # True: the paste was taken (e.g. image paths)
SubmitCheck = Callable[[str], bool]  # False: the text cannot be sent yet and stays in the editor


class PromptEditor(HardwareCursor, ReadlineTextArea):
    DEFAULT_CSS = """
    PromptEditor {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $border-blurred;
        border-title-color: $text-muted;
    }
    PromptEditor:focus {
        border: round $accent;
    }
    """
    BINDINGS = [
        Binding("enter", "submit('enter')", "Send", priority=False, id="tui.input.submit",
                tooltip="Send the prompt; while pi works, as a steering message"),
        Binding("alt+enter", "submit('follow_up')", "Follow-up", id="app.message.followUp",
                tooltip="While pi works, queue the prompt as a follow-up, sent when the run ends"),
        Binding("ctrl+j,shift+enter", "newline", "Newline", show=False, id="tui.input.newLine",
                tooltip="New line (Shift+Enter where the terminal reports it)"),
        Binding("pageup", "screen.transcript('page_up')", "Page up", show=False, id="tui.altScreen.pageUp",
                tooltip="Scroll the transcript up a page (it stops following the stream)"),
        Binding("pagedown", "screen.transcript('page_down')", "Page down", show=False,
                id="tui.altScreen.pageDown", tooltip="Scroll the transcript down a page"),
    ]

    # A steady cursor, as pi's editor draws by default: a blinking one is redrawn twice a
    # second, bytes on the wire (an ssh link) while nothing changes.
    cursor_blink = reactive(False, init=False)

    @dataclass
    class Submitted(Message):
        text: str
        mode: str  # "enter" (prompt, or steer while running) or "follow_up"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)  # type: ignore[arg-type]
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self.menu: CompletionMenu | None = None
        self.completer: Completer | None = None
        self.paste_handler: PasteHandler | None = None
        self.submit_check: SubmitCheck | None = None
        self.pastes = Pastes()  # large pastes, shown as markers (widgets/prompt/paste_markers.py)
        self._completion_start: Location = (0, 0)
        self.hardware_cursor = False  # pi's showHardwareCursor: the terminal's cursor at this one's, none drawn
        self._given_back: tuple[float, str] | None = None  # when text given back came, and the text then

    @property
    def key_bindings(self) -> BindingsMap:
        """The editor's bindings in force, its own and those it inherits (for /hotkeys)."""
        return self.keymapped

    async def on_key(self, event: events.Key) -> None:
        """Before ReadlineTextArea's and TextArea's handlers (Textual calls each class's in turn
        until one prevents the default)."""
        if self.sent_on(event):
            return
        self._apart_from_given_back(event.time, typed=event.is_printable)
        if self.take_jump(event):
            return
        key = event.key
        menu = self.menu
        if menu is not None and menu.display and key in ("up", "down", "tab", "escape"):
            event.stop()
            event.prevent_default()
            if key == "up":
                menu.action_cursor_up()
            elif key == "down":
                menu.action_cursor_down()
            elif key == "tab":
                self.accept_completion()
            else:
                menu.hide()
            return
        action = self.key_actions.get(key)
        if action in ("submit('enter')", "submit('follow_up')", "newline"):  # before TextArea types Enter
            event.stop()
            event.prevent_default()
            if action == "newline":
                self.action_newline()
            else:
                self.action_submit("enter" if action == "submit('enter')" else "follow_up")
            return
        # history from the first / last row as drawn: a long line wraps, and Up on its second row moves up
        if key == "up" and self.navigator.is_first_wrapped_line(self.cursor_location) and self._browse(-1):
            event.stop()
            event.prevent_default()
            return
        if key == "down" and self.navigator.is_last_wrapped_line(self.cursor_location) and self._browse(1):
            event.stop()
            event.prevent_default()

    async def on_paste(self, event: events.Paste) -> None:
        """Offer the paste to `paste_handler` first; a large paste goes in as a marker, and
        TextArea's own handler (next in the MRO) inserts any other."""
        if self.paste_handler is not None and await self.paste_handler(event.text):
            event.stop()
            event.prevent_default()
            return
        self._apart_from_given_back(event.time, typed=bool(event.text))
        text = cleaned(event.text)
        if is_large(text):
            event.stop()
            event.prevent_default()
            self.move_cursor(self.replace(self.pastes.add(text), *self.selection, maintain_selection_offset=False).end_location)

    @property
    def expanded_text(self) -> str:
        """The prompt's text with its large pastes in place of their markers."""
        return self.pastes.expand(self.text)

    def action_delete_left(self) -> None:
        """Backspace; right after a paste's marker, the whole marker and its paste."""
        if not self._delete_marker(before=True):
            super().action_delete_left()

    def action_delete_right(self) -> None:
        if not self._delete_marker(before=False):
            super().action_delete_right()

    def _delete_marker(self, *, before: bool) -> bool:
        if not self.selection.is_empty:
            return False
        row, column = self.cursor_location
        found = self.pastes.marker_at(self.document[row], column, before=before)
        if found is None:
            return False
        self.pastes.forget(self.delete((row, found[0]), (row, found[1]), maintain_selection_offset=False).replaced_text)
        return True

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.update_completion()

    def update_completion(self) -> None:
        """Complete the word at the cursor again (also when the candidates may have changed)."""
        if self.menu is None or self.completer is None:
            return
        # The cursor's line is all completion needs: `/` commands complete on the first line
        # only, so a later line goes with the newline before it (the whole text before the
        # cursor, 2 MB from an extension, took seconds to copy on every key)
        row, column = self.cursor_location
        line = self.document.get_line(row)[:column]
        start, candidates = self.completer(line if row == 0 else "\n" + line)
        self._completion_start = (row, start if row == 0 else start - 1)
        self.menu.show(candidates)

    def accept_completion(self) -> None:
        """Replace the word at the cursor with the highlighted candidate."""
        if self.menu is None or (chosen := self.menu.chosen) is None:
            return
        self.replace(chosen.insert, self._completion_start, self.cursor_location)
        self.menu.hide()

    def action_submit(self, mode: str) -> None:
        if self.menu is not None:
            self.menu.hide()
        text = self.text
        if self.submit_check is not None and not self.submit_check(text):
            return
        text = self.pastes.sent(text)
        # To the screen at once, before emptying asks for a frame: its handler then runs
        # ahead of that frame and sends the prompt first (bubbling, a step per container,
        # let the frame that draws the editor empty go before it).
        self.screen.post_message(self.Submitted(text, mode))
        self.load("")

    def action_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def remember(self, text: str) -> None:
        """Add a sent prompt to the history."""
        if text.strip() and (not self.prompt_history or self.prompt_history[-1] != text):
            self.prompt_history.append(text)
        self._history_index = None

    def _browse(self, step: int) -> bool:
        if not self.prompt_history:
            return False
        if self._history_index is None:
            if step > 0:
                return False
            self._draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index < 0:
            return True
        if index >= len(self.prompt_history):
            self._history_index = None
            self.load(self._draft)
            return True
        self._history_index = index
        self.load(self.prompt_history[index])
        return True

    def load(self, text: str) -> None:
        """Replace the content and put the cursor at its end."""
        self.text = text
        self.move_cursor(self.document.end)

    def put_before(self, texts: list[str]) -> None:
        """`texts` in front of what the editor holds, a blank line between each (text given
        back: a message sent from here as it was typed, another large one as a marker)."""
        texts = [self.pastes.given_back(text) for text in texts]
        draft = bool(self.text.strip())
        self.load("\n\n".join([*texts, self.text] if draft else texts))
        self._given_back = None if draft else (key_clock(), self.text)

    def _apart_from_given_back(self, pressed: float, typed: bool) -> None:
        """What is typed or pasted before the text given back was in the editor (Esc and the
        next message typed at once: the Esc's queue came back in between) is a new paragraph
        after it, not the end of its last line. `pressed`: the key's or the paste's time;
        `typed`: it puts text in."""
        if self._given_back is None:
            return
        at, given = self._given_back
        if pressed >= at:
            self._given_back = None  # typed with the text in sight
        elif typed and self.text == given and self.cursor_location == self.document.end:
            self._given_back = None
            self.insert("\n\n")
