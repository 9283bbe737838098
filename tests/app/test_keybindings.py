"""pi's keybindings.json (app/keybindings.py) in pideck over the fake child: keys remapped,
disabled and added, the editor's own keys, what cannot be followed, /hotkeys, the Footer
and /reload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, notes, send, type_text, wait_until
from textual._xterm_parser import XTermParser
from textual.widgets._footer import FooterKey

from app.keybindings import textual_key
from app.main_screen import MainScreen
from widgets.screens.info_screen import InfoScreen
from widgets.screens.pickers import ModelPicker
from widgets.prompt.editor import PromptEditor


def agent_with(tmp_path: Path, bindings: dict[str, Any]) -> dict[str, str]:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    (agent / "keybindings.json").write_text(json.dumps({"$schema": "https://pi.dev/x.json", **bindings}))
    return {"PI_CODING_AGENT_DIR": str(agent)}


def footer_keys(app: Any) -> dict[str, str]:
    return {key.description: key.key for key in app.screen.query(FooterKey) if key.display}


def test_pi_key_names_become_textual_ones() -> None:
    assert textual_key("shift+ctrl+p") == "ctrl+shift+p"
    assert textual_key("ctrl+alt+]") == "alt+ctrl+right_square_bracket"
    assert textual_key("ctrl+-") == "ctrl+minus"
    assert textual_key("esc") == textual_key("escape") == "escape"
    assert textual_key("pageUp") == "pageup"
    assert textual_key("shift+l") == "L"
    assert textual_key("ctrl++") == "ctrl+plus"
    assert textual_key("super+k") == "super+k"
    assert [textual_key(k) for k in ("clear", "hyper+x", "ctrl+ctrl+x", "f13", "")] == [None] * 5


async def test_keys_remapped_disabled_and_added(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {
        "app.model.select": "alt+m",          # Ctrl+L no longer opens the picker...
        "app.tools.expand": ["ctrl+l"],       # ...it expands tool output
        "app.thinking.toggle": [],            # Ctrl+T does nothing
        "app.session.new": "ctrl+shift+n",    # no key in pi's defaults
        "app.session.togglePath": "ctrl+p",   # pi's, but pideck has no such key
    })
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        main: MainScreen = app.desk.current.main
        assert notes(app) == []  # nothing wrong with this file
        assert footer_keys(app).get("Model") == "alt+m"
        assert "Thinking" not in footer_keys(app)
        await pilot.press("ctrl+t")
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: main._tools_expanded, what="Ctrl+L expanded the tools")
        assert not main._thinking_collapsed
        assert "get_available_models" not in fake.kinds()
        await pilot.press("alt+m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), what="Alt+M opened the picker")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is main, what="the picker closed")
        await pilot.press("ctrl+shift+n")
        await wait_until(pilot, lambda: "new_session" in fake.kinds(), what="Ctrl+Shift+N started /new")

        await type_text(pilot, "/hotkeys")
        await pilot.press("enter")
        page = await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen, what="/hotkeys")
        content = page.query_one("#info-content")
        await wait_until(pilot, lambda: content.size.height > 0, what="the page laid out")
        rows = [" ".join(strip.text.split()) for strip in content.render_lines(content.region.reset_offset)]
        assert any("Alt+M" in row and "Select a model" in row for row in rows)
        assert any("Ctrl+L" in row and "tool output" in row for row in rows)
        assert any("(no key)" in row and "thinking blocks" in row for row in rows)
        assert any("Ctrl+Shift+N" in row and "New session" in row for row in rows)
        assert any("pideck has no key for pi's app.session.togglePath" in row for row in rows)


async def test_what_cannot_be_followed_is_said_once(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {
        "app.bogus": "ctrl+b",
        "tui.editor.yank": "hyper+y",
        "app.session.new": "ctrl+g",          # Ctrl+G is the external editor's
        "app.session.fork": "f2",             # F2 is pideck's own, for the side panes
        "app.exit": 5,
    })
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        toast = [n for n in notes(app) if "pideck left these out" in n]
        assert len(toast) == 1
        assert "app.bogus: not one of pi's actions" in toast[0]
        assert "tui.editor.yank: 'hyper+y' is not a key pideck can read" in toast[0]
        assert "app.session.new: ctrl+g is also app.editor.external's key" in toast[0]
        assert "app.session.fork: f2 is also pideck's key for “Panes”" in toast[0]
        assert "app.exit: give a key or a list of keys" in toast[0]
        assert app.is_running  # start-up went on
        editor = app.query_one(PromptEditor)
        await type_text(pilot, "abc")
        await pilot.press("ctrl+d")  # app.exit kept its default key (the bad value was ignored)
        await pilot.press("home", "ctrl+d")
        assert editor.text == "bc"


async def test_editor_keys_follow_the_file(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {"tui.input.submit": "alt+s", "tui.input.newLine": "enter",
                                "tui.editor.cursorLineStart": "ctrl+a", "tui.editor.yank": "alt+v"})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        editor = app.query_one(PromptEditor)
        await type_text(pilot, "one")
        await pilot.press("enter")
        await type_text(pilot, "two")
        assert editor.text == "one\ntwo" and "prompt" not in fake.kinds()
        await pilot.press("ctrl+w")
        assert editor.text == "one\n"
        await pilot.press("alt+v")  # the kill ring's yank, on its new key
        assert editor.text == "one\ntwo"
        await pilot.press("home")  # no longer the line start: Ctrl+A only
        assert editor.cursor_location == (1, 3)
        await pilot.press("ctrl+a")
        assert editor.cursor_location == (1, 0)
        await pilot.press("alt+s")
        await wait_until(pilot, lambda: fake.commands("prompt"), what="Alt+S sent the prompt")
        assert fake.commands("prompt")[0]["message"] == "one\ntwo"


async def test_reload_reads_the_file_again(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env), size=(200, 40)) as pilot:  # a rebound key moves to the Footer's end
        app = pilot.app
        assert footer_keys(app).get("Model") == "ctrl+l"
        agent_with(tmp_path, {"app.model.select": "alt+m"})
        await send(pilot, "/reload")
        await wait_until(pilot, lambda: footer_keys(app).get("Model") == "alt+m", what="the new key in the Footer")
        await pilot.press("alt+m")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), what="Alt+M opened the picker")


async def test_pis_defaults_written_out_are_no_conflict(tmp_path: Path) -> None:
    """A file that repeats pi's defaults: the keys the prompt's text editing also has (Ctrl+C
    copy, Ctrl+X cut, Ctrl+Z undo) and Ctrl+D (quit or delete right, as in pi) are no conflict."""
    env = agent_with(tmp_path, {"app.clear": "ctrl+c", "app.message.copy": "ctrl+x", "app.suspend": "ctrl+z",
                                "app.exit": "ctrl+d", "tui.editor.deleteCharForward": ["delete", "ctrl+d"],
                                "tui.editor.cursorLeft": ["left", "ctrl+b"]})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        assert notes(pilot.app) == []


async def test_textual_keys_pi_has_not_yield_to_the_file(tmp_path: Path) -> None:
    """F6 and F7 are free in pi: Textual's text area has them (select the line, select all),
    and the prompt has the focus, so they took the keys the file gives pi's actions."""
    env = agent_with(tmp_path, {"app.model.select": "f6", "app.tools.expand": "f7"})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        main: MainScreen = app.desk.current.main
        editor = app.query_one(PromptEditor)
        assert notes(app) == []
        await type_text(pilot, "a draft")
        await pilot.press("f7")
        await wait_until(pilot, lambda: main._tools_expanded, what="F7 expanded the tools")
        assert editor.selected_text == "" and editor.text == "a draft"
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker), what="F6 opened the picker")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is main, what="the picker closed")
        assert editor.selected_text == "" and editor.text == "a draft"


async def test_ctrl_q_is_free_as_in_pi(tmp_path: Path) -> None:
    """Ctrl+Q has no key in pi (but on Windows, where it queues a follow-up): Textual's
    quit-at-once is not pideck's, and the file can give it an action."""
    fake = Fake(tmp_path)
    async with fake.run(fake.app(agent_with(tmp_path, {}))) as pilot:
        app = pilot.app
        await type_text(pilot, "a draft")
        await pilot.press("ctrl+q")
        await pilot.pause(0.1)
        assert app.is_running and app.return_code is None
        assert app.query_one(PromptEditor).text == "a draft"
    (tmp_path / "again").mkdir()
    fake = Fake(tmp_path / "again")
    async with fake.run(fake.app(agent_with(tmp_path / "again", {"app.message.followUp": "ctrl+q"}))) as pilot:
        app = pilot.app
        await type_text(pilot, "queue me")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: fake.commands("prompt"), what="Ctrl+Q sent the follow-up")
        assert app.is_running and fake.commands("prompt")[0]["message"] == "queue me"


@pytest.mark.engine
async def test_a_ctrl_alt_key_in_keybindings_json_arrives_as_that_key_and_not_as_esc(tmp_path: Path) -> None:
    """A terminal sends Ctrl+Alt+O as ESC and Ctrl+O, which pideck reads as Esc then Ctrl+O
    (widgets/engine/keys.py) unless a binding takes Ctrl+Alt+O."""
    env = agent_with(tmp_path, {"app.tools.expand": "ctrl+alt+o"})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        parser = XTermParser()
        for event in [*parser.feed("\x1b\x0f"), *parser.feed("")]:
            app.post_message(event)
        await wait_until(pilot, lambda: app.desk.current.main._tools_expanded, what="Ctrl+Alt+O expanded the tools")
