"""pi's readline keys in the prompt: Ctrl+B/F, Alt+Left/Right, Alt+D, the kill ring
(Ctrl+W/U/K and Alt+D kill, Ctrl+Y yanks, Alt+Y cycles), Ctrl+- undo, Ctrl+] jump."""

from __future__ import annotations

from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from widgets.engine.keys import install_alt_keys, install_key_reads
from widgets.prompt.editor import PromptEditor
from widgets.prompt.readline_area import KillRing, ReadlineTextArea


async def terminal_sends(pilot: Pilot[None], data: str) -> None:
    """Keys as a terminal sends them (Alt+D is Esc then "d"), read by Textual's parser with
    pideck's additions."""
    install_alt_keys()
    install_key_reads()
    parser = XTermParser()
    for event in [*parser.feed(data), *parser.feed("")]:
        pilot.app.post_message(event)
    await pilot.pause()
    await pilot.pause()


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ReadlineTextArea()


class Aborts(App[None]):
    """An editor under a screen whose Esc aborts, as pideck's does."""

    BINDINGS = [("escape", "abort", "Abort")]

    def __init__(self) -> None:
        super().__init__()
        self.aborts = 0

    def compose(self) -> ComposeResult:
        yield ReadlineTextArea()

    def action_abort(self) -> None:
        self.aborts += 1


async def test_esc_and_a_letter_read_at_once_abort_and_type_the_letter_unless_alt_has_a_key_of_that_name() -> None:
    app = Aborts()
    async with app.run_test() as pilot:
        editor = app.query_one(ReadlineTextArea)
        await terminal_sends(pilot, "ab\x1bn")  # no Alt+N: Esc, then n
        assert (app.aborts, editor.text) == (1, "abn")
        await terminal_sends(pilot, "\x1bN")
        assert (app.aborts, editor.text) == (2, "abnN")
        await terminal_sends(pilot, "\x1bd")  # Alt+D kills the word after the cursor (none here): no Esc
        assert (app.aborts, editor.text) == (2, "abnN")
        editor.move_cursor((0, 0))
        await terminal_sends(pilot, "\x1bd")
        assert (app.aborts, editor.text) == (2, "")


def test_kill_ring_joins_kills_in_a_row_and_cycles_back_from_the_newest() -> None:
    ring = KillRing(size=3)
    assert ring.newest() is None and ring.older() is None
    ring.kill("world", backward=True, joined=False)
    ring.kill("hello ", backward=True, joined=True)  # a second Ctrl+W in a row: before the first
    ring.kill(" again", backward=False, joined=True)
    assert ring.entries == ["hello world again"]
    for word in ("a", "b", "c"):
        ring.kill(word, backward=False, joined=False)
    assert ring.entries == ["a", "b", "c"], "only the newest `size` are kept"
    assert ring.newest() == "c" and ring.older() == "b" and ring.older() == "a" and ring.older() == "c"
    ring.kill("", backward=False, joined=False)
    assert ring.entries == ["a", "b", "c"]


async def test_moving_killing_yanking_and_undo_with_pis_keys() -> None:
    app = Host()
    async with app.run_test() as pilot:
        area = app.query_one(ReadlineTextArea)
        area.focus()
        area.load_text("one two three")
        area.move_cursor((0, 13))
        await pilot.press("ctrl+b", "ctrl+b")
        assert area.cursor_location == (0, 11)
        await pilot.press("ctrl+f")
        assert area.cursor_location == (0, 12)
        await pilot.press("alt+left")
        assert area.cursor_location == (0, 8)
        await pilot.press("alt+right")
        assert area.cursor_location == (0, 13)
        await terminal_sends(pilot, "\x1bb")  # Alt+B and Alt+F, as Esc then the letter
        assert area.cursor_location == (0, 8) and area.text == "one two three"
        await terminal_sends(pilot, "\x1bf")
        assert area.cursor_location == (0, 13) and area.text == "one two three"

        await pilot.press("ctrl+w", "ctrl+w")  # two kills in a row: one entry
        assert area.text == "one "
        assert area.kill_ring.entries == ["two three"]
        await pilot.press("ctrl+y")
        assert area.text == "one two three" and area.cursor_location == (0, 13)

        area.move_cursor((0, 0))
        await terminal_sends(pilot, "\x1bd")  # Alt+D kills the next word: a new entry, as the cursor moved
        assert area.text == " two three" and area.kill_ring.entries == ["two three", "one"]
        area.move_cursor((0, 10))
        await pilot.press("ctrl+y")
        assert area.text == " two threeone"
        await terminal_sends(pilot, "\x1by")  # Alt+Y right after the yank: the entry before instead
        assert area.text == " two threetwo three"
        await pilot.press("alt+y")
        assert area.text == " two threeone"
        await pilot.press("left", "alt+y")  # not right after a yank: nothing
        assert area.text == " two threeone"

        area.load_text("first line\nsecond")
        area.move_cursor((0, 5))
        await pilot.press("ctrl+k")
        assert area.text == "first\nsecond" and area.kill_ring.entries[-1] == " line"
        await pilot.press("ctrl+underscore")  # Ctrl+- in most terminals
        assert area.text == "first line\nsecond"

        area.move_cursor((0, 0))
        await pilot.press("ctrl+right_square_bracket", "s")  # Ctrl+] then s: to the next "s"
        assert area.cursor_location == (0, 3) and area.text == "first line\nsecond"
        await pilot.press("ctrl+right_square_bracket", "c")
        assert area.cursor_location == (1, 2), "across lines"
        await pilot.press("ctrl+right_square_bracket", "z")  # no z after the cursor: it stays
        assert area.cursor_location == (1, 2) and "z" not in area.text
        await pilot.press("x")
        assert area.text == "first line\nsexcond", "the jump is over: keys type again"
        await terminal_sends(pilot, "\x1b\x1di")  # Ctrl+Alt+] then i: back to the previous "i"
        assert area.cursor_location == (0, 7) and area.text == "first line\nsexcond"
        await terminal_sends(pilot, "\x1b\x1dq")  # none before: it stays
        assert area.cursor_location == (0, 7) and "q" not in area.text


def test_hotkeys_show_the_prompts_keys_and_not_the_textual_keys_they_replace() -> None:
    from textual.binding import BindingsMap

    from app.hotkeys_table import hotkey_sections
    from widgets.prompt.editor import PromptEditor

    sections = dict(hotkey_sections(BindingsMap(), PromptEditor._merged_bindings or BindingsMap()))
    prompt = {key: row.description for row in sections["Prompt editor"] for key in row.keys}
    textual = {key: row.description for row in sections["Text editing"] for key in row.keys}
    assert "Put back" in prompt["ctrl+y"] and "Right after" in prompt["alt+y"]
    assert "transcript" in prompt["pageup"] and prompt["ctrl+b"] == "Left"
    assert "ctrl+y" not in textual and "pageup" not in textual, "rebound in the prompt"
    assert textual["super+y"] == "Redo" and textual["ctrl+k"], "Textual's other keys are still listed"


class NarrowHost(App[None]):
    CSS = "ReadlineTextArea { width: 24; }"

    def compose(self) -> ComposeResult:
        yield ReadlineTextArea(soft_wrap=True)


async def test_line_keys_act_on_the_whole_line_of_a_wrapped_prompt() -> None:
    """pi's Ctrl+U deletes from the line's start, Ctrl+K to its end, Home/End and Ctrl+A/E
    go there: not to the ends of the row the line wraps to."""
    app = NarrowHost()
    line = "the first words wrap onto rows below in a narrow prompt"
    async with app.run_test(size=(40, 12)) as pilot:
        area = app.query_one(ReadlineTextArea)
        area.focus()
        area.load_text(f"above\n{line}\nbelow")
        await pilot.pause()
        assert area.wrapped_document.height > 4, "the middle line wraps"
        middle = (1, line.index("narrow"))
        area.move_cursor(middle)
        await pilot.press("ctrl+u")
        assert area.text == "above\nnarrow prompt\nbelow"
        assert area.cursor_location == (1, 0)
        await pilot.press("ctrl+y")
        assert area.text == f"above\n{line}\nbelow"
        area.move_cursor((1, line.index("first")))
        await pilot.press("ctrl+k")
        assert area.text == "above\nthe \nbelow"
        await pilot.press("ctrl+y")
        for key, column in (("home", 0), ("end", len(line)), ("ctrl+a", 0), ("ctrl+e", len(line))):
            area.move_cursor(middle)
            await pilot.press(key)
            assert area.cursor_location == (1, column), key


class NarrowPrompt(App[None]):
    CSS = "PromptEditor { width: 24; }"

    def compose(self) -> ComposeResult:
        yield PromptEditor()


async def test_up_and_down_in_a_wrapped_prompt_move_between_its_rows_before_browsing_history() -> None:
    app = NarrowPrompt()
    line = "a long draft that wraps onto three rows or more"
    async with app.run_test(size=(40, 12)) as pilot:
        editor = app.query_one(PromptEditor)
        editor.focus()
        editor.prompt_history = ["older prompt"]
        editor.load(line)
        await pilot.pause()
        await pilot.press("up")
        assert editor.text == line and editor.cursor_location[1] < len(line), "Up went to the row above"
        editor.move_cursor((0, 0))
        await pilot.press("down")
        assert editor.text == line and editor.cursor_location[1] > 0, "Down went to the row below"
        editor.move_cursor((0, 1))
        await pilot.press("up")
        assert editor.text == "older prompt", "on the first row Up browses the history"
        await pilot.press("down")
        assert editor.text == line, "and Down comes back to the draft"


def test_alt_digits_are_keys_not_the_characters_textual_types_for_them() -> None:
    """Alt+1 comes from xterm and tmux as ESC 1, which Textual read as "¡" typed in the prompt."""
    install_alt_keys()
    parser = XTermParser()
    keys = [event.key for event in [*parser.feed("\x1b1\x1b9\x1b0¡"), *parser.feed("")]]
    assert keys == ["alt+1", "alt+9", "alt+0", "inverted_exclamation_mark"]
