"""A TextArea with the readline keys pi's editor has on top of Textual's.

Textual's TextArea already moves and deletes by word and line (Ctrl+A/E/W/U/K, Alt+Backspace,
Esc B/F). pi adds Ctrl+B/F (a character), Alt+Left/Right (a word), Alt+D (delete the next
word), Ctrl+- (undo), Ctrl+] (jump to the next occurrence of the character typed next),
and a kill ring: text removed by the word and line deletions is kept, Ctrl+Y puts the last
of it back at the cursor and Alt+Y, right after, swaps what was put back for the entry
before. Deletions in a row (nothing else in between) join into one entry, as in readline.
Ctrl+Y is Textual's redo, and Ctrl+Z its undo; pi's meaning wins (Ctrl+Z is the app's
suspend), and redo stays on Super+Y where the terminal reports it.

As in pi, the line keys (Home/End, Ctrl+A/E, Ctrl+U/K) act on the whole line, not on the
row a long line wraps to: Textual's stop at the wrap, and Ctrl+U on a wrapped prompt left
the start of the line in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual.binding import Binding, BindingsMap, Keymap
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult, Location

from widgets.engine.bindings import class_bindings, use_bindings
from widgets.engine.keys_in_order import KeysInOrder
from widgets.engine.key_events import key_name

KILL_RING_SIZE = 30


class KillRing:
    """Text the word and line deletions removed, newest last."""

    def __init__(self, size: int = KILL_RING_SIZE) -> None:
        self.size = size
        self.entries: list[str] = []
        self._yank = 0  # index of the entry the last yank put back

    def kill(self, text: str, *, backward: bool, joined: bool) -> None:
        """Keep `text`; `joined` adds it to the newest entry (before it when deleting
        backward) instead of starting a new one."""
        if not text:
            return
        if joined and self.entries:
            newest = self.entries[-1]
            self.entries[-1] = text + newest if backward else newest + text
        else:
            self.entries.append(text)
            del self.entries[: -self.size]
        self._yank = len(self.entries) - 1

    def newest(self) -> str | None:
        if not self.entries:
            return None
        self._yank = len(self.entries) - 1
        return self.entries[-1]

    def older(self) -> str | None:
        """The entry before the one last put back (from the oldest, round to the newest)."""
        if not self.entries:
            return None
        self._yank = (self._yank - 1) % len(self.entries)
        return self.entries[self._yank]


_JUMPS = {"jump(1)": 1, "jump(-1)": -1}


class ReadlineTextArea(KeysInOrder, TextArea):
    # pi's editor actions, by pi's ids (keybindings.json rebinds them), over TextArea's keys
    BINDINGS = [
        Binding("left,ctrl+b", "cursor_left", "Left", show=False, id="tui.editor.cursorLeft"),
        Binding("right,ctrl+f", "cursor_right", "Right", show=False, id="tui.editor.cursorRight"),
        Binding("alt+left,ctrl+left,alt+b", "cursor_word_left", "Word left", show=False,
                id="tui.editor.cursorWordLeft"),
        Binding("alt+right,ctrl+right,alt+f", "cursor_word_right", "Word right", show=False,
                id="tui.editor.cursorWordRight"),
        Binding("home,ctrl+a", "cursor_line_start", "Line start", show=False, id="tui.editor.cursorLineStart"),
        Binding("end,ctrl+e", "cursor_line_end", "Line end", show=False, id="tui.editor.cursorLineEnd"),
        Binding("backspace", "delete_left", "Delete left", show=False, id="tui.editor.deleteCharBackward"),
        Binding("delete,ctrl+d", "delete_right", "Delete right", show=False, id="tui.editor.deleteCharForward"),
        Binding("ctrl+w,alt+backspace,ctrl+backspace", "delete_word_left", "Delete word left", show=False,
                id="tui.editor.deleteWordBackward"),
        Binding("alt+d,alt+delete", "delete_word_right", "Delete word right", show=False,
                id="tui.editor.deleteWordForward"),
        Binding("ctrl+u", "delete_to_start_of_line", "Delete to line start", show=False,
                id="tui.editor.deleteToLineStart"),
        Binding("ctrl+k", "delete_to_end_of_line_or_delete_line", "Delete to line end", show=False,
                id="tui.editor.deleteToLineEnd"),
        Binding("ctrl+y", "yank", "Yank", show=False, id="tui.editor.yank",
                tooltip="Put back the text the last word or line deletion removed"),
        Binding("alt+y", "yank_pop", "Yank older", show=False, id="tui.editor.yankPop",
                tooltip="Right after Ctrl+Y: put back the deletion before that one instead"),
        Binding("ctrl+underscore,ctrl+minus", "undo", "Undo", show=False, id="tui.editor.undo"),
        Binding("ctrl+right_square_bracket", "jump(1)", "Jump to character", show=False, id="tui.editor.jumpForward",
                tooltip="Move to the next occurrence of the character typed next"),
        Binding("alt+ctrl+right_square_bracket", "jump(-1)", "Jump back to character", show=False,
                id="tui.editor.jumpBackward", tooltip="Move to the previous occurrence of the character typed next"),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kill_ring = KillRing()
        self._killing: tuple[bool, bool] | None = None  # (backward, joined) during a word/line deletion
        self._after_kill: object = None  # the edit state a kill left: a kill from there joins it
        self._yanked: tuple[Location, Location, object] | None = None  # range put back, state after
        self._jumping = 0  # after Ctrl+] (1) or Ctrl+Alt+] (-1): the next key is where to jump
        self.use_keymap({})

    def use_keymap(self, keymap: Keymap) -> None:
        """The app's keymap (pi's keybindings.json): `keymapped` holds the keys in force,
        `key_actions` what the keys this editor reads itself do.

        A key the keymap gives any action is taken from TextArea's own bindings that pi has
        no id for (F6 selects the line, F7 all, Ctrl+Shift+K deletes it): the focused editor
        is asked first, so they would shadow the app's action on that key."""
        taken = {key for keys in keymap.values() for key in keys.split(",")}
        own = BindingsMap.from_keys({
            key: kept for key, bindings in class_bindings(type(self)).key_to_bindings.items()
            if (kept := [b for b in bindings if b.id is not None or key not in taken])
        })
        use_bindings(self, own)
        self.keymapped = own.copy()
        self.keymapped.apply_keymap(keymap)
        self.key_actions = {key: binding.action for key, binding in self.keymapped}

    def get_cursor_line_start_location(self, smart_home: bool = False) -> Location:
        """The start of the cursor's line, not of its wrapped row (pi has no smart home either)."""
        return (self.selection.end[0], 0)

    def get_cursor_line_end_location(self) -> Location:
        """The end of the cursor's line, not of its wrapped row."""
        row = self.selection.end[0]
        return (row, len(self.document[row]))

    def _edit_state(self) -> object:
        return (self.text, self.selection)

    @contextmanager
    def _kill(self, *, backward: bool) -> Iterator[None]:
        self._killing = (backward, self._after_kill == self._edit_state())
        try:
            yield
        finally:
            self._killing = None
            self._after_kill = self._edit_state()

    def edit(self, edit: Edit) -> EditResult:
        """TextArea's (every change goes through it); during a word or line deletion, what it
        removed goes to the kill ring."""
        result = super().edit(edit)
        if self._killing is not None and result.replaced_text:
            backward, joined = self._killing
            self.kill_ring.kill(result.replaced_text, backward=backward, joined=joined)
            self._killing = (backward, True)  # a second deletion in the same action joins the first
        return result

    def action_delete_word_left(self) -> None:
        with self._kill(backward=True):
            super().action_delete_word_left()

    def action_delete_to_start_of_line(self) -> None:
        with self._kill(backward=True):
            super().action_delete_to_start_of_line()

    def action_delete_word_right(self) -> None:
        with self._kill(backward=False):
            super().action_delete_word_right()

    def action_delete_to_end_of_line(self) -> None:
        with self._kill(backward=False):
            super().action_delete_to_end_of_line()

    async def action_delete_to_end_of_line_or_delete_line(self) -> None:
        with self._kill(backward=False):
            await super().action_delete_to_end_of_line_or_delete_line()

    def action_yank(self) -> None:
        text = self.kill_ring.newest()
        if text is not None:
            self._put_back(text, *sorted(self.selection))

    def action_yank_pop(self) -> None:
        if self._yanked is None or self._yanked[2] != self._edit_state():
            return  # only right after a yank, as in readline
        text = self.kill_ring.older()
        if text is not None:
            self._put_back(text, self._yanked[0], self._yanked[1])

    def _put_back(self, text: str, start: Location, end: Location) -> None:
        result = self.replace(text, start, end, maintain_selection_offset=False)
        self._yanked = (start, result.end_location, self._edit_state())

    def action_jump(self, direction: int) -> None:
        self._jumping = direction

    def take_jump(self, event: events.Key) -> bool:
        """After Ctrl+] (or Ctrl+Alt+], backward): a printable key is the character to jump
        to (True: it was taken); any other key cancels the jump and goes on as usual. The
        jump keys start it here as well as through their bindings, which run later: a
        character typed right after them (a paste, a fast typist) would otherwise be
        inserted first."""
        if (jump := _JUMPS.get(self.key_actions.get(event.key, ""))) is not None:
            self._jumping = jump
            return False
        direction, self._jumping = self._jumping, 0
        if not direction or not (event.is_printable and event.character):
            return False
        event.stop()
        event.prevent_default()
        here = self.document.get_index_from_location(self.cursor_location)
        if direction > 0:
            found = self.text.find(event.character, here + 1)
        else:
            found = self.text.rfind(event.character, 0, here)
        if found >= 0:
            self.move_cursor(self.document.get_location_from_index(found))
        return True

    async def on_key(self, event: events.Key) -> None:
        """Before TextArea's handler (Textual calls each class's in turn until one prevents the
        default)."""
        if self.sent_on(event) or self.take_jump(event):
            return
        if event.key.startswith("alt+") and event.character:
            # Alt+letter arrives as Esc + the letter, which TextArea would type: it is a
            # chord, for the bindings (the event still bubbles up to the app, which runs them)
            event.prevent_default()
            if getattr(event, "escape_first", False) and not self.is_bound(event.key):
                # no chord of that name: Esc pressed, then the character, read at once (the
                # Esc aborts the run: never lost; widgets/engine/keys.py)
                event.stop()
                escape, typed = events.Key("escape", "\x1b"), events.Key(key_name(event.character), event.character)
                escape.time = typed.time = event.time  # (pressed when the chord came, not once the Esc is done)
                await self.on_event(escape)
                await self.on_event(typed)
