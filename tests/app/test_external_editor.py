"""Ctrl+G: the prompt in $VISUAL / $EDITOR. The runner on its own, then through the app
(fake pi child); `App.suspend` is not supported by the headless driver, so the app test
replaces it with a context manager that records it was used."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pi_harness import Fake, type_text, wait_until

from app.external_editor import EditorFailed, run_editor
from app.pideck_app import PideckApp
from widgets.prompt_editor import PromptEditor


def editor_script(folder: Path, body: str, name: str = "edit.sh") -> Path:
    """A tiny editor: a shell script run with the file to edit as its last argument."""
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def test_run_editor_reads_back_the_edit(tmp_path: Path) -> None:
    script = editor_script(tmp_path, 'for f; do :; done\nprintf "%s\\nedited by %s\\n" "$(cat "$f")" "$1" > "$f"\n')
    assert run_editor("hello", {"EDITOR": f"{script} --flag"}) == "hello\nedited by --flag"  # one newline dropped
    # $VISUAL wins over $EDITOR; a quoted path with a space works (split like a shell, no shell)
    spaced = editor_script(tmp_path, 'for f; do :; done\nprintf "visual" > "$f"\n', name="my editor.sh")
    assert run_editor("x", {"VISUAL": f"'{spaced}'", "EDITOR": "false"}) == "visual"


def test_run_editor_failures_say_why(tmp_path: Path) -> None:
    with pytest.raises(EditorFailed, match=r"Set \$VISUAL or \$EDITOR"):
        run_editor("x", {"VISUAL": "  ", "EDITOR": ""})
    with pytest.raises(EditorFailed, match="cannot read the editor command"):
        run_editor("x", {"EDITOR": "'unbalanced"})
    with pytest.raises(EditorFailed, match="cannot run /no/such/editor"):
        run_editor("x", {"EDITOR": "/no/such/editor"})
    failing = editor_script(tmp_path, "exit 3\n")
    with pytest.raises(EditorFailed, match="exited with status 3; the prompt is unchanged"):
        run_editor("x", {"EDITOR": str(failing)})
    # split like a shell, never run by one: the `;` and `touch` are the editor's arguments
    witness = tmp_path / "witness"
    quiet = editor_script(tmp_path, 'for f; do :; done\nprintf "ok" > "$f"\n', name="quiet.sh")
    assert run_editor("x", {"EDITOR": f"{quiet} ; touch {witness}"}) == "ok"
    assert not witness.exists()


def make_app(fake: Fake, env: dict[str, str]) -> tuple[PideckApp, list[bool]]:
    app = fake.app(env)
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:
        suspended.append(True)
        yield

    app.suspend = suspend  # type: ignore[method-assign]
    return app, suspended


async def test_ctrl_g_edits_the_prompt_in_the_external_editor(tmp_path: Path) -> None:
    script = editor_script(tmp_path, 'for f; do :; done\nsed -i "s/draft/final text/" "$f"\n')
    fake = Fake(tmp_path)
    app, suspended = make_app(fake, {"VISUAL": "", "EDITOR": str(script)})
    async with fake.run(app) as pilot:
        await type_text(pilot, "a draft\nwith two lines")
        await pilot.press("ctrl+g")
        editor = app.query_one(PromptEditor)
        await wait_until(pilot, lambda: editor.text == "a final text\nwith two lines", what="edited prompt")
        assert suspended == [True]
        assert editor.has_focus


async def test_ctrl_g_unset_failed_and_unsupported_leave_the_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    app, suspended = make_app(fake, {"VISUAL": "", "EDITOR": ""})
    async with fake.run(app) as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: app._notifications, what="notice")
        assert "Set $VISUAL or $EDITOR" in str(list(app._notifications)[-1].message)
        app.config.env["EDITOR"] = str(editor_script(tmp_path, "exit 1\n"))
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: len(app._notifications) == 2, what="second notice")
        assert "exited with status 1; the prompt is unchanged" in str(list(app._notifications)[-1].message)
        assert app.query_one(PromptEditor).text == "keep me"
        assert len(suspended) == 2
        del app.suspend  # back to Textual's: the headless driver cannot hand over the terminal
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: len(app._notifications) == 3, what="third notice")
        assert "cannot hand the screen" in str(list(app._notifications)[-1].message)
        assert app.query_one(PromptEditor).text == "keep me"
