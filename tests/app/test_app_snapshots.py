"""SVG snapshots of the whole PideckApp driven by the fake pi child (tests/fake_pi.py).

The SVGs are in snapshots/test_app_snapshots/ (see tests/snapshot_plugin.py).
Update with `.venv/bin/pytest tests/app/test_app_snapshots.py --snapshot-update`, then look.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import (
    ROOT,
    SIZE,
    Fake,
    bash_error,
    derive_stream,
    start_run,
    transcript_text,
    type_text,
    ui,
    wait_until,
)
from tests.snapshot_plugin import settle

import widgets.panes.side as side_panes
from app.pi.launch import LaunchConfig
from app.pideck_app import PideckApp
from widgets.screens.dialogs import ExtensionDialog
from widgets.transcript.message_views import ToolCallBlock
from widgets.screens.startup_error import StartupErrorScreen
from widgets.transcript.transcript import Transcript

SMALL = (80, 24)


@pytest.fixture(autouse=True)
def still_spinner(monkeypatch: pytest.MonkeyPatch) -> None:
    """One spinner frame, so a running app looks the same whenever it is captured."""
    monkeypatch.setattr(side_panes, "SPINNER", "⠿")


def test_empty_session(snap_compare: Any, tmp_path: Path) -> None:
    assert Fake(tmp_path).snap(snap_compare)


def test_streaming_in_progress(snap_compare: Any, tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "20", stream="markdown.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "Explain how to read a JSONL stream, with code.")
        await wait_until(pilot, lambda: "Reading a JSONL" in transcript_text(pilot.app), what="partial text")

    assert fake.snap(snap_compare, steps)


def finished_markdown_answer(fake: Fake) -> Any:
    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "Explain how to read a JSONL stream, with code.", running=False)
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running and "Emoji" in transcript_text(pilot.app))

    return steps


def test_finished_markdown_answer(snap_compare: Any, tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="markdown.jsonl")
    assert fake.snap(snap_compare, finished_markdown_answer(fake))


def test_app_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="markdown.jsonl")
    assert fake.snap(snap_compare, finished_markdown_answer(fake), size=SMALL)


def test_tool_log_success_and_error(snap_compare: Any, tmp_path: Path) -> None:
    stream = derive_stream(tmp_path / "tools.jsonl", "thinking_tools.jsonl", edit=bash_error)
    fake = Fake(tmp_path, stream=stream)

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "List the files and read the README.", running=False)
        await wait_until(
            pilot,
            lambda: not pilot.app.desk.current.pi.model.running and len(pilot.app.query(ToolCallBlock)) == 2
            and all(run.done for run in pilot.app.desk.current.pi.model.tools.values()),
            what="tools done",
        )

    assert fake.snap(snap_compare, steps)


def test_queue_with_items(snap_compare: Any, tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake)
        await type_text(pilot, "And list sources.")
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(pilot.app.desk.current.pi.model.follow_up) == 2, what="queue")

    assert fake.snap(snap_compare, steps)


def test_queue_above_the_prompt_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """Below 100 columns the side panes hide, and the queue shows above the prompt, as pi's
    TUI shows it: a steer and a follow-up, a line each, and what Esc and Alt+Up do."""
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake)
        await wait_until(pilot, lambda: pilot.app.desk.current.pi.model.steering and pilot.app.desk.current.pi.model.follow_up, what="queue")

    assert fake.snap(snap_compare, steps, size=SMALL)


DIALOGS = {
    "select": ui("select", "d-select", title="Allow dangerous command?", options=["Allow", "Block", "Ask later"]),
    "confirm": ui("confirm", "d-confirm", title="Clear session?", message="All messages will be lost."),
    "input": ui("input", "d-input", title="Your name", placeholder="type a name"),
    "editor": ui("editor", "d-editor", title="Edit the text", prefill="line one\nline two"),
}


@pytest.mark.parametrize("kind", list(DIALOGS))
def test_extension_dialog_over_app(snap_compare: Any, tmp_path: Path, kind: str) -> None:
    fake = Fake(tmp_path, stream="commands.jsonl")  # a short answer: no scrollbar under the dialog

    async def steps(pilot: Any) -> None:
        await start_run(pilot, fake, "How is this project built?", running=False)
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running and "setuptools" in transcript_text(pilot.app))
        await settle(pilot)  # the app under the dialog is laid out before the dialog covers it
        fake.inject(DIALOGS[kind])
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExtensionDialog), what="dialog")
        await settle(pilot)
        pilot.app.query_one(Transcript).scroll_end(animate=False, immediate=True)
        await pilot.wait_for_scheduled_animations()

    assert fake.snap(snap_compare, steps)


def test_pi_could_not_start(snap_compare: Any, tmp_path: Path) -> None:
    # Relative argv and cwd: the screen prints the command, so it must not hold a temp path.
    config = LaunchConfig(
        argv=("python3", "tests/fake_pi.py", "--exit", "2", "--exit-delay", "0.5", "--stderr",
              "Error: No API key found for provider anthropic.\nRun pi and use /login."),
        env={**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path)}, cwd=ROOT, demo=False, protocol_log=Path(os.devnull),
    )

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, StartupErrorScreen), what="error screen")
        await settle(pilot)

    assert snap_compare(PideckApp(config), run_before=run_before, terminal_size=SIZE)
