"""Ctrl+G: edit the prompt in `$VISUAL` or `$EDITOR`, as pi's `app.editor.external` does.

The command is split like a shell would split it (quotes work) but never run by a shell;
the text goes to `prompt.md` in a private temporary directory that is removed afterwards.
As in pi, one trailing newline (which most editors add) is dropped, and a failed or
non-zero exit leaves the prompt unchanged.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from app.notifier import Notifier
from widgets.prompt_editor import PromptEditor


class EditorFailed(Exception):
    """The external editor could not be used; the message says why, for the user."""


def editor_command(env: Mapping[str, str]) -> list[str]:
    command = (env.get("VISUAL") or "").strip() or (env.get("EDITOR") or "").strip()
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise EditorFailed(f"cannot read the editor command {command!r}: {exc}") from exc
    if not argv:
        raise EditorFailed("Set $VISUAL or $EDITOR to the editor to use, e.g. export EDITOR=nano")
    return argv


def run_editor(text: str, env: Mapping[str, str]) -> str:
    """Let the user edit `text` in their editor (it uses this terminal); the edited text."""
    argv = editor_command(env)
    with tempfile.TemporaryDirectory(prefix="pideck-editor-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            result = subprocess.run([*argv, str(path)], env=dict(env), check=False)
        except OSError as exc:
            raise EditorFailed(f"cannot run {argv[0]}: {exc.strerror or exc}") from exc
        if result.returncode != 0:
            raise EditorFailed(f"{argv[0]} exited with status {result.returncode}; the prompt is unchanged")
        try:
            edited = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise EditorFailed(f"cannot read the edited prompt back: {exc}") from exc
    return edited.removesuffix("\n")


def edit_prompt(app: App[Any], env: Mapping[str, str]) -> None:
    """Suspend the app, run the editor on the prompt, load the result into the editor."""
    editor = app.query_one(PromptEditor)
    try:
        with app.suspend():
            edited = run_editor(editor.text, env)
    except SuspendNotSupported:
        Notifier(app.notify).fail("This terminal cannot hand the screen to an external editor.")
        return
    except EditorFailed as exc:
        Notifier(app.notify).fail(str(exc), title="external editor")
        return
    editor.load(edited)
    editor.focus()
