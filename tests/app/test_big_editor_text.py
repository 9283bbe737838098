"""The editor text an extension sets (`set_editor_text`): cleaned of terminal controls, and a
2 MB one leaves the keys fast: completion looks at the cursor's line only, and an `@word`
that names no image is looked up once, not on every key (benchmarks/keystroke_latency.py
measures the latency)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, ui, wait_until

import app.attachments as attachments
from widgets.prompt.editor import PromptEditor

LINE = "look at @src/main.py and @docs/notes.md here"


async def test_editor_text_from_pi_is_cleaned_and_sent_clean(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        editor = pilot.app.query_one(PromptEditor)
        fake.inject(ui("set_editor_text", text="fix \x1b[31mthe\x1b[0m bug\x07\x1b]0;title\x07\r\nnow"))
        await wait_until(pilot, lambda: "bug" in editor.text, what="editor text")
        assert editor.text == "fix the bug\nnow"
        await pilot.press("enter")
        prompts = await wait_until(pilot, lambda: fake.commands("prompt"), what="prompt sent")
        assert prompts[0]["message"] == "fix the bug\nnow"


async def test_keys_after_a_huge_editor_text_do_not_scan_all_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[Path] = []
    real = attachments.is_image_file
    monkeypatch.setattr(attachments, "is_image_file", lambda path: looked_up.append(path) or real(path))
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        editor = pilot.app.query_one(PromptEditor)
        completed: list[int] = []
        complete = editor.completer
        assert complete is not None
        editor.completer = lambda before: (completed.append(len(before)), complete(before))[1]  # type: ignore[misc]
        text = "\n".join(f"{LINE} {n}" for n in range(40_000))  # 2 MB, 80,000 @words
        assert len(text) > 2_000_000
        fake.inject(ui("set_editor_text", text=text))
        await wait_until(pilot, lambda: len(editor.text) == len(text), timeout=60, what="editor text")
        await wait_until(pilot, lambda: completed, what="completion on the change")
        looked_up.clear()
        completed.clear()
        for key in "ab ":
            await pilot.press(key)
        await wait_until(pilot, lambda: editor.text.endswith("ab "), what="typed")
        await pilot.pause()
        assert len(looked_up) <= 3, "only words not looked up before"
        assert completed and max(completed) < 100, "completion gets the cursor's line, not 2 MB"


async def test_completion_on_a_later_line(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app: Any = pilot.app
        (app.desk.current.pi.cwd / "zz_notes_for_test.md").write_text("")
        editor = app.query_one(PromptEditor)
        editor.load("/model first line\nsee @zz_notes_for")
        await pilot.pause()
        editor.load(editor.text)  # a change with the cursor at the end
        await wait_until(pilot, lambda: editor.menu is not None and editor.menu.display, what="completion menu")
        await pilot.press("tab")
        assert editor.text == "/model first line\nsee @zz_notes_for_test.md "
