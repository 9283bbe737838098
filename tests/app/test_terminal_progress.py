"""pi's `terminal.showTerminalProgress`: while pi works the terminal tab shows it busy
(OSC 9;4, as pi writes it), cleared when the run ends; nothing when the setting is off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.pi_harness import Fake, start_run, wait_until

from app.pi.settings import terminal_progress
import app.terminal.progress as terminal_progress_module
from app.terminal.progress import BUSY, CLEAR


@pytest.mark.parametrize("enabled", [True, False])
async def test_the_tab_shows_pi_working_while_it_does(tmp_path: Path, enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terminal_progress_module, "KEEPALIVE", 0.05)
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"terminal": {"showTerminalProgress": enabled}}))
    fake = Fake(tmp_path, "--stop-after", "10")  # the run goes on until Esc aborts it
    async with fake.run() as pilot:
        app = pilot.app
        written: list[str] = []
        driver = app._driver
        original = driver.write
        driver.write = lambda data: (written.append(data), original(data))[1]  # type: ignore[method-assign]
        await start_run(pilot, fake, "Explain it.")
        if enabled:  # sent again and again while pi works: some terminals let it lapse
            await wait_until(pilot, lambda: written.count(BUSY) >= 3, what="busy, kept alive")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="the run over")
        await pilot.pause(0.2)
        progress = [chunk for chunk in written if chunk in (BUSY, CLEAR)]
        if enabled:
            assert progress[0] == BUSY and progress[-1] == CLEAR and progress.count(CLEAR) == 1, "cleared, and not busy again"
        else:
            assert progress == [] and not any("\x1b]9;4" in chunk for chunk in written)


def test_the_setting_is_read_inside_pis_terminal_object_project_over_agent(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    (project / ".pi").mkdir(parents=True)
    config = Fake(project).config({"PI_CODING_AGENT_DIR": str(agent)})
    assert not terminal_progress(config)
    (agent / "settings.json").write_text(json.dumps({"terminal": {"showTerminalProgress": True}}))
    (project / ".pi" / "settings.json").write_text(json.dumps({"terminal": {"images": False}}))
    assert terminal_progress(config), "the project's terminal object does not hide the agent dir's setting"
    (project / ".pi" / "settings.json").write_text(json.dumps({"terminal": {"showTerminalProgress": False}}))
    assert not terminal_progress(config)
