"""`StripScrollBar` draws exactly what Textual's scrollbar draws, and the transcript uses it."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Static

from protocol.state.session_model import SessionModel
from widgets.engine.strip_scrollbar import StripScrollBar, use_strip_scrollbar
from widgets.transcript.transcript import Transcript


class Scroller(VerticalScroll):
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return use_strip_scrollbar(self)


class Host(App[None]):
    CSS = "Scroller { scrollbar-size-vertical: 2; } Scroller:focus { scrollbar-background: $error 50%; scrollbar-color: $success 60%; }"

    def compose(self) -> ComposeResult:
        with Scroller():
            yield Static("\n".join(f"row {i}" for i in range(200)))


def cells(strips: list[Strip]) -> list[list[tuple[str, object]]]:
    """Each row as (character, style) per cell, however the segments are split."""
    return [
        [(char, segment.style) for segment in strip for char in segment.text if not segment.control]
        for strip in strips
    ]


@pytest.mark.engine
async def test_the_bar_matches_textuals_at_every_position_and_crop() -> None:
    app = Host()
    async with app.run_test(size=(30, 12)) as pilot:
        scroller = app.query_one(Scroller)
        bar = scroller.vertical_scrollbar
        assert isinstance(bar, StripScrollBar) and bar.display
        width, height = bar.size
        assert width == 2 and height == 12
        positions = (0, 1, 37, 100, scroller.max_scroll_y)
        for y, focused in [(y, False) for y in positions] + [(y, True) for y in positions]:
            if focused and not scroller.has_focus:
                unfocused = cells(bar.render_lines(Region(0, 0, width, height)))
                scroller.focus()  # translucent colours, blended with what is under the bar
                await pilot.pause()
                assert cells(bar.render_lines(Region(0, 0, width, height))) != unfocused
            scroller.scroll_to(y=y, animate=False)
            await pilot.pause()
            for crop in (Region(0, 0, width, height), Region(0, 3, width, 5), Region(1, 0, 1, height)):
                ours = bar.render_lines(crop)
                textuals = ScrollBar.render_lines(bar, crop)
                assert len(ours) == crop.height
                assert cells(ours) == cells(textuals), (y, crop)
        thumb = [row for row in cells(bar.render_lines(Region(0, 0, width, height))) if row[0][1].reverse]
        assert thumb, "the thumb is drawn"
        assert all(isinstance(segment, Segment) for strip in bar.render_lines(Region(0, 0, width, 1)) for segment in strip)


@pytest.mark.engine
async def test_the_transcript_scrolls_with_a_strip_scrollbar() -> None:
    class TranscriptHost(App[None]):
        def compose(self) -> ComposeResult:
            yield Transcript(SessionModel())

    app = TranscriptHost()
    async with app.run_test(size=(40, 10)):
        assert isinstance(app.query_one(Transcript).vertical_scrollbar, StripScrollBar)
