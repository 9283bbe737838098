"""Ctrl+G: the prompt in pi's external editor (`externalEditor`, $VISUAL, $EDITOR, nano).
The runner on its own, then through the app (fake pi child); `App.suspend` is not
supported by the headless driver, so the app test replaces it with a context manager that,
like Textual's, takes the terminal back only when its block ends without an exception.
Then the installed pideck in tmux, as a user sees it."""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck, type_text, wait_until

from app.external_editor import EditorFailed, editor_command, run_editor
from app.pideck_app import PideckApp
from widgets.prompt.editor import PromptEditor


def editor_script(folder: Path, body: str, name: str = "edit.sh") -> Path:
    """A tiny editor: a shell script run with the file to edit as its last argument."""
    script = folder / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


def edit(text: str, env: dict[str, str], setting: str | None = None) -> str:
    return run_editor(text, editor_command(env, setting), env)


def test_run_editor_reads_back_the_edit(tmp_path: Path) -> None:
    script = editor_script(tmp_path, 'for f; do :; done\nprintf "%s\\nedited by %s\\n" "$(cat "$f")" "$1" > "$f"\n')
    assert edit("hello", {"EDITOR": f"{script} --flag"}) == "hello\nedited by --flag"  # one newline dropped
    # $VISUAL wins over $EDITOR; a quoted path with a space works (split like a shell, no shell)
    spaced = editor_script(tmp_path, 'for f; do :; done\nprintf "visual" > "$f"\n', name="my editor.sh")
    assert edit("x", {"VISUAL": f"'{spaced}'", "EDITOR": "false"}) == "visual"
    # pi's externalEditor setting wins over both
    assert edit("x", {"VISUAL": "false", "EDITOR": "false"}, setting=f"'{spaced}'") == "visual"


def test_the_editor_is_pis_and_one_that_cannot_run_says_what_to_set(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    editor_script(bin_dir, "exit 0\n", name="nano")
    assert editor_command({"VISUAL": "  ", "EDITOR": "", "PATH": str(bin_dir)}) == ["nano"]  # pi's default
    empty = tmp_path / "empty"
    empty.mkdir()
    for env, said in (
        ({"VISUAL": "  ", "EDITOR": "", "PATH": str(empty)}, "No external editor (nano, the default, is not installed). Set $VISUAL or $EDITOR"),
        ({"EDITOR": "'unbalanced"}, "Cannot read the editor command"),
        ({"EDITOR": "/no/such/editor"}, "Cannot find the editor '/no/such/editor'. Set $VISUAL or $EDITOR"),
        ({"EDITOR": "no-such-editor-here", "PATH": str(empty)}, "Cannot find the editor 'no-such-editor-here'"),
    ):
        with pytest.raises(EditorFailed, match=re.escape(said)):
            editor_command(env)
    failing = editor_script(tmp_path, "exit 3\n")
    with pytest.raises(EditorFailed, match="exited with status 3; the prompt is unchanged"):
        edit("x", {"EDITOR": str(failing)})
    # split like a shell, never run by one: the `;` and `touch` are the editor's arguments
    witness = tmp_path / "witness"
    quiet = editor_script(tmp_path, 'for f; do :; done\nprintf "ok" > "$f"\n', name="quiet.sh")
    assert edit("x", {"EDITOR": f"{quiet} ; touch {witness}"}) == "ok"
    assert not witness.exists()


def make_app(fake: Fake, env: dict[str, str]) -> tuple[PideckApp, list[bool]]:
    """The app with a recording `suspend`: True for each hand-over whose terminal came back."""
    app = fake.app(env)
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:
        suspended.append(False)
        yield  # as Textual's: an exception from the block skips the resume
        suspended[-1] = True

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
    app, suspended = make_app(fake, {"VISUAL": "", "EDITOR": "/no/such/editor"})
    async with fake.run(app) as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: app._notifications, what="notice")
        assert "Set $VISUAL or $EDITOR" in str(list(app._notifications)[-1].message)
        assert suspended == [], "an editor that cannot be found keeps the screen"
        app.config.env["EDITOR"] = str(editor_script(tmp_path, "exit 1\n"))
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: len(app._notifications) == 2, what="second notice")
        assert "exited with status 1; the prompt is unchanged" in str(list(app._notifications)[-1].message)
        assert app.query_one(PromptEditor).text == "keep me"
        assert suspended == [True], "the terminal came back after the editor failed"
        del app.suspend  # back to Textual's: the headless driver cannot hand over the terminal
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: len(app._notifications) == 3, what="third notice")
        assert "cannot hand the screen" in str(list(app._notifications)[-1].message)
        assert app.query_one(PromptEditor).text == "keep me"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("editor", "said"), [("false", "false exited with status 1"),
                                              ("no-such-editor", "Cannot find the editor")])
def test_ctrl_g_with_an_editor_that_fails_comes_back_at_once_in_tmux(tmp_path: Path, editor: str, said: str) -> None:
    with TmuxPideck(Fake(tmp_path), wrapper=("env", "-u", "VISUAL", f"EDITOR={editor}")) as term:
        term.wait_started()
        term.keys("-l", "my draft")
        term.wait(lambda: "my draft" in term.screen(), "the draft typed")
        term.keys("C-g")
        term.wait(lambda: said in term.screen(), "the toast")
        term.keys("-l", " goes on")
        term.wait(lambda: "my draft goes on" in term.screen(), "typing in the prompt again")
        assert "● ready" in term.screen()
