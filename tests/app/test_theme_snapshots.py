"""Snapshots of pideck in pi's `dark` and `light` themes and in `system` (the terminal's
ANSI colours, which the snapshot draws in its fixed palette): a finished answer with code
(markdown, syntax colours), tool calls with thinking (the side panes, the tool log), and
an extension dialog over the app. The SVGs are in snapshots/test_theme_snapshots/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, start_run, transcript_text, ui, wait_until
from tests.snapshot_plugin import settle

import widgets.panes.side as side_panes
from widgets.colors import palette
from widgets.screens.dialogs import ExtensionDialog
from widgets.transcript.message_views import ToolCallBlock
from widgets.transcript.transcript import Transcript

THEMES = ("dark", "light", "system")


@pytest.fixture(autouse=True)
def still_spinner(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(side_panes, "SPINNER", "⠿")
    yield
    palette.use({})


def themed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    """pi's agent directory (the one `Fake(tmp_path)` gives pideck) with `theme` as its
    setting; a terminal that says nothing of its colours."""
    agent = Fake(tmp_path).agent_dir
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"theme": theme}))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.delenv("COLORFGBG", raising=False)


@pytest.mark.parametrize("theme", THEMES)
def test_answer_with_code(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    themed(tmp_path, monkeypatch, theme)
    fake = Fake(tmp_path, stream="markdown.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "Explain how to read a JSONL stream, with code.", running=False)
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running and "Emoji" in transcript_text(pilot.app))

    assert fake.snap(snap_compare, steps)


@pytest.mark.parametrize("theme", THEMES)
def test_tools_and_thinking(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    themed(tmp_path, monkeypatch, theme)
    fake = Fake(tmp_path, stream="thinking_tools.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "List the files and read the README.", running=False)
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running and len(pilot.app.query(ToolCallBlock)) == 2
                         and all(run.done for run in pilot.app.desk.current.pi.model.tools.values()), what="tools done")

    assert fake.snap(snap_compare, steps)


@pytest.mark.parametrize("theme", THEMES)
def test_dialog(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    themed(tmp_path, monkeypatch, theme)
    fake = Fake(tmp_path, stream="commands.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "How is this project built?", running=False)
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running and "setuptools" in transcript_text(pilot.app))
        await settle(pilot)
        fake.inject(ui("select", "d-select", title="Allow dangerous command?", options=["Allow", "Block", "Ask later"]))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExtensionDialog), what="dialog")
        await settle(pilot)
        pilot.app.query_one(Transcript).scroll_end(animate=False, immediate=True)
        await pilot.wait_for_scheduled_animations()

    assert fake.snap(snap_compare, steps)
