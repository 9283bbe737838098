"""`GrowsInPlace` keeps a growing widget's rows, leaves its scrolling alone and lays it out once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from widgets.engine.grows_in_place import GrowsInPlace
from widgets.markdown.stream import StreamingText


class Log(GrowsInPlace, VerticalScroll):
    pass


class Host(App[None]):
    def compose(self) -> ComposeResult:
        with Log():
            yield StreamingText()


async def test_a_growing_scroll_container_still_scrolls_and_shows_its_scrollbar() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        log, text = app.query_one(Log), app.query_one(StreamingText)
        assert log.styles.overflow_y == "auto", "the mixin brings no CSS of its own"
        for i in range(30):
            text.append(f"line {i}\n\n")
            await pilot.pause()
        assert log.virtual_size.height > log.size.height
        assert log.show_vertical_scrollbar and log.vertical_scrollbar.display
        log.scroll_end(animate=False)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0
        assert "line 29" in text.visible_text(last_lines=1)


async def test_a_wider_or_narrower_widget_renders_every_row_again() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        text = app.query_one(StreamingText)
        text.append("word " * 40)
        await pilot.pause()
        cache = text._styles_cache
        assert cache._cache, "rows were rendered"
        await pilot.resize_terminal(60, 10)
        await pilot.pause()
        assert text.size.width > 40 and len(text.visible_text().splitlines()) == text.size.height


class Note(GrowsInPlace, Static):
    pass


class Column(GrowsInPlace, Vertical):
    DEFAULT_CSS = "Column { height: auto; }"


class Mounting(App[None]):
    def compose(self) -> ComposeResult:
        yield Log()


async def layouts_for(pilot: Pilot[None], mount: Callable[[], Awaitable[object]]) -> int:
    """The screen's layouts of widgets below it from `mount()` until the app is idle again
    (one the screen asks for itself, which a pause or a loaded machine may put in the
    window or not, is no widget's)."""
    screen = pilot.app.screen
    original = screen._refresh_layout
    count = 0

    def counting(*args: object, **kwargs: object) -> None:
        nonlocal count
        count += any(widget is not screen for widget in screen._layout_widgets)
        original(*args, **kwargs)  # type: ignore[arg-type]

    screen._refresh_layout = counting  # type: ignore[method-assign]
    await mount()
    for _ in range(5):
        await pilot.pause()
    return count


@pytest.mark.engine
async def test_a_widget_that_does_not_scroll_is_laid_out_once_when_mounted() -> None:
    """Textual lays out every widget mounted twice: the first layout sets its virtual size
    (0 x 0 before), which asks for another. A message mounted in the transcript with its
    header, blocks and footer did so for each."""
    async with Mounting().run_test(size=(40, 10)) as pilot:
        log = pilot.app.query_one(Log)
        plain = await layouts_for(pilot, lambda: log.mount(Vertical(Static("header"), Static("text"))))
    assert plain == 2, "Textual's own (if it lays out once now, this mixin may go)"
    app = Mounting()
    async with app.run_test(size=(40, 10)) as pilot:
        log = app.query_one(Log)
        ours = await layouts_for(pilot, lambda: log.mount(Column(Note("header"), Note("text"), StreamingText("more"))))
        assert ours == 1
        column = app.query_one(Column)
        assert column.virtual_size == column.size and app.query(Note).first().virtual_size.height == 1, \
            "the virtual size is set all the same"
        grown = await layouts_for(pilot, lambda: app.query_one(StreamingText).append("\n\nand more") or pilot.pause())
        assert grown == 1 and column.size.height == 5
