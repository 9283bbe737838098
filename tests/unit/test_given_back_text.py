"""Text given back to the prompt (Esc's queue, a refused message) and keys typed around it:
a key pressed before it came is a new paragraph after it; one pressed once it was there
edits it, as typing does."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from widgets.prompt_editor import PromptEditor


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptEditor()


def key(character: str, time: float) -> events.Key:
    pressed = events.Key(character, character)
    pressed.time = time
    return pressed


async def test_keys_pressed_before_the_text_came_back_go_after_it_as_a_paragraph() -> None:
    app = Host()
    async with app.run_test() as pilot:
        editor = app.query_one(PromptEditor)
        before = [key("n", 0.0), key("o", 0.0)]  # pressed before the text came, read after it
        editor.put_before(["steer one", "follow one"])
        for event in before:
            editor.post_message(event)
        await pilot.pause()
        assert editor.text == "steer one\n\nfollow one\n\nno"


async def test_keys_pressed_once_it_was_there_edit_it() -> None:
    app = Host()
    async with app.run_test() as pilot:
        editor = app.query_one(PromptEditor)
        editor.put_before(["follow one"])
        editor.post_message(events.Key("s", "s"))  # made now: after the text came
        await pilot.pause()
        assert editor.text == "follow ones"


async def test_a_draft_keeps_what_is_typed_before_the_text_came_back() -> None:
    app = Host()
    async with app.run_test() as pilot:
        editor = app.query_one(PromptEditor)
        editor.load("draft")
        early = key("x", 0.0)
        editor.put_before(["steer one"])
        editor.post_message(early)
        await pilot.pause()
        assert editor.text == "steer one\n\ndraftx"
