"""Searching the transcript: Ctrl+S opens the bar, matches are selected in order and
scrolled to, Esc closes it and gives the prompt back."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, ready, start_run, wait_until
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Input, Static

from widgets.transcript.message_views import MessageView, TextBlock
from widgets.prompt.editor import PromptEditor
from widgets.transcript.transcript import Transcript
from widgets.transcript.search import SearchBar, find_in_lines


def test_find_in_lines_is_smart_case_and_does_not_overlap() -> None:
    lines = ["Step one, step two", "no match here", "aaaa"]
    assert list(find_in_lines(lines, "step")) == [(0, 0, 4), (0, 10, 14)], "lower case finds both"
    assert list(find_in_lines(lines, "Step")) == [(0, 0, 4)], "a capital makes it exact"
    assert list(find_in_lines(lines, "aa")) == [(2, 0, 2), (2, 2, 4)]
    assert list(find_in_lines(lines, "")) == []


def count(app: object) -> str:
    return str(app.query_one("#search-count", Static).visual)  # type: ignore[attr-defined]


def selected(app: object) -> list[object]:
    return list(app.screen.selections)  # type: ignore[attr-defined]


async def test_search_steps_through_matches_and_esc_gives_the_prompt_back(tmp_path: Path) -> None:
    fake = Fake(tmp_path)  # every prompt gets the recorded markdown answer
    async with fake.run(size=(100, 30)) as pilot:
        app = pilot.app
        transcript = app.query_one(Transcript)

        def users() -> list[MessageView]:
            return [view for view in transcript.views.values() if isinstance(view, MessageView) and view.item.role == "user"]

        for turn, text in enumerate(("first question", "second question")):
            await start_run(pilot, fake, text, running=False)
            await wait_until(pilot, lambda: not app.desk.current.pi.model.running and len(users()) == turn + 1
                             and len(app.query(TextBlock)) == turn + 1, what="the answer")
        first, second = users()
        bar = app.query_one(SearchBar)
        assert not bar.display

        await pilot.press("ctrl+s")
        search = app.query_one("#search-input", Input)
        assert bar.display and search.has_focus
        await pilot.press(*"explain how")  # the recorded prompt: "Explain how to read a JSONL stream, with code."
        await wait_until(pilot, lambda: count(app) == "2/2", what="both prompts found, the newest selected")
        (widget,) = selected(app)
        assert widget.parent is second
        selection = app.screen.selections[widget]
        assert str(widget.visual).split("\n")[selection.start.y][selection.start.x : selection.end.x] == "Explain how"

        await pilot.press("up")
        await wait_until(pilot, lambda: count(app) == "1/2", what="the previous match")
        assert selected(app)[0].parent is first
        await wait_until(pilot, lambda: transcript.scroll_y < transcript.max_scroll_y, what="scrolled up to it")
        await pilot.press("down", "down")  # next, then round to the first
        await wait_until(pilot, lambda: count(app) == "1/2", what="wrapped round")
        await pilot.press("enter")
        await wait_until(pilot, lambda: count(app) == "2/2", what="enter: the next match")

        await pilot.press(*"zzz")
        await wait_until(pilot, lambda: count(app) == "no match" and not selected(app), what="no match")
        search.value = "typed"  # in the answers: "a *typed* decoder"
        await wait_until(pilot, lambda: count(app) == "2/2", what="found in the streamed answers")
        (block,) = selected(app)
        assert isinstance(block, TextBlock)
        span = app.screen.selections[block]
        row = block.render_line(span.start.y)
        marked = "".join(segment.text for segment in row if segment.style is not None and segment.style.bgcolor is not None
                         and segment.style.bgcolor == app.screen.get_component_rich_style("screen--selection").bgcolor)
        assert marked == "typed", "the match is drawn over the reply's own colours"

        await pilot.press("escape")
        assert not bar.display and not selected(app)
        assert app.query_one(PromptEditor).has_focus
        assert app.desk.current.pi.model.running is False and "abort" not in fake.kinds(), "Esc closed the search, nothing else"


async def test_a_match_at_the_end_of_a_long_wrapped_line_is_scrolled_to_its_own_row(tmp_path: Path) -> None:
    """A pasted line of many screens wraps in its message: search shows the row the match
    wraps to, not the line's first row (the match was off screen, many rows below)."""
    fake = Fake(tmp_path)
    async with fake.run(size=(100, 30)) as pilot:
        app = pilot.app
        await ready(pilot, fake)
        transcript = app.query_one(Transcript)
        line = " ".join(f"word{i}" for i in range(1200)) + " NEEDLE at the end"
        message = {"role": "user", "content": [{"type": "text", "text": line}], "timestamp": 1795952999000}
        fake.inject({"type": "message_start", "message": message}, {"type": "message_end", "message": message},
                    {"type": "message_start", "message": {**message, "content": [{"type": "text", "text": "short"}]}},
                    {"type": "message_end", "message": {**message, "content": [{"type": "text", "text": "short"}]}})
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) == 2 and app.desk.current.pi.pump.idle, what="the messages shown")
        (long_view, _) = [view for view in transcript.views.values() if isinstance(view, MessageView)]
        assert long_view.region.height > 3 * transcript.scrollable_content_region.height, "many screens tall"
        await pilot.press("ctrl+home")  # the view at the message's top: the match is far below
        await wait_until(pilot, lambda: transcript.scroll_y == 0, what="at the top")
        await pilot.press("ctrl+s", *"NEEDLE")
        await wait_until(pilot, lambda: count(app) == "1/1", what="found")
        (widget,) = selected(app)
        rows = [strip.text for strip in widget.render_lines(Region(0, 0, *widget.content_region.size))]
        (row,) = [y for y, text in enumerate(rows) if "NEEDLE" in text]  # as Textual draws it, many rows down
        assert row > transcript.scrollable_content_region.height
        view = transcript.scrollable_content_region
        await wait_until(pilot, lambda: view.y <= widget.content_region.y + row < view.bottom,
                         what="the match's row on screen")


async def test_the_search_bar_scrolls_as_any_widget_does() -> None:
    """The bar's own way to bring a match into view was named as Textual's `Widget._scroll_to`,
    which Textual's `scroll_to` calls with its own arguments: a TypeError."""

    class BarApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SearchBar()

    async with BarApp().run_test() as pilot:
        bar = pilot.app.query_one(SearchBar)
        bar.scroll_to(x=3, immediate=True)
        bar.scroll_to(y=0)
        await pilot.pause()
