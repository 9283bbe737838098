"""Ctrl+G: edit the prompt in an external editor, as pi's `app.editor.external` does.

The editor is pi's: its `externalEditor` setting, else `$VISUAL`, else `$EDITOR`, else
`nano`. The command is split like a shell would split it (quotes work) but never run by
a shell; the text goes to `prompt.md` in a private temporary directory that is removed
afterwards. As in pi, one trailing newline (which most editors add) is dropped, and a
failed or non-zero exit leaves the prompt unchanged.

An editor that cannot be found is reported before pideck hands over the terminal, and
whatever the editor does, pideck takes the terminal back: Textual's `App.suspend` resumes
only when its block ends without an exception, so nothing raises inside it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from app.notifier import Notifier
from app.terminal.say import say
from widgets.prompt.editor import PromptEditor

FALLBACK = "nano"  # pi's editor when neither its setting nor the environment names one
SET_ONE = ("Set $VISUAL or $EDITOR to your editor (e.g. export EDITOR=vim), "
           'or "externalEditor" in pi\'s settings.json')


class EditorFailed(Exception):
    """The external editor could not be used; the message says why, for the user."""


def editor_command(env: Mapping[str, str], setting: str | None = None) -> list[str]:
    """The editor's argv, its program found on `env`'s PATH (EditorFailed says what to set)."""
    named = next((c.strip() for c in (setting, env.get("VISUAL"), env.get("EDITOR")) if c and c.strip()), None)
    command = named or FALLBACK
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise EditorFailed(f"Cannot read the editor command {command!r}: {exc}. {SET_ONE}.") from exc
    if not argv:
        raise EditorFailed(f"The editor command {command!r} is empty. {SET_ONE}.")
    if shutil.which(argv[0], path=env.get("PATH")) is None:
        if named is None:
            raise EditorFailed(f"No external editor ({FALLBACK}, the default, is not installed). {SET_ONE}.")
        raise EditorFailed(f"Cannot find the editor {argv[0]!r}. {SET_ONE}.")
    return argv


def run_editor(text: str, argv: list[str], env: Mapping[str, str]) -> str:
    """Let the user edit `text` in the editor `argv` (it uses this terminal); the edited text."""
    with tempfile.TemporaryDirectory(prefix="pideck-editor-") as folder:
        path = Path(folder) / "prompt.md"
        path.write_text(text, encoding="utf-8")
        try:
            result = subprocess.run([*argv, str(path)], env=dict(env), check=False)
        except OSError as exc:
            raise EditorFailed(f"Cannot run {argv[0]}: {exc.strerror or exc}. {SET_ONE}.") from exc
        if result.returncode != 0:
            raise EditorFailed(f"{argv[0]} exited with status {result.returncode}; the prompt is unchanged")
        try:
            edited = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise EditorFailed(f"Cannot read the edited prompt back: {exc}") from exc
    return edited.removesuffix("\n")


def edit_prompt(app: App[Any], editor: PromptEditor, env: Mapping[str, str], setting: str | None = None) -> None:
    """Suspend the app, run the editor on the prompt, load the result into the editor."""
    tell = Notifier(app.notify)
    try:
        argv = editor_command(env, setting)
    except EditorFailed as exc:
        tell.fail(str(exc), title="external editor")
        return
    outcome: str | EditorFailed
    try:
        with app.suspend():
            say(f"Editing the prompt in {shlex.join(argv)}; pideck comes back when it exits.", file=sys.__stdout__,
                flush=True)
            try:
                outcome = run_editor(editor.expanded_text, argv, env)  # large pastes in full, as in pi
            except EditorFailed as exc:
                outcome = exc
            except Exception as exc:  # noqa: BLE001 - anything else: the terminal must still come back
                outcome = EditorFailed(f"The external editor failed: {exc}")
    except SuspendNotSupported:
        tell.fail("This terminal cannot hand the screen to an external editor.")
        return
    if isinstance(outcome, EditorFailed):
        tell.fail(str(outcome), title="external editor")
        return
    editor.load(outcome)
    editor.focus()
