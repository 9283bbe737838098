"""Every list shows where its cursor is, in every theme: a row is drawn with another
background, reverse or bold while the cursor is on it than when it is not (on the strips the
widget draws), and not in the terminal's own foreground on a fixed background, in the pickers with a filter line (`/model`, Ctrl+L, `/resume`, `/fork`), the
choice picker, the F1 palette, the `/` and `@` completion under the prompt and the `/tree` view; `system`
(the terminal's own colours, dark and light) included."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from tests.pi_harness import SESSIONS, Fake, fixture_entries, ready, type_text, wait_until
from textual.command import CommandList, CommandPalette
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import OptionList, Tree

from protocol.wire.responses import ForkMessage
from protocol.files.session_files import list_sessions
from widgets.colors import palette
from widgets.prompt.completion import CompletionMenu
from widgets.screens.pickers import ChoicePicker, ModelPicker
from widgets.prompt.editor import PromptEditor
from widgets.screens.session_picker import ForkPicker, SessionPicker
from widgets.screens.tree_view import SessionTreeScreen

THEMES = (("system", "dark"), ("system", "light"), ("dark", "dark"), ("light", "light"))


@pytest.fixture(autouse=True)
def default_palette() -> Any:
    yield
    palette.use({})


def look(widget: Widget, label: str | int) -> tuple[Any, ...]:
    """How the row showing `label` is drawn where the label starts, or row number `label` of
    the widget where most of its text is: background, reverse, bold, foreground."""
    strips = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    if isinstance(label, int):
        found = max(strips[label], key=lambda segment: len(segment.text.strip()))
    else:
        found = next((segment for strip in strips for segment in strip if label in segment.text), None)
        assert found is not None, f"no row shows {label!r}"
    style = found.style or Style()
    background = style.bgcolor.name if style.bgcolor else "default"
    foreground = style.color.name if style.color else "default"
    return (background, bool(style.reverse), bool(style.bold), foreground)


async def assert_cursor_shows(pilot: Any, widget: Widget, label: str | int, on: Callable[[], None],
                              off: Callable[[], None], where: str) -> None:
    """The row showing `label` looks otherwise with the cursor on it (`on`) than without (`off`)."""
    on()
    await pilot.pause()
    looks = look(widget, label)
    off()
    await pilot.pause()
    assert look(widget, label)[:3] != looks[:3], f"{where}: the row {label!r} looks the same with the cursor on it ({looks})"
    # the terminal's own foreground on a fixed background may not be readable (light on light grey)
    assert looks[0] == "default" or looks[3] != "default", f"{where}: the cursor row {label!r} is {looks}"


async def assert_list_shows(pilot: Any, options: OptionList, labels: list[str], where: str) -> None:
    def at(index: int) -> Callable[[], None]:
        return lambda: setattr(options, "highlighted", index)

    await assert_cursor_shows(pilot, options, labels[0], at(0), at(1), where)
    await assert_cursor_shows(pilot, options, labels[1], at(1), at(0), where)


def highlighted_list(screen: Any) -> OptionList | None:
    lists = [options for options in screen.query(OptionList) if options.highlighted is not None]
    return lists[0] if lists else None


async def test_the_cursor_shows_in_every_list_and_theme(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    for name in ("branched.jsonl", "plain.jsonl"):
        shutil.copy(SESSIONS / name, tmp_path / name)
    (tmp_path / "notes-alpha.txt").write_text("a")
    (tmp_path / "notes-beta.txt").write_text("b")
    app = fake.app()
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, fake)
        editor = app.query_one(PromptEditor)
        for theme, appearance in THEMES:
            app.themes.appearance = appearance
            app.themes.switch(theme)
            where = f"in {theme} ({appearance})"

            await pilot.press("ctrl+l")
            picker = await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen, what="/model")
            options = await wait_until(pilot, lambda: highlighted_list(picker), what="the models")
            await wait_until(pilot, lambda: options.option_count == 2)
            await assert_list_shows(pilot, options, [str(row.value.id) for row in picker.shown], f"/model {where}")
            await pilot.press("escape")

            screens: list[tuple[Any, list[str], str]] = [
                (ForkPicker([ForkMessage(entry_id="e1", text="first question"),
                             ForkMessage(entry_id="e2", text="second question")]),
                 ["first question", "second question"], "/fork"),
                (ChoicePicker("Thinking level", ["low", "medium", "high"], "medium"), ["low", "medium"], "/thinking"),
                (SessionPicker(lambda everywhere: list_sessions([tmp_path]), current=None, where="here"), [], "/resume"),
            ]
            for screen, labels, what in screens:
                app.push_screen(screen)
                options = await wait_until(pilot, lambda: highlighted_list(screen), what=what)
                if not labels:  # the sessions: their titles
                    await wait_until(pilot, lambda: len(screen.shown) == 2, what="the sessions")
                    labels = [row.value.title[:16] for row in screen.shown]
                await assert_list_shows(pilot, options, labels, f"{what} {where}")
                app.pop_screen()

            tree_screen = SessionTreeScreen(fixture_entries(), "a0000004")
            app.push_screen(tree_screen)
            tree = (await wait_until(pilot, lambda: [t for t in tree_screen.query(Tree) if t.cursor_line > 0], what="/tree"))[0]
            assert tree.scroll_y == 0
            await assert_cursor_shows(pilot, tree, 1, lambda: setattr(tree, "cursor_line", 1),
                                      lambda: setattr(tree, "cursor_line", 2), f"/tree {where}")
            app.pop_screen()

            await pilot.press("f1")
            commands = await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette)
                                        and [c for c in app.screen.query(CommandList) if c.option_count >= 2], what="F1")
            labels = [str(commands[0].get_option_at_index(i).prompt).split("\n")[0][:12] for i in range(2)]
            await assert_list_shows(pilot, commands[0], labels, f"the F1 palette {where}")
            await pilot.press("escape")

            for typed in ("/", "@notes"):
                editor.load("")
                await type_text(pilot, typed)
                menu = app.query_one(CompletionMenu)
                await wait_until(pilot, lambda: menu.display and menu.option_count >= 2, what=f"{typed} completion")
                await assert_list_shows(pilot, menu, [c.label for c in menu.candidates[:2]], f"{typed} completion {where}")
                editor.load("")
