"""Reverts and /rewind with pi on another host (`--pi 'ssh ... HOST pi'`), through the test
ssh server: the checkpoint extension is put on the host and loaded there, and the Changes
view's r/R/u and /rewind put the host's files back (the "host" is this machine, in a
project folder pideck's own `--cwd` is not, with names a shell would misread). The files'
bytes are compared, not the screen."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SIZE, PiHarness, question, quiesce, send, transcript_text, wait_until
from tests.real_pi.test_reverts_real_pi import answer, go_to, open_changes
from tests.remote.test_remote_pi import launch

from app.pi.checkpoint_launch import checkpoint_root
from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply, ToolCallSpec
from widgets.screens.rewind_picker import RewindPicker

pytestmark = pytest.mark.pi

APP = "".join(f"value_{n} = {n}\n" for n in range(1, 31))
PI_APP = APP.replace("value_2 = 2\n", "value_2 = 'two'\n").replace("value_27 = 27\n", "value_27 = 'twenty-seven'\n")
CODE = "app 'main' $(x).py"  # names the host's shell must not read
CONFIG = "-config\nfile.txt"
NOTES = "notes; rm -rf ~.md"


def pi_in(ssh: list[str], harness: PiHarness, project: Path) -> str:
    """`--pi`: ssh, then the harness's pi run in `project` over there."""
    env = ["env", f"PI_CODING_AGENT_DIR={harness.agent_dir}", "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1"]
    return shlex.join([*ssh, f"cd {shlex.quote(str(project))} && exec {shlex.join([*env, *harness.runtime.argv])}"])


def scratch_project(folder: Path) -> Path:
    folder.mkdir()
    (folder / CODE).write_text(APP)
    (folder / CONFIG).write_bytes(b"debug = false\r\n")
    (folder / NOTES).write_text("# notes\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"]):
        subprocess.run(["git", *command], cwd=folder, check=True)
    return folder


async def started_over_ssh(pilot: Any, app: PideckApp) -> None:
    await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=60,
                     what="pi started over ssh")


async def run_prompt(pilot: Any, app: PideckApp, text: str, done: str) -> None:
    await send(pilot, text)
    await wait_until(pilot, lambda: done in transcript_text(app) and not app.desk.current.pi.model.running, timeout=60, what=done)


async def test_revert_a_hunk_and_whole_files_on_the_host(sshd: Any, remote_pi: PiHarness, tmp_path: Path) -> None:
    project = scratch_project(tmp_path / "the 'project' $HOME")
    here = tmp_path / "here"
    here.mkdir()
    remote_pi.reset_model()
    remote_pi.model.queue(
        Reply(tool_calls=(ToolCallSpec("edit", {"path": CODE, "edits": [
            {"oldText": "value_2 = 2\n", "newText": "value_2 = 'two'\n"},
            {"oldText": "value_27 = 27\n", "newText": "value_27 = 'twenty-seven'\n"},
        ]}, id="call_edit_code"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": CONFIG, "content": "debug = true\n"}, id="call_write_config"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": NOTES, "content": "# pi's notes\n"}, id="call_write_notes"),)),
        Reply(tool_calls=(ToolCallSpec("bash", {"command": "sed -i 's/^value_9 = 9$/value_9 = nine/' *.py && echo made > 'made by bash.txt'"},
                                       id="call_bash_sed"),)),
        Reply(text="Changed the files."),
    )
    stale = sshd.state / "pideck" / "checkpoints" / "a-session-since-deleted"
    (stale / "blobs").mkdir(parents=True)
    (stale / "session.json").write_text(json.dumps({"sessionFile": str(tmp_path / "deleted.jsonl"), "cwd": "/"}))
    app = PideckApp(launch(here, pi_in(sshd.ssh(), remote_pi, project), *pi_model_args(), "--no-session"))
    assert checkpoint_root(app.config) == sshd.state / "pideck" / "checkpoints"
    async with app.run_test(size=SIZE) as pilot:
        await started_over_ssh(pilot, app)
        await wait_until(pilot, lambda: not stale.exists(), what="the host's stale checkpoints removed there")
        await run_prompt(pilot, app, "Change some files.", "Changed the files.")
        assert (project / CODE).read_text() == PI_APP.replace("value_9 = 9\n", "value_9 = nine\n")
        (project / NOTES).write_text("# notes the user wrote after pi\n")  # changed since pi left it

        screen = await open_changes(pilot)
        assert sorted(f.path for f in screen.files) == sorted([CODE, CONFIG, NOTES, "made by bash.txt"])
        assert not screen.query_one("#changes-note").display  # the bash command's changes are known

        go_to(screen, CODE, "twenty-seven")  # one hunk of the two-hunk edit
        await pilot.press("r")
        dialog = await answer(pilot, "y")
        assert "-value_27 = 'twenty-seven'" in dialog.plan.lines and dialog.plan.conflict is None
        expected = APP.replace("value_2 = 2\n", "value_2 = 'two'\n").replace("value_9 = 9\n", "value_9 = nine\n")
        assert (project / CODE).read_text() == expected
        await pilot.press("u")
        await wait_until(pilot, lambda: not screen.busy and "twenty-seven" in (project / CODE).read_text(), what="the undo")
        await pilot.pause()

        go_to(screen, CODE, "value_9 = nine")  # bash's sed, one hunk
        await pilot.press("r")
        await answer(pilot, "y")
        assert (project / CODE).read_text() == PI_APP

        go_to(screen, CONFIG)  # a whole file pi wrote over: its bytes as they were, CRLF and all
        await pilot.press("R")
        await answer(pilot, "y")
        assert (project / CONFIG).read_bytes() == b"debug = false\r\n"

        go_to(screen, "made by bash.txt")  # a file bash made: removed
        await pilot.press("R")
        await answer(pilot, "y")
        assert not (project / "made by bash.txt").exists()

        go_to(screen, NOTES)  # changed since pi: the three versions, and n leaves it
        await pilot.press("R")
        dialog = await answer(pilot, "n")
        assert dialog.plan.conflict == (b"# notes\n", b"# pi's notes\n", b"# notes the user wrote after pi\n")
        assert (project / NOTES).read_text() == "# notes the user wrote after pi\n"
        await pilot.press("escape")
        await quiesce(pilot)
    assert sorted(p.name for p in project.iterdir()) == sorted([".git", CODE, CONFIG, NOTES])  # nothing stray
    assert not (here / CODE).exists()


async def test_rewind_on_the_host_across_prompts_with_an_edit_a_write_and_bash(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path
) -> None:
    project = scratch_project(tmp_path / "rewind me")
    here = tmp_path / "here"
    here.mkdir()
    remote_pi.reset_model()
    remote_pi.model.queue(
        Reply(tool_calls=(ToolCallSpec("edit", {"path": CODE, "edits": [
            {"oldText": "value_3 = 3\n", "newText": "value_3 = 'three'\n"}]}, id="rw_edit"),)),
        Reply(text="First done."),
        Reply(tool_calls=(ToolCallSpec("write", {"path": CONFIG, "content": "debug = true\n"}, id="rw_write"),)),
        Reply(tool_calls=(ToolCallSpec("bash", {"command": f"sed -i 's/^# notes$/# sedded/' {shlex.quote(NOTES)}"},
                                       id="rw_bash"),)),
        Reply(text="Second done."),
    )
    first = APP.replace("value_3 = 3\n", "value_3 = 'three'\n")
    app = PideckApp(launch(here, pi_in(sshd.ssh(), remote_pi, project), *pi_model_args(),
                           "--session-dir", str(tmp_path / "sessions")))
    async with app.run_test(size=SIZE) as pilot:
        await started_over_ssh(pilot, app)
        await run_prompt(pilot, app, "First: edit the code.", "First done.")
        await run_prompt(pilot, app, "Second: config and notes.", "Second done.")
        assert (project / NOTES).read_text() == "# sedded\n"
        first_session = app.desk.current.pi.model.state.session_file

        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker")
        assert [(c.text, c.files, c.inexact) for c in picker.choices] == [
            ("First: edit the code.", 3, 0), ("Second: config and notes.", 2, 0)]
        await pilot.press("enter")  # the last is highlighted first: the second message
        dialog = await question(pilot)
        assert f"@@ {NOTES} @@" in dialog.plan.lines and f"@@ {CONFIG} @@" in dialog.plan.lines
        await pilot.press("y")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_file != first_session
                         and "Second: config and notes." in app.desk.current.main.editor.text, timeout=30, what="the fork")
        assert (project / CODE).read_text() == first  # before the message: kept
        assert (project / CONFIG).read_bytes() == b"debug = false\r\n"
        assert (project / NOTES).read_text() == "# notes\n"

        app.desk.current.main.editor.load("")
        await send(pilot, "/rewind undo")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_file == first_session, timeout=30, what="back")
        assert (project / CONFIG).read_text() == "debug = true\n"
        assert (project / NOTES).read_text() == "# sedded\n"
        await quiesce(pilot)


async def test_a_host_pideck_could_not_reach_says_why_bash_changes_are_not_shown(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.pi.remote_files import RemoteFiles
    from widgets.screens.changes_screen import ChangesScreen

    def refused(*_: object) -> None:
        raise OSError("ssh to 127.0.0.1 failed (Permission denied)")

    monkeypatch.setattr(RemoteFiles, "install", refused)  # pideck's own ssh refused, pi's let in
    remote_pi.reset_model()
    app = PideckApp(launch(tmp_path, pi_in(sshd.ssh(), remote_pi, remote_pi.cwd), *pi_model_args(), "--no-session"))
    assert checkpoint_root(app.config) is None
    async with app.run_test(size=SIZE) as pilot:
        await started_over_ssh(pilot, app)
        remote_pi.model.queue(Reply(tool_calls=(ToolCallSpec("bash", {"command": "true"}, id="off_bash"),)), Reply(text="Ran."))
        await run_prompt(pilot, app, "Run true.", "Ran.")
        await send(pilot, "/diff")
        screen = await wait_until(pilot, lambda: isinstance(app.screen, ChangesScreen) and app.screen, what="the view")
        assert str(screen.query_one("#changes-note").render()).startswith(
            "Files changed by bash commands are not shown: pideck could not put its checkpoint extension on 127.0.0.1")
        await pilot.press("escape")
        await quiesce(pilot)
