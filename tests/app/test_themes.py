"""pideck draws with pi's theme (agent directories written here): the `theme` setting at
start-up, a broken theme file named in a toast (and system used), `/theme` switching live
and re-rendering what is on screen, and `/theme --save` writing pi's setting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, notes, send, start_run, transcript_text, wait_until

from protocol.files.pi_themes import BUILT_IN
from widgets.colors import palette
from widgets.screens.pickers import ChoicePicker


@pytest.fixture(autouse=True)
def default_palette() -> Any:
    yield
    palette.use({})  # the palette is the process's: leave it as other tests expect it


def agent(tmp_path: Path, settings: dict[str, Any] | None = None) -> dict[str, str]:
    """An agent directory with these settings; the environment that points pi and pideck at it."""
    directory = tmp_path / "agent"
    directory.mkdir(exist_ok=True)
    if settings is not None:
        (directory / "settings.json").write_text(json.dumps(settings))
    return {"PI_CODING_AGENT_DIR": str(directory)}


async def test_the_theme_setting_at_start_up(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(fake.app(agent(tmp_path, {"theme": "light"}))) as pilot:
        assert pilot.app.theme == "pi-light"
        assert pilot.app.current_theme.background == "#ffffff"
        assert BUILT_IN["light"].colors["text"] in pilot.app.export_screenshot()
        assert not [note for note in notes(pilot.app) if "theme" in note]


async def test_a_broken_theme_file_is_named_and_system_used(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    env = agent(tmp_path, {"theme": "mine"})
    (tmp_path / "agent" / "themes").mkdir()
    (tmp_path / "agent" / "themes" / "mine.json").write_text('{"name": "mine", "colors": ')
    async with fake.run(fake.app(env)) as pilot:
        await wait_until(pilot, lambda: any("mine.json: not valid JSON" in note for note in notes(pilot.app)),
                         what="the warning")
        assert pilot.app.theme == "system-dark"
        assert "theme 'mine' was not found (or could not be read); using system" in notes(pilot.app)


async def test_theme_switches_live_and_what_is_shown_is_drawn_again(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="markdown.jsonl")
    light = BUILT_IN["light"].colors
    async with fake.run(fake.app(agent(tmp_path))) as pilot:
        app = pilot.app
        await start_run(pilot, fake, "Explain how to read a JSONL stream, with code.", running=False)
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "Emoji" in transcript_text(app), what="the answer")
        assert light["mdHeading"] not in app.export_screenshot()
        await send(pilot, "/theme light")
        await wait_until(pilot, lambda: app.theme == "pi-light", what="the switch")
        # the answer already shown is drawn again: headings, the "you" label and code in light's colours
        for role in ("mdHeading", "border", "syntaxKeyword"):
            await wait_until(pilot, lambda role=role: light[role] in app.export_screenshot(), what=role)
        assert any(note.startswith("light for this run") for note in notes(app)), "titled Theme, not saying it again"
        assert not (tmp_path / "agent" / "settings.json").exists()  # nothing written unless asked


async def test_the_picker_and_save(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(fake.app(agent(tmp_path, {"theme": "light", "quietStartup": True}))) as pilot:
        app = pilot.app
        # F1 offers /theme, not Textual's own theme picker (whose themes are not pi's)
        assert "Theme" not in [command.title for command in app.get_system_commands(app.screen)]
        await send(pilot, "/theme")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoicePicker), what="the picker")
        await pilot.press("home", "down", "enter")  # system, dark, light, ...
        await wait_until(pilot, lambda: app.theme == "pi-dark", what="dark chosen")
        await send(pilot, "/theme nosuch")
        await wait_until(pilot, lambda: any("no theme 'nosuch'" in note for note in notes(app)), what="the warning")
        assert app.theme == "pi-dark"
        await send(pilot, "/theme --save")
        settings = tmp_path / "agent" / "settings.json"
        await wait_until(pilot, lambda: json.loads(settings.read_text()).get("theme") == "dark", what="saved")
        assert json.loads(settings.read_text()) == {"theme": "dark", "quietStartup": True}
        assert f"dark saved as pi's theme setting in {settings}" in notes(app)


async def test_reload_reads_the_theme_again(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    env = agent(tmp_path, {"theme": "dark"})
    async with fake.run(fake.app(env)) as pilot:
        assert pilot.app.theme == "pi-dark"
        (tmp_path / "agent" / "settings.json").write_text(json.dumps({"theme": "light"}))
        await send(pilot, "/reload")
        await wait_until(pilot, lambda: pilot.app.theme == "pi-light", what="the theme read again")
