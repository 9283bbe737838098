"""The Changes view (/diff) on real pi: live, after pi wrote and edited files in a project
of the test's own (app/scripted_model/scenarios.py `file_changes`), and on a session pi
resumes from its file (tests/fixtures/sessions/changes.jsonl)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PiHarness, copy_session, quiesce, send, started, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model import scenarios
from widgets.screens.changes_screen import ChangesScreen, DiffView

pytestmark = pytest.mark.pi


async def open_changes(pilot: Any) -> ChangesScreen:
    await send(pilot, "/diff")
    screen = await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen) and pilot.app.screen,
                              what="the Changes view")
    await wait_until(pilot, lambda: screen.query_one(DiffView).size.height > 0, what="the diff")
    return screen


def file_rows(screen: ChangesScreen) -> list[str]:
    files = screen.query_one("#changes-files")
    return [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]


async def test_diff_after_pi_writes_and_edits_files(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pi_harness.reset_model()
    pi_harness.model.queue(*scenarios.file_changes())
    app = PideckApp(replace(pi_harness.launch_config(), cwd=project))
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await send(pilot, "Change some files.")
        await wait_until(pilot, lambda: "Wrote and edited" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the run")
        screen = await open_changes(pilot)
        assert file_rows(screen) == ["notes.txt\n+5 −1 · 2 changes", "greeter.py\n+9 −3 · 3 changes"]
        assert screen.reverts is not None
        patches = {file.path: screen.reverts.patch(file)[0] for file in screen.files}
        # one patch per file (each was written twice or more), its path relative to pi's cwd
        assert [patch.count("+++ ") for patch in patches.values()] == [1, 1]
        assert patches["greeter.py"].startswith("--- /dev/null\n+++ greeter.py\n")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        await quiesce(pilot)
    # each file's patch rebuilds what pi left on disk
    rebuilt = tmp_path / "rebuilt"
    rebuilt.mkdir()
    for name in ("greeter.py", "notes.txt"):
        subprocess.run(["patch", "-s", "-p0"], input=patches[name], text=True, cwd=rebuilt, check=True)
        assert (rebuilt / name).read_text() == (project / name).read_text()


async def test_diff_of_a_resumed_session(pi_harness: PiHarness, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = copy_session("changes.jsonl", tmp_path / "sessions", project)
    app = PideckApp(pi_harness.launch_config(session_dir=tmp_path / "sessions", extra_args=["--session", str(path)]))
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await wait_until(pilot, lambda: "Wrote and edited" in transcript_text(app), what="the session's messages")
        screen = await open_changes(pilot)
        assert file_rows(screen) == ["notes.txt\n+5 −1 · 2 changes", "greeter.py\n+9 −3 · 3 changes"]
        view = screen.query_one(DiffView)
        view.show_file(1)
        await pilot.pause()
        rows = [view.render_line(y).text.rstrip() for y in range(view.size.height)]
        assert "-6     print(greet(\"world\"))" in rows and "+5 def main() -> None:" in rows
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChangesScreen), what="closed")
        await quiesce(pilot)
