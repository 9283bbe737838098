"""`GrowsInPlace` keeps a growing widget's rows and leaves its scrolling alone."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from widgets.grows_in_place import GrowsInPlace
from widgets.markdown_stream import StreamingText


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
