"""Undo with a provider that reuses tool call ids (`call_0` on every turn, as some
OpenAI-compatible servers do; pi passes them on), on real pi with pideck's checkpoints: each
call keeps its own run, transcript block, Changes entry and checkpoint; a revert writes the
file chosen; `/rewind` puts back every file changed after the message; another pi session's
reverts do not show; and over a file changed since pi left it, Enter writes nothing."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PiHarness, question, quiesce, send, started, transcript_text, wait_until
from tests.real_pi.test_reverts_real_pi import answer, go_to, open_changes

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply, ToolCallSpec
from widgets.transcript.message_views import ToolCallBlock
from widgets.screens.changes_screen import ChangesScreen
from widgets.screens.rewind_picker import RewindPicker

pytestmark = pytest.mark.pi


def edit(path: str, old: str, new: str, call_id: str = "call_0") -> ToolCallSpec:
    return ToolCallSpec("edit", {"path": path, "edits": [{"oldText": old, "newText": new}]}, id=call_id)


def write(path: str, content: str, call_id: str = "call_0") -> ToolCallSpec:
    return ToolCallSpec("write", {"path": path, "content": content}, id=call_id)


def project_with(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return folder


async def run_prompt(pilot: Any, app: PideckApp, text: str, done: str) -> None:
    await send(pilot, text)
    await wait_until(pilot, lambda: done in transcript_text(app) and not app.desk.current.pi.model.running, timeout=60, what=done)


def launch(pi_harness: PiHarness, tmp_path: Path, project: Path) -> PideckApp:
    config = pi_harness.launch_config(session_dir=tmp_path / "sessions",
                                      env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints")})
    return PideckApp(replace(config, cwd=project))


async def test_two_prompts_with_one_call_id_revert_the_file_chosen(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = project_with(tmp_path / "project", {"f.txt": "f original\n", "g.txt": "g original\n"})
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(tool_calls=(edit("f.txt", "f original", "f by pi"),)), Reply(text="First done."),
        Reply(tool_calls=(edit("g.txt", "g original", "g by pi"),)), Reply(text="Second done."),
    )
    app = launch(pi_harness, tmp_path, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "Edit f.", "First done.")
        await run_prompt(pilot, app, "Edit g.", "Second done.")
        assert (project / "g.txt").read_text() == "g by pi\n"
        runs = app.desk.current.pi.model.tool_runs()
        assert [run.args["path"] for run in runs] == ["f.txt", "g.txt"] and len({run.key for run in runs}) == 2
        assert all(run.done and not run.is_error for run in runs)
        blocks = list(app.query(ToolCallBlock))
        assert [block.block.tool_call.arguments["path"] for block in blocks] == ["f.txt", "g.txt"]
        assert [app.desk.current.pi.model.tools[block.run_key].args["path"] for block in blocks] == ["f.txt", "g.txt"]

        screen = await open_changes(pilot)
        assert [f.path for f in screen.files] == ["f.txt", "g.txt"]
        go_to(screen, "f.txt")
        await pilot.press("R")
        dialog = await answer(pilot, "y")
        assert dialog.plan.label == "f.txt" and "-f by pi" in dialog.plan.lines and "+f original" in dialog.plan.lines
        assert (project / "f.txt").read_text() == "f original\n"
        assert (project / "g.txt").read_text() == "g by pi\n", "the other call's file is left alone"

        # Enter on a change goes to its own call in the transcript
        shown: list[str] = []
        show = app.desk.current.main.show_tool_call

        async def spy(key: str) -> None:
            shown.append(key)
            await show(key)

        app.desk.current.main.show_tool_call = spy  # type: ignore[method-assign]
        go_to(screen, "g.txt", "g by pi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen) and shown, what="closed")
        assert shown == [runs[1].key]
        await quiesce(pilot)


async def test_rewind_puts_back_every_file_changed_after_the_message(pi_harness: PiHarness, tmp_path: Path) -> None:
    """Five prompts edit one file with `call_0`; then a, b, c each edit and write with ids
    `call_e` and `call_w` reused on every prompt."""
    lines = "".join(f"line {n}\n" for n in range(1, 6))
    project = project_with(tmp_path / "project", {"f.txt": lines, **{f"e{x}.txt": f"{x} original\n" for x in "abc"}})
    pi_harness.reset_model()
    for n in range(1, 6):
        pi_harness.model.queue(Reply(tool_calls=(edit("f.txt", f"line {n}\n", f"line {n} by pi\n"),)),
                               Reply(text=f"Edit {n} done."))
    for x in "abc":
        pi_harness.model.queue(Reply(tool_calls=(edit(f"e{x}.txt", f"{x} original", f"{x} by pi", "call_e"),
                                                 write(f"w{x}.txt", f"{x} written\n", "call_w"))),
                               Reply(text=f"Prompt {x} done."))
    app = launch(pi_harness, tmp_path, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        for n in range(1, 6):
            await run_prompt(pilot, app, f"Edit line {n}.", f"Edit {n} done.")
        for x in "abc":
            await run_prompt(pilot, app, f"Prompt {x}.", f"Prompt {x} done.")
        assert (project / "f.txt").read_text() == lines.replace("\n", " by pi\n")

        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker")
        assert [(c.text, c.files) for c in picker.choices] == [
            ("Edit line 1.", 7), ("Edit line 2.", 7), ("Edit line 3.", 7), ("Edit line 4.", 7), ("Edit line 5.", 7),
            ("Prompt a.", 6), ("Prompt b.", 4), ("Prompt c.", 2)]
        await pilot.press("up", "enter")  # the last is highlighted first: before prompt b
        confirm = await question(pilot)
        assert confirm.plan.label == "4 files"
        await pilot.press("y")
        await wait_until(pilot, lambda: "Prompt b." in app.desk.current.main.editor.text, timeout=30, what="the fork")
        assert (project / "ea.txt").read_text() == "a by pi\n" and (project / "wa.txt").read_text() == "a written\n"
        assert [(project / f"e{x}.txt").read_text() for x in "bc"] == ["b original\n", "c original\n"]
        assert not (project / "wb.txt").exists() and not (project / "wc.txt").exists()

        app.desk.current.main.editor.load("")
        await send(pilot, "/rewind")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, RewindPicker) and app.screen, timeout=30,
                                  what="the picker again")
        assert [c.text for c in picker.choices][1:] == ["Edit line 2.", "Edit line 3.", "Edit line 4.", "Edit line 5.", "Prompt a."]
        await pilot.press("up", "up", "up", "up", "enter")  # before the second edit of f.txt
        await question(pilot)
        await pilot.press("y")
        await wait_until(pilot, lambda: "Edit line 2." in app.desk.current.main.editor.text, timeout=30, what="the second fork")
        assert (project / "f.txt").read_text() == lines.replace("line 1\n", "line 1 by pi\n")
        assert (project / "ea.txt").read_text() == "a original\n" and not (project / "wa.txt").exists()
        await quiesce(pilot)


async def test_reverts_belong_to_their_session_and_enter_never_writes_over_a_change(pi_harness: PiHarness,
                                                                                    tmp_path: Path) -> None:
    project = project_with(tmp_path / "project", {"f.txt": "one\n"})
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(tool_calls=(write("f.txt", "two\n"),)), Reply(text="Wrote two."),
                           Reply(tool_calls=(write("f.txt", "three\n"),)), Reply(text="Wrote three."))
    app = launch(pi_harness, tmp_path, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "Write two.", "Wrote two.")
        screen = await open_changes(pilot)
        go_to(screen, "f.txt")
        await pilot.press("R")
        await answer(pilot, "y")
        assert (project / "f.txt").read_text() == "one\n"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        app.desk.current.main.editor.load("")

        old_session = app.desk.current.pi.model.state.session_id
        await send(pilot, "/new")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_id != old_session, timeout=30, what="a new session")
        await run_prompt(pilot, app, "Write three.", "Wrote three.")
        screen = await open_changes(pilot)
        assert [[change.tool for change in f.changes] for f in screen.files] == [["write"]], "no revert of the old session"

        (project / "f.txt").write_text("the user's\n")  # changed since pi left it
        go_to(screen, "f.txt")
        await pilot.press("R")
        dialog = await question(pilot)
        assert dialog.plan.conflict == (b"one\n", b"three\n", b"the user's\n")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "Enter answers nothing there"
        assert (project / "f.txt").read_text() == "the user's\n"
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, what="left as it is")
        assert (project / "f.txt").read_text() == "the user's\n"
        await pilot.press("escape")
        await quiesce(pilot)


async def test_a_view_of_a_session_pideck_ran_shows_its_changes_read_only(pi_harness: PiHarness, tmp_path: Path) -> None:
    """`pideck view` on the session file: F9 finds the session's checkpoints (a bash command's
    changes are shown) and offers no revert."""
    from app.pi.launch import LaunchConfig
    from app.view.app import ViewApp
    from protocol.files.view_client import ViewClient

    project = project_with(tmp_path / "project", {"f.txt": "f original\n", "s.txt": "sed me\n"})
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(tool_calls=(edit("f.txt", "f original", "f by pi"),)), Reply(text="Edited."),
        Reply(tool_calls=(ToolCallSpec("bash", {"command": "sed -i 's/sed me/sed by pi/' s.txt"}, id="call_0"),)),
        Reply(text="Ran sed."),
    )
    app = launch(pi_harness, tmp_path, project)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_prompt(pilot, app, "Edit f.", "Edited.")
        await run_prompt(pilot, app, "Run sed.", "Ran sed.")
        session_file = Path(app.desk.current.pi.model.state.session_file)
        await quiesce(pilot)

    config = LaunchConfig(argv=("pideck", "view"), env={"PIDECK_CHECKPOINTS": str(tmp_path / "checkpoints"),
                                                        "HOME": str(tmp_path)},
                          cwd=project, demo=False, protocol_log=tmp_path / "protocol.log")
    viewer = ViewApp(config, ViewClient(str(session_file)), path=session_file)
    async with viewer.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "Ran sed." in transcript_text(viewer), timeout=30, what="the session shown")
        await pilot.press("f9")
        screen = await wait_until(pilot, lambda: isinstance(viewer.screen, ChangesScreen) and viewer.screen,
                                  what="the Changes view")
        await wait_until(pilot, lambda: screen.is_mounted, what="mounted")
        assert [f.path for f in screen.files] == ["f.txt", "s.txt"]  # the sed's change, from the checkpoints
        assert not screen.query_one("#changes-note").display, "nothing said to be off"
        keys = {binding.action for binding in (b.binding for b in screen.active_bindings.values()) if binding.show}
        assert not keys & {"revert_hunk", "revert_file", "undo"} and "copy_patch" in keys
        assert "read-only" in str(screen.query_one("#changes-title").render())
        await pilot.press("R")
        await pilot.pause()
        assert viewer.screen is screen and (project / "s.txt").read_text() == "sed by pi\n"
