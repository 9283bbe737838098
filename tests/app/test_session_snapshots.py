"""SVG snapshots of the /resume picker and the /tree view, each in a tiny app on fixed data
(tests/fixtures/sessions, file times set here). SVGs in snapshots/test_session_snapshots/.
Update with `.venv/bin/pytest tests/app/test_session_snapshots.py --snapshot-update`, then look.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from tests.pi_harness import SESSIONS, fixture_entries, wait_until
from tests.screen_app import ScreenApp
from tests.snapshot_plugin import settle

from protocol.files.session_files import list_sessions
from widgets.screens.session_picker import SessionPicker
from widgets.screens.tree_view import SessionTreeScreen

SIZE = (100, 26)


def test_resume_picker(snap_compare: Any, tmp_path: Path) -> None:
    for name in ("branched.jsonl", "plain.jsonl"):
        shutil.copy(SESSIONS / name, tmp_path / name)
    other = {"type": "session", "version": 3, "id": "web-1", "timestamp": "2025-02-20T10:00:00.000Z", "cwd": "/home/ada/website"}
    question = {"type": "message", "id": "w1", "parentId": None, "timestamp": "2025-02-20T10:01:00.000Z",
                "message": {"role": "user", "content": "Why is the [red]banner[/] broken?\nIt was fine.", "timestamp": 0}}  # fmt: skip
    (tmp_path / "web.jsonl").write_text(json.dumps(other) + "\n" + json.dumps(question) + "\n")
    (tmp_path / "broken.jsonl").write_text("not a session\n")
    for name, stamp in (("branched.jsonl", 1_740_830_400), ("plain.jsonl", 1_740_834_000), ("web.jsonl", 1_740_045_600)):
        os.utime(tmp_path / name, (stamp, stamp))
    picker = SessionPicker(
        lambda everywhere: list_sessions([tmp_path]),
        current=str(tmp_path / "plain.jsonl"),
        where="~/.pi/agent/sessions/--home-ada-parser--",
    )

    async def run_before(pilot: Any) -> None:
        await wait_until(pilot, lambda: len(picker.rows) == 3, what="the listing")
        await settle(pilot)

    assert snap_compare(ScreenApp(picker), run_before=run_before, terminal_size=SIZE)


def test_tree_view(snap_compare: Any) -> None:
    screen = SessionTreeScreen(fixture_entries(), "a0000004")

    async def run_before(pilot: Any) -> None:
        await wait_until(pilot, lambda: screen.query_one("Tree").cursor_line > 0, what="the cursor on the leaf")
        await settle(pilot)

    assert snap_compare(ScreenApp(screen), run_before=run_before, terminal_size=SIZE)
