"""pi's display settings (app/pi/settings.py) in pideck over the fake child, from agent
directories written here: each followed, a wrong type ignored with one warning, /reload,
Esc twice on an empty prompt (doubleEscapeAction), /tree's first filter (treeFilterMode),
and the terminal's own cursor (showHardwareCursor) in tmux."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, TmuxPideck, fixture_entries, notes, send, type_text, wait_until
from tests.screen_app import ScreenApp
from textual.css.scalar import Scalar

from widgets.prompt.completion import CompletionMenu
from widgets.transcript.message_views import TextBlock
from widgets.prompt.editor import PromptEditor
from widgets.screens.tree_view import SessionTreeScreen


def agent_with(tmp_path: Path, settings: dict[str, Any]) -> dict[str, str]:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    (agent / "settings.json").write_text(json.dumps(settings))
    return {"PI_CODING_AGENT_DIR": str(agent)}


async def test_display_settings_are_followed(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {
        "hideThinkingBlock": True, "outputPad": 0, "editorPaddingX": 2, "autocompleteMaxVisible": 3,
        "quietStartup": True, "terminal": {"hyperlinks": True}, "showHardwareCursor": True,
        "markdown": {"codeBlockIndent": "│ "},
    })
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        main = app.desk.current.main
        transcript, editor = main.transcript, app.query_one(PromptEditor)
        assert notes(app) == []  # every value is one pi takes
        assert main._thinking_collapsed and transcript.has_class("-thinking-collapsed")
        assert (transcript.styles.padding.left, transcript.styles.padding.right) == (0, 0)
        assert (editor.styles.padding.left, editor.styles.padding.right) == (2, 2)
        assert app.query_one(CompletionMenu).styles.max_height == Scalar.parse("5")  # 3 rows and the border
        assert transcript.welcome is not None and transcript.welcome.styles.display == "none"
        assert editor.hardware_cursor and not editor._draw_cursor
        block = TextBlock("See [the docs](https://pi.dev/docs).")  # an answer's markdown
        await transcript.mount(block)
        await wait_until(pilot, lambda: block.size.height, what="the block laid out")
        assert "https://pi.dev/docs" in {segment.style.link for segment in block.render_line(0) if segment.style}
        code = TextBlock("```python\nx = 1\nprint(x)\n```")
        await transcript.mount(code)
        await wait_until(pilot, lambda: code.size.height, what="the code block laid out")
        assert [code.render_line(y).text.rstrip() for y in range(2)] == ["│ x = 1", "│ print(x)"]


async def test_unset_settings_keep_pidecks_look_and_reload_reads_them_again(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        transcript, editor = app.desk.current.main.transcript, app.query_one(PromptEditor)
        assert (transcript.styles.padding.left, editor.styles.padding.left) == (1, 1)
        assert transcript.welcome is not None and transcript.welcome.styles.display == "block"
        assert not app.desk.current.main.has_class("-hyperlinks") and not app.desk.current.main._thinking_collapsed
        agent_with(tmp_path, {"outputPad": 0, "hideThinkingBlock": True, "editorPaddingX": 0})
        await send(pilot, "/reload")
        await wait_until(pilot, lambda: transcript.styles.padding.left == 0, what="/reload applied outputPad")
        assert editor.styles.padding.left == 0 and transcript.has_class("-thinking-collapsed")


async def test_a_setting_of_the_wrong_type_is_ignored_with_one_warning(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {"hideThinkingBlock": "yes", "outputPad": 2, "doubleEscapeAction": "menu",
                                "editorPaddingX": 1})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        app = pilot.app
        warnings = [n for n in notes(app) if n.startswith("pideck ignores these")]
        assert warnings == ['pideck ignores these: hideThinkingBlock should be true or false, not "yes"; '
                            "outputPad should be 0 or 1, not 2; doubleEscapeAction should be "
                            '"tree", "fork" or "none", not "menu".']
        assert not app.desk.current.main._thinking_collapsed and app.desk.current.main.transcript.styles.padding.left == 1  # pi's defaults
        assert app.query_one(PromptEditor).styles.padding.left == 1  # the valid one is followed
        await pilot.press("escape", "escape")  # doubleEscapeAction's default: /tree
        await wait_until(pilot, lambda: "get_entries" in fake.kinds(), what="/tree")


async def test_escape_twice_on_an_empty_prompt(tmp_path: Path) -> None:
    env = agent_with(tmp_path, {"doubleEscapeAction": "fork"})
    fake = Fake(tmp_path)
    async with fake.run(fake.app(env)) as pilot:
        await type_text(pilot, "draft")
        await pilot.press("escape", "escape")  # not on a prompt with text
        await pilot.pause()
        assert "get_fork_messages" not in fake.kinds()
        pilot.app.query_one(PromptEditor).load("")
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: "get_fork_messages" in fake.kinds(), what="/fork")
        assert "get_entries" not in fake.kinds()

    (tmp_path / "none").mkdir()
    none = Fake(tmp_path / "none")
    async with none.run(none.app(agent_with(tmp_path / "none", {"doubleEscapeAction": "none"}))) as pilot:
        await pilot.press("escape", "escape", "escape")
        await pilot.pause()
        assert not {"get_entries", "get_fork_messages"} & set(none.kinds())


async def test_tree_opens_with_pis_filter_mode() -> None:
    shown = {}
    for mode in ("default", "no-tools", "user-only", "labeled-only", "all"):
        screen = SessionTreeScreen(fixture_entries(), "a0000004", mode)
        async with ScreenApp(screen).run_test() as pilot:
            await pilot.pause()
            shown[mode] = ({name for name, on in screen.showing.items() if on}, screen.labeled_only)
    assert shown == {
        "default": ({"user", "assistant", "tool"}, False), "no-tools": ({"user", "assistant"}, False),
        "user-only": ({"user"}, False), "labeled-only": ({"user", "assistant", "tool", "other"}, True),
        "all": ({"user", "assistant", "tool", "other"}, False),
    }


def test_the_terminal_shows_its_own_cursor_at_the_prompt(tmp_path: Path) -> None:
    def cursor(settings: dict[str, Any], folder: Path) -> tuple[str, str]:
        folder.mkdir()
        agent = Path(agent_with(folder, settings)["PI_CODING_AGENT_DIR"])
        with TmuxPideck(Fake(folder), wrapper=("env", f"PI_CODING_AGENT_DIR={agent}")) as pideck:
            pideck.wait_started()
            pideck.keys("-l", "abc")
            pideck.wait(lambda: "abc" in pideck.screen(), "typed")
            flag, x = pideck._tmux("display-message", "-p", "-t", "t", "#{cursor_flag} #{cursor_x}").stdout.split()
            line = next(row for row in pideck.screen().splitlines() if "abc" in row)
            return flag, "at the prompt" if int(x) == line.index("abc") + 3 else f"x={x} in {line!r}"

    assert cursor({"showHardwareCursor": True}, tmp_path / "on") == ("1", "at the prompt")
    assert cursor({}, tmp_path / "off")[0] == "0"
