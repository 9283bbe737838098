"""Text given back to the prompt (Esc's queue, a refused message) and keys typed around it:
a key pressed or a paste made before it came is a new paragraph after it; one pressed once it was there
edits it, as typing does; one typed onto a draft goes on the draft."""

from __future__ import annotations

import pytest
from textual import events
from textual.app import App, ComposeResult

from widgets.prompt.editor import PromptEditor


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptEditor()


@pytest.mark.parametrize("draft, pressed, expected", [
    ("", "before", "steer one\n\nfollow one\n\nno"),  # read after the text came, pressed before it
    ("", "after", "steer one\n\nfollow oneno"),
    ("draft", "before", "steer one\n\nfollow one\n\ndraftno"),
])
async def test_keys_around_text_given_back(draft: str, pressed: str, expected: str) -> None:
    app = Host()
    async with app.run_test() as pilot:
        editor = app.query_one(PromptEditor)
        editor.load(draft)
        keys = [events.Key("n", "n"), events.Key("o", "o")]
        if pressed == "before":
            for key in keys:
                key.time = 0.0
        editor.put_before(["steer one", "follow one"])
        if pressed == "after":
            keys = [events.Key(key.key, key.character) for key in keys]  # made now: after the text came
        for key in keys:
            editor.post_message(key)
        await pilot.pause()
        assert editor.text == expected


async def test_a_paste_made_before_the_text_came_back_goes_after_it_as_a_paragraph() -> None:
    app = Host()
    async with app.run_test() as pilot:
        editor = app.query_one(PromptEditor)
        paste = events.Paste("pasted")
        paste.time = 0.0
        editor.put_before(["follow one"])
        app.post_message(paste)  # (as the terminal's reader hands it over)
        await pilot.pause()
        assert editor.text == "follow one\n\npasted"
