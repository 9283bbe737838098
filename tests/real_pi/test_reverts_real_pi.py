"""Reverting from the Changes view (/diff `r`, `R`, `u`) on real pi with pideck's checkpoint
extension, in a scratch git project of the test's own: one hunk of a two-hunk edit, a whole
file pi wrote over, a file pi created, a file the user edited after pi (refused, its three
versions shown), the undo of a revert, and the note to pi left in the editor. The files'
bytes are compared, not the screen."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PiHarness, burst, question, quiesce, send, started, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply, ToolCallSpec
from protocol.state.reverts import file_patch
from widgets.screens.changes_screen import ChangesScreen, DiffView
from widgets.screens.revert_dialog import RevertDialog

pytestmark = pytest.mark.pi

APP = "".join(f"value_{n} = {n}\n" for n in range(1, 31))
CONFIG = "debug = false\r\nname = 'demo'\r\n"  # CRLF: kept byte for byte
PI_APP = APP.replace("value_2 = 2\n", "value_2 = 'two'\n").replace("value_27 = 27\n", "value_27 = 'twenty-seven'\n")


def replies() -> list[Reply]:
    return [
        Reply(tool_calls=(ToolCallSpec("edit", {"path": "app.py", "edits": [
            {"oldText": "value_2 = 2\n", "newText": "value_2 = 'two'\n"},
            {"oldText": "value_27 = 27\n", "newText": "value_27 = 'twenty-seven'\n"},
        ]}, id="call_edit_app"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": "config.txt", "content": "debug = true\n"}, id="call_write_config"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": "new.txt", "content": "made by pi\n"}, id="call_write_new"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": "notes.md", "content": "# pi's notes\n"}, id="call_write_notes"),)),
        Reply(text="Changed app.py, config.txt, new.txt and notes.md."),
    ]


def scratch_project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "app.py").write_text(APP)
    (folder / "config.txt").write_bytes(CONFIG.encode())
    (folder / "notes.md").write_text("# notes\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"]):
        subprocess.run(["git", *command], cwd=folder, check=True)
    return folder


async def open_changes(pilot: Any) -> ChangesScreen:
    await send(pilot, "/diff")
    screen = await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen) and pilot.app.screen,
                              what="the Changes view")
    await wait_until(pilot, lambda: (view := screen.query(DiffView)) and view.first().size.height > 0, what="the diff")
    return screen


def go_to(screen: ChangesScreen, path: str, text: str | None = None) -> None:
    """The diff's cursor on `path`'s first row holding `text` (its title row when None)."""
    view = screen.query_one(DiffView)
    file = next(index for index, f in enumerate(screen.files) if f.path == path)
    row = next(index for index, row in enumerate(view.rows)
               if row.file == file and (row.kind == "file" if text is None else text in row.text))
    view.move_to(row)


async def answer(pilot: Any, key: str) -> RevertDialog:
    dialog = await question(pilot)
    await pilot.press(key)
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, RevertDialog), what="the question answered")
    await wait_until(pilot, lambda: not getattr(pilot.app.screen, "busy", False), what="the revert written")
    await pilot.pause()  # the view shown again (its file list's highlight posts a message)
    return dialog


def toasts(app: PideckApp) -> str:
    return "\n".join(note.message for note in app.toasts.center.entries)


async def test_revert_a_hunk_a_file_a_created_file_and_undo(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = scratch_project(tmp_path / "project")
    pi_harness.reset_model()
    pi_harness.model.queue(*replies())
    config = pi_harness.launch_config(env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints")})
    app = PideckApp(replace(config, cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await send(pilot, "Change some files.")
        await wait_until(pilot, lambda: "Changed app.py" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the run")
        assert (project / "app.py").read_text() == PI_APP
        (project / "notes.md").write_text("# notes the user wrote after pi\n")  # changed since pi left it

        screen = await open_changes(pilot)
        # one patch per file, from before the session to now, relative to pi's cwd
        reverts = screen.reverts
        assert reverts is not None
        config_file = next(f for f in screen.files if f.path == "config.txt")
        assert reverts.patch(config_file) == (file_patch("config.txt", CONFIG.encode(), b"debug = true\n"), "")

        # r on the second hunk of the two-hunk edit: only that one goes back
        go_to(screen, "app.py", "twenty-seven")
        await pilot.press("r")
        dialog = await answer(pilot, "y")
        assert "-value_27 = 'twenty-seven'" in dialog.plan.lines and dialog.plan.conflict is None
        assert (project / "app.py").read_text() == APP.replace("value_2 = 2\n", "value_2 = 'two'\n")
        assert screen.files[[f.path for f in screen.files].index("app.py")].changes[-1].tool == "revert"

        # u undoes it
        await pilot.press("u")
        await wait_until(pilot, lambda: not screen.busy and (project / "app.py").read_text() == PI_APP, what="the undo")
        await pilot.pause()

        # R on a file pi wrote over: its bytes as they were (CRLF and all)
        go_to(screen, "config.txt")
        await pilot.press("R")
        await answer(pilot, "y")
        assert (project / "config.txt").read_bytes() == CONFIG.encode()

        # R on a file pi created: removed
        go_to(screen, "new.txt")
        await pilot.press("R")
        await answer(pilot, "y")
        assert not (project / "new.txt").exists()

        # R on a file the user changed after pi: the three versions; a path typed on as they
        # open answers nothing with its y, and n leaves the file
        go_to(screen, "notes.md")
        await pilot.press("R")
        opened = await wait_until(pilot, lambda: isinstance(app.screen, RevertDialog) and app.screen, what="the question")
        burst(app, *"/tmp/barp_3yl3sw/")
        await wait_until(pilot, lambda: any(line.display for line in opened.query("#revert-ignored")), what="the y ignored")
        dialog = await answer(pilot, "n")
        assert dialog is opened
        assert dialog.plan.conflict == (b"# notes\n", b"# pi's notes\n", b"# notes the user wrote after pi\n")
        assert (project / "notes.md").read_text() == "# notes the user wrote after pi\n"

        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        note = app.desk.current.main.editor.text
        assert note.startswith("I reverted these changes:\n")
        assert "- config.txt: the whole file, back to what it held before this session" in note
        assert "- new.txt: removed (the file this session created)" in note
        assert "app.py" not in note  # its revert was undone
        assert app.desk.current.pi.model.running is False and "Copied" not in toasts(app)
        await quiesce(pilot)
    assert subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True,
                          check=True).stdout.split("\n") == [" M app.py", " M notes.md", ""]


async def test_a_bash_sed_is_shown_and_reverted(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = scratch_project(tmp_path / "project")
    (project / "ignored.log").write_text("old log\n")
    (project / ".gitignore").write_text("*.log\n")
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(tool_calls=(ToolCallSpec("bash", {"command": "sed -i 's/^value_5 = 5$/value_5 = five/' app.py && "
                                                           "echo made > made.txt && rm notes.md && echo new >> ignored.log"},
                                       id="call_sed"),)),
        Reply(text="Ran sed."),
    )
    app = PideckApp(replace(pi_harness.launch_config(), cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await send(pilot, "Run sed.")
        await wait_until(pilot, lambda: "Ran sed." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the run")
        assert "value_5 = five\n" in (project / "app.py").read_text()
        screen = await open_changes(pilot)
        assert sorted(f.path for f in screen.files) == ["app.py", "made.txt", "notes.md"]  # not the ignored log
        assert not screen.query_one("#changes-note").display
        go_to(screen, "app.py", "value_5 = five")
        await pilot.press("r")
        await answer(pilot, "y")
        assert (project / "app.py").read_text() == APP
        go_to(screen, "notes.md")
        await pilot.press("R")
        await answer(pilot, "y")
        assert (project / "notes.md").read_text() == "# notes\n"  # removed by bash, back
        go_to(screen, "made.txt")
        await pilot.press("R")
        await answer(pilot, "y")
        assert not (project / "made.txt").exists()
        await pilot.press("escape")
        await quiesce(pilot)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True, check=True)
    assert status.stdout == "?? .gitignore\n"  # the repository itself was never written by the snapshots


async def test_bash_outside_a_git_work_tree_says_why_its_changes_are_not_shown(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = tmp_path / "plain"
    project.mkdir()
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(tool_calls=(ToolCallSpec("bash", {"command": "echo x > x.txt"}, id="call_x"),)),
                           Reply(text="Wrote x."))
    app = PideckApp(replace(pi_harness.launch_config(), cwd=project))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await send(pilot, "Write x.")
        await wait_until(pilot, lambda: "Wrote x." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the run")
        await send(pilot, "/diff")
        screen = await wait_until(pilot, lambda: isinstance(app.screen, ChangesScreen) and app.screen, what="the view")
        note = str(screen.query_one("#changes-note").render())
        assert note == "1 bash command not shown: not in a git work tree: bash changes are tracked in git work trees only."
        await pilot.press("escape")
        await quiesce(pilot)


async def test_bash_changes_in_a_project_reached_through_a_symlink(pi_harness: PiHarness, tmp_path: Path) -> None:
    real = scratch_project(tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real)
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(tool_calls=(ToolCallSpec("bash", {"command": "sed -i 's/^value_9 = 9$/value_9 = nine/' app.py"},
                                       id="call_sed_link"),)),
        Reply(text="Ran sed."),
    )
    app = PideckApp(replace(pi_harness.launch_config(), cwd=link))
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await send(pilot, "Run sed.")
        await wait_until(pilot, lambda: "Ran sed." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the run")
        screen = await open_changes(pilot)
        assert [f.path for f in screen.files] == ["app.py"]  # as pi's cwd spells it, not the resolved path
        go_to(screen, "app.py")
        await pilot.press("R")
        await answer(pilot, "y")
        assert (real / "app.py").read_text() == APP
        await pilot.press("escape")
        await quiesce(pilot)
