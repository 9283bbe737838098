"""`/rewind` on real pi with pideck's checkpoints, across three prompts that edit and write
files in a scratch git project: the picker's count of files per message, the fork with the
message back in the editor, the files' bytes as they were before it, and `/rewind undo`."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PiHarness, question, quiesce, send, started, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply, ToolCallSpec
from widgets.screens.rewind_picker import RewindPicker

pytestmark = pytest.mark.pi

APP = "".join(f"value_{n} = {n}\n" for n in range(1, 21))
AFTER_FIRST = APP.replace("value_3 = 3\n", "value_3 = 'three'\n")
AFTER_THIRD = AFTER_FIRST.replace("value_18 = 18\n", "value_18 = 'eighteen'\n")


def edit(call_id: str, old: str, new: str) -> Reply:
    return Reply(tool_calls=(ToolCallSpec("edit", {"path": "app.py", "edits": [{"oldText": old, "newText": new}]},
                                          id=call_id),))


def write(call_id: str, path: str, content: str) -> Reply:
    return Reply(tool_calls=(ToolCallSpec("write", {"path": path, "content": content}, id=call_id),))


def replies() -> list[Reply]:
    return [
        edit("r_edit_1", "value_3 = 3\n", "value_3 = 'three'\n"), write("r_write_a", "a.txt", "first\n"), Reply(text="First done."),
        write("r_write_config", "config.txt", "debug = true\n"), Reply(text="Second done."),
        edit("r_edit_3", "value_18 = 18\n", "value_18 = 'eighteen'\n"), Reply(text="Third done."),
    ]


async def run_prompt(pilot: Any, app: PideckApp, text: str, done: str) -> None:
    await send(pilot, text)
    await wait_until(pilot, lambda: done in transcript_text(app) and not app.desk.current.pi.model.running, timeout=60, what=done)


async def test_rewind_across_three_prompts_and_undo(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(APP)
    (project / "config.txt").write_text("debug = false\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    pi_harness.reset_model()
    pi_harness.model.queue(*replies())
    config = pi_harness.launch_config(session_dir=tmp_path / "sessions",
                                      env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints")})
    app = PideckApp(replace(config, cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "First: edit app.py, write a.txt.", "First done.")
        await run_prompt(pilot, app, "Second: write config.txt.", "Second done.")
        await run_prompt(pilot, app, "Third: edit app.py again.", "Third done.")
        assert (project / "app.py").read_text() == AFTER_THIRD
        first_session = app.desk.current.pi.model.state.session_file

        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker")
        assert [(c.text, c.files, c.inexact) for c in picker.choices] == [
            ("First: edit app.py, write a.txt.", 3, 0), ("Second: write config.txt.", 2, 0),
            ("Third: edit app.py again.", 1, 0)]
        await pilot.press("up", "enter")  # the last is highlighted first: the second message
        dialog = await question(pilot)
        assert "@@ config.txt @@" in dialog.plan.lines and "@@ app.py @@" in dialog.plan.lines
        await pilot.press("y")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_file != first_session
                         and "Second: write config.txt." in app.desk.current.main.editor.text, timeout=30, what="the fork")
        assert (project / "app.py").read_text() == AFTER_FIRST
        assert (project / "config.txt").read_text() == "debug = false\n"
        assert (project / "a.txt").read_text() == "first\n"  # written before the message: kept

        app.desk.current.main.editor.load("")
        await send(pilot, "/rewind undo")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_file == first_session, timeout=30, what="back")
        assert (project / "app.py").read_text() == AFTER_THIRD
        assert (project / "config.txt").read_text() == "debug = true\n"
        await send(pilot, "/rewind undo")
        await wait_until(pilot, lambda: any("no rewind to undo" in n.message for n in app.toasts.center.entries),
                         what="once only")
        await quiesce(pilot)


async def test_rewind_puts_back_what_a_bash_sed_changed(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(APP)
    (project / "keep.txt").write_text("kept\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    pi_harness.reset_model()
    pi_harness.model.queue(
        edit("b_edit", "value_3 = 3\n", "value_3 = 'three'\n"), Reply(text="Edited."),
        Reply(tool_calls=(ToolCallSpec("bash", {"command": "sed -i 's/^value_7 = 7$/value_7 = seven/' app.py && "
                                                           "rm keep.txt && echo generated > gen.txt"}, id="b_sed"),)),
        Reply(text="Ran sed."),
    )
    config = pi_harness.launch_config(session_dir=tmp_path / "sessions",
                                      env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints")})
    app = PideckApp(replace(config, cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "Edit app.py.", "Edited.")
        await run_prompt(pilot, app, "Run sed.", "Ran sed.")
        assert "value_7 = seven\n" in (project / "app.py").read_text() and not (project / "keep.txt").exists()

        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker")
        assert [(c.text, c.files, c.inexact) for c in picker.choices] == [("Edit app.py.", 3, 0), ("Run sed.", 3, 0)]
        await pilot.press("enter")  # the last message: before the sed
        await question(pilot)
        await pilot.press("y")
        await wait_until(pilot, lambda: "Run sed." in app.desk.current.main.editor.text, timeout=30, what="the fork")
        assert (project / "app.py").read_text() == AFTER_FIRST  # the edit before the message stays
        assert (project / "keep.txt").read_text() == "kept\n"
        assert not (project / "gen.txt").exists()
        app.desk.current.main.editor.load("")
        await send(pilot, "/rewind undo")
        await wait_until(pilot, lambda: (project / "gen.txt").exists(), timeout=30, what="the undo")
        assert "value_7 = seven\n" in (project / "app.py").read_text() and not (project / "keep.txt").exists()
        await quiesce(pilot)


async def test_a_bang_commands_changes_show_and_are_put_back(pi_harness: PiHarness, tmp_path: Path) -> None:
    """A `!command` of the user's in a git work tree: F9 shows what it changed, `R` reverts it,
    and /rewind counts and puts back its files as it does pi's."""
    from tests.real_pi.test_reverts_real_pi import answer, go_to, open_changes
    from widgets.screens.changes_screen import ChangesScreen

    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(APP)
    (project / "notes.txt").write_text("notes\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    pi_harness.reset_model()
    pi_harness.model.queue(edit("b_edit", "value_3 = 3\n", "value_3 = 'three'\n"), Reply(text="Edited."))
    config = pi_harness.launch_config(session_dir=tmp_path / "sessions",
                                      env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints")})
    app = PideckApp(replace(config, cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "Edit app.py.", "Edited.")
        await send(pilot, "!sed -i 's/^value_9 = 9$/value_9 = nine/' app.py && echo more >> notes.txt && echo new > made.txt")
        await wait_until(pilot, lambda: (project / "made.txt").exists() and not any(
            worker.group == "bash" for worker in app.workers), timeout=30, what="the command and its snapshot")
        screen = await open_changes(pilot)
        assert sorted(f.path for f in screen.files) == ["app.py", "made.txt", "notes.txt"]
        go_to(screen, "notes.txt")
        await pilot.press("R")
        await answer(pilot, "y")
        assert (project / "notes.txt").read_text() == "notes\n"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        assert app.desk.current.main.editor.text.startswith("I reverted these changes:\n- notes.txt"), "not pi's to be told of as its own"
        app.desk.current.main.editor.load("")

        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker")
        assert [(c.text, c.files) for c in picker.choices] == [("Edit app.py.", 2)]  # app.py and made.txt (notes.txt is back)
        await pilot.press("enter")
        await question(pilot)
        await pilot.press("y")
        await wait_until(pilot, lambda: "Edit app.py." in app.desk.current.main.editor.text, timeout=30, what="the fork")
        assert (project / "app.py").read_text() == APP and not (project / "made.txt").exists()
        await quiesce(pilot)
