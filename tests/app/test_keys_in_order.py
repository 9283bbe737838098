"""Keys sent in one burst (a fast typist, a pasted key sequence) apply in the order they were
pressed, in the pickers and editors (widgets/engine/keys_in_order.py). Pilot's `press` waits for the
app to go idle after each key, so these tests queue every key at once instead, as a terminal
delivers them."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PICKER_SIZE, Fake, burst, fixture_entries, summary, wait_until
from tests.screen_app import ScreenApp
from textual.widgets import Tree

from protocol.wire.extension_ui import EditorRequest, InputRequest
from protocol.wire.responses import Model
from widgets.screens.dialogs import dialog_for
from widgets.screens.pickers import ModelPicker
from widgets.prompt.editor import PromptEditor
from widgets.screens.queue_editor import QueueEditor, QueueItem
from widgets.screens.session_picker import SessionPicker
from widgets.screens.tree_view import SessionTreeScreen


def typed(text: str) -> list[str]:
    return list(text)


MODELS = [Model(id=name, name=name, provider="p") for name in ("first", "second", "other")]


async def choose_model(*keys: str) -> Model:
    app = ScreenApp(ModelPicker(MODELS, MODELS[0]))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen is app.first, what="picker")
        burst(app, *keys)
        await wait_until(pilot, lambda: app.results, what="a model chosen")
    return app.results[0]


async def test_model_picker_down_and_enter_in_one_burst() -> None:
    assert (await choose_model("down", "enter")).id == "second"


async def test_model_picker_filter_and_enter_in_one_burst() -> None:
    assert (await choose_model(*typed("other"), "enter")).id == "other"
    assert (await choose_model(*typed("s"), "down", "enter")).id == "second"  # the down moves in the filtered list


async def edit_queue(*keys: str) -> list[tuple[str, str]]:
    items = [QueueItem("steer", "steer A"), QueueItem("follow_up", "follow B")]
    app = ScreenApp(QueueEditor(items))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen is app.first, what="queue editor")
        burst(app, *keys)
        await wait_until(pilot, lambda: app.results, what="the queue sent")
    return [(item.kind, item.text) for item in app.results[0]]


async def test_queue_editor_text_typed_after_enter_goes_to_the_text_not_the_list() -> None:
    # d and t are the list's delete and steer/follow-up keys: typed right after Enter they are text
    sent = await edit_queue("enter", *typed(" edited"), "ctrl+s")
    assert sent == [("steer", " editedsteer A"), ("follow_up", "follow B")]


async def test_queue_editor_end_applies_before_the_letters_after_it() -> None:
    sent = await edit_queue("down", "enter", "end", *typed(" edited"), "escape", "up", "t", "ctrl+s")
    assert sent == [("follow_up", "steer A"), ("follow_up", "follow B edited")]


async def dialog_answer(request: Any, *keys: str, answer: str) -> Any:
    """`keys` in a burst, then `answer` pressed on its own (a burst's answers nothing, on_purpose.py)."""
    app = ScreenApp(dialog_for(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen is app.first, what="dialog")
        burst(app, *keys)
        await wait_until(pilot, app.first.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press(answer)
        await wait_until(pilot, lambda: app.results, what="the dialog answered")
    return app.results[0].value


async def test_dialogs_take_a_burst_in_order() -> None:
    editor = EditorRequest(id="1", title="Edit", prefill="body")
    assert await dialog_answer(editor, "end", *typed(" more"), "home", answer="ctrl+s") == "body more"
    assert await dialog_answer(editor, "end", *typed("!"), "home", *typed(">"), answer="ctrl+s") == ">body!"
    line = InputRequest(id="2", title="Name")
    assert await dialog_answer(line, *typed("ab"), "home", *typed("x"), answer="enter") == "xab"


async def test_session_picker_delete_asked_in_a_burst_waits_for_an_enter_pressed_on_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no `trash` command: the file is removed
    files = [tmp_path / "open.jsonl", tmp_path / "old.jsonl"]
    for file in files:
        file.write_text("{}\n")
    sessions = [replace(summary("Open work", "Open", minute=5), path=files[0]), replace(summary(None, "Old try"), path=files[1])]
    app = ScreenApp(SessionPicker(lambda everywhere: sessions, current=str(files[0])))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="listing")
        burst(app, *typed("old"), "ctrl+d", "enter")  # Ctrl+D asks about the filtered row; an Enter typed with it
        note = picker.query_one("#picker-note")
        await wait_until(pilot, lambda: "Enter was ignored" in str(note.render()), what="the Enter ignored")
        assert "Delete “Old try”?" in str(note.render()) and files[1].exists()
        await wait_until(pilot, picker.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("enter")  # pressed on its own, once the question is read, deletes
        await wait_until(pilot, lambda: not files[1].exists(), what="the filtered session deleted")
        assert files[0].exists() and app.screen is picker


async def test_session_tree_keys_after_a_filter_key_in_one_burst() -> None:
    async def cursor(send: Any) -> str | None:
        entries = fixture_entries()
        app = ScreenApp(SessionTreeScreen(entries, entries[-1].id))
        async with app.run_test(size=(100, 30)) as pilot:
            screen = app.first
            await wait_until(pilot, lambda: app.screen is screen and screen.query_one(Tree).cursor_node, what="tree")
            await send(app, pilot)
            await pilot.pause()
            return screen.query_one(Tree).cursor_node.data

    keys = ("o", "up", "up")

    async def pressed(app: Any, pilot: Any) -> None:
        await pilot.press(*keys)

    async def in_one_burst(app: Any, pilot: Any) -> None:
        burst(app, *keys)

    assert await cursor(in_one_burst) == await cursor(pressed)


async def test_prompt_editor_moves_and_types_in_the_order_of_a_burst(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        editor = pilot.app.query_one(PromptEditor)
        burst(pilot.app, *typed("abc"), "home", "x", "end", "y", "ctrl+a", "z", "ctrl+e", "alt+b", "w")
        await wait_until(pilot, lambda: len(editor.text) == 7, what="every key applied")
        assert editor.text == "wzxabcy", "each move applied before the letter typed after it"
