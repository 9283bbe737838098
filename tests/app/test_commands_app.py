"""pideck's command keys and pages against the fake pi child (tests/fake_pi.py): what is
pideck's own behaviour (quitting, key fall-through, the Footer), plus snapshots of the
model picker and of /hotkeys. The commands against the real pi: test_commands_real_pi.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, type_text, wait_until
from textual.widgets._footer import FooterKey

from app.docs_pages import default_key_sections
from app.hotkeys_table import hotkey_sections
from widgets.screens.info_screen import InfoScreen
from widgets.screens.pickers import ModelPicker
from widgets.prompt.editor import PromptEditor


async def test_quit_command_exits(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "/quit")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app._exit, what="exit")
    assert app.return_code == 0
    assert "prompt" not in fake.kinds()  # /quit never reached pi


async def test_ctrl_d_deletes_right_unless_the_prompt_is_empty(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        editor = app.query_one(PromptEditor)
        await type_text(pilot, "abc")
        await pilot.press("home", "ctrl+d")
        assert editor.text == "bc" and app.is_running
        await pilot.press("ctrl+x")  # no selection: copies the last answer (none yet), text stays
        await wait_until(pilot, lambda: "get_last_assistant_text" in fake.kinds(), what="/copy asked pi")
        assert editor.text == "bc"
        await pilot.press("shift+end", "ctrl+x")  # a selection: Ctrl+X cuts it
        assert editor.text == ""
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: app._exit, what="exit on empty prompt")


async def test_palette_key_in_footer_and_keys_off_in_dialogs(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        keys = {key.key: key for key in app.screen.query(FooterKey)}
        assert "f1" in keys and "ctrl+l" in keys
        await pilot.press("ctrl+l")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen, what="picker")
        await pilot.press("ctrl+p", "shift+tab")  # pideck's model/thinking keys do nothing here
        await pilot.pause()
        assert "cycle_model" not in fake.kinds() and "cycle_thinking_level" not in fake.kinds()
        assert picker.is_active
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.is_modal, what="picker closed")


def test_model_picker_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    async def steps(pilot: Any) -> None:
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ModelPicker), what="picker")
        await pilot.press("s", "c")

    assert Fake(tmp_path).snap(snap_compare, steps)


def test_hotkeys_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    async def steps(pilot: Any) -> None:
        await type_text(pilot, "/hotkeys")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, InfoScreen), what="hotkeys")

    assert Fake(tmp_path).snap(snap_compare, steps)


async def test_the_keys_page_is_generated_from_the_keys_hotkeys_shows(tmp_path: Path) -> None:
    """docs/keys.md's tables (app/docs_pages.py) are /hotkeys' with no keybindings.json."""
    async with Fake(tmp_path).run() as pilot:
        app = pilot.app
        shown = hotkey_sections(app.key_bindings, app.desk.current.main.editor.key_bindings)
    assert len(shown) == 3 and all(rows for _, rows in shown) and default_key_sections() == shown


async def test_session_page_shows_a_long_session_path_whole(tmp_path: Path) -> None:
    path = "/tmp/" + "/".join(f"a-rather-long-directory-name-{n:02d}" for n in range(6)) + "/session.jsonl"
    fake = Fake(tmp_path, "--session-file", path)
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "/session")
        await pilot.press("enter")
        page = await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen, what="/session")
        content = page.query_one("#info-content")
        await wait_until(pilot, lambda: content.size.height > 0, what="the page laid out")
        lines = [strip.text.strip() for strip in content.render_lines(content.region.reset_offset)]
        shown = "".join(lines)  # the value column's lines, wrapped, joined again
        assert len(path) > content.size.width and path in shown
