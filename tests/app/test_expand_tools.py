"""Ctrl+O over many mounted tool calls: the code of the blocks on screen is highlighted at
once, the others' later (as they scroll into view, or in idle slices), in the same rows;
every block ends up as an eager expansion draws it, and the message at the top of the
screen stays there."""

from __future__ import annotations

from typing import Any

import pytest
from rich.syntax import Syntax
from textual.widgets import Static

from benchmarks import _big_code as b
from benchmarks import long_tool_session
from tests.pi_harness import wait_until
from widgets.transcript import transcript as transcript_module
from widgets.transcript.message_views import MessageView, ToolCallBlock

TOOLS = 40  # 20 reads of 200 lines and 20 edits of 60 diff rows: 81 messages, all mounted


def count_highlights(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many code blocks Pygments highlights, counted as it goes."""
    calls = [0]
    original = Syntax.highlight

    def highlight(self: Syntax, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Syntax, "highlight", highlight)
    return calls


async def loaded(app: Any, pilot: Any) -> Any:
    transcript = app.desk.current.main.transcript
    await b.load(app, long_tool_session.messages(TOOLS), timeout=120)
    await wait_until(pilot, lambda: transcript.max_scroll_y > 0, what="the session laid out")
    return transcript


def on_screen(transcript: Any, block: ToolCallBlock) -> bool:
    region = block.region  # the compositor's visible map: empty off screen
    return bool(region) and transcript.region.overlaps(region)


def pending(block: ToolCallBlock) -> bool:
    return getattr(block, "highlight_pending", False)


async def test_ctrl_o_highlights_the_blocks_on_screen_at_once_and_every_block_in_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    highlights = count_highlights(monkeypatch)
    async with b.app_running() as (app, pilot):
        transcript = await loaded(app, pilot)
        transcript.scroll_home(animate=False, immediate=True)
        transcript.release_anchor()
        await pilot.pause()
        expand = transcript.set_tools_expanded
        during: list[int] = []

        def counted(expanded: bool) -> None:
            before = highlights[0]
            expand(expanded)
            during.append(highlights[0] - before)

        monkeypatch.setattr(transcript, "set_tools_expanded", counted)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: bool(during), what="ctrl+o handled")
        blocks = list(app.query(ToolCallBlock))
        assert len(blocks) == TOOLS and all(block.expanded for block in blocks)
        assert during[0] <= 3, f"{during[0]} blocks highlighted at once, of {TOOLS}: only those on screen should be"

        await wait_until(pilot, lambda: not any(pending(block) for block in blocks), timeout=60, what="every block highlighted")
        for block in blocks:  # as an expansion that highlights every block at once draws it
            shown = block.content
            block._body_key = ()  # noqa: SLF001 - to draw it anew
            block.refresh_view()
            assert block.content == shown, block.block.tool_call.id
            size = transcript.size
            for width in (24, 60, block.content_region.width, 400):  # its rows counted as Textual wraps them
                assert block.get_content_height(size, size, width) == Static.get_content_height(block, size, size, width)


async def test_blocks_scrolled_into_view_are_highlighted_before_they_are_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript_module, "HIGHLIGHT_PAUSE", 3600, raising=False)  # no idle slices here
    async with b.app_running() as (app, pilot):
        transcript = await loaded(app, pilot)
        transcript.scroll_home(animate=False, immediate=True)
        transcript.release_anchor()
        await pilot.pause()
        await pilot.press("ctrl+o")
        blocks = list(app.query(ToolCallBlock))
        await wait_until(pilot, lambda: all(block.expanded for block in blocks), what="expanded")
        await pilot.pause()
        assert sum(pending(block) for block in blocks) >= TOOLS - 3, "those off screen wait"
        for _ in range(3):
            transcript.scroll_to(y=transcript.scroll_y + transcript.size.height * 7, animate=False, immediate=True)
            await pilot.pause()
            shown = [block for block in blocks if on_screen(transcript, block)]
            assert shown and not any(pending(block) for block in shown)


async def test_the_message_at_the_top_of_the_screen_stays_there(monkeypatch: pytest.MonkeyPatch) -> None:
    async with b.app_running() as (app, pilot):
        transcript = await loaded(app, pilot)
        views = [view for _, view in sorted(transcript.views.items()) if isinstance(view, MessageView) and view.display]
        view = views[len(views) // 2]  # tool calls above it grow too
        transcript.scroll_to(y=view.virtual_region.y + 1, animate=False, immediate=True)
        await wait_until(pilot, lambda: round(transcript.scroll_y) == view.virtual_region.y + 1, what="scrolled to it")
        height = transcript.virtual_size.height
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: transcript.virtual_size.height > height, what="the blocks expanded")
        await pilot.pause()
        assert view.virtual_region.y - round(transcript.scroll_y) == -1
