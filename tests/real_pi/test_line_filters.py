"""Every row pideck draws itself (streamed markdown and reasoning, a tool's full output,
the transcript's scrollbar, a selection drawn over them) goes through each of Textual's
line filters: NO_COLOR's (pideck's NoColor, where Textual's is Monochrome or, with the
terminal's own ANSI colours, NoColor), the dim filter (TEXTUAL_FILTERS=dim) and the ANSI-to-truecolour one that is
always on. A filter fails on a segment without a style, or without the widget's colours."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import textual.constants
from tests.pi_harness import SIZE, PiHarness, transcript_text, wait_until
from rich.style import Style
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply, ToolCallSpec
from widgets.markdown.stream import StreamingText
from widgets.transcript.message_views import TextBlock, ToolCallBlock
from widgets.prompt.editor import PromptEditor
from widgets.engine.strip_scrollbar import StripScrollBar, use_strip_scrollbar
from widgets.tools.output import LargeTextView
from widgets.screens.tool_output_screen import ToolOutputScreen

MARKDOWN = """# A heading

Prose with *emphasis*, **strength**, `inline code` and [a link](https://example.com).

- a bullet
- another

1. a number

> a quote

---

```python
# a comment
def f(x):
    return x
```

| name | value |
|------|-------|
| a    | 1     |

#### A dim heading

And a tail still streaming"""


def _grey(style: Style) -> bool:
    colours = [c for c in (style.color, style.bgcolor) if c is not None]
    return all(len(set(c.get_truecolor(DEFAULT_TERMINAL_THEME))) == 1 for c in colours)


def _defaults(style: Style) -> bool:
    return style.color is not None and style.bgcolor is not None and style.color.is_default and style.bgcolor.is_default


def _truecolour(style: Style) -> bool:
    return all(c is None or c.triplet is not None for c in (style.color, style.bgcolor))


# each filter, and what every segment it has been through shows
FILTERS: dict[str, tuple[Callable[[], LineFilter], Callable[[Style], bool]]] = {
    "monochrome": (Monochrome, _grey),
    "no-color": (NoColor, _defaults),
    "dim": (DimFilter, lambda style: not style.dim),
    "truecolor": (lambda: ANSIToTruecolor(DEFAULT_TERMINAL_THEME), _truecolour),
}


class Scroller(VerticalScroll):
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return use_strip_scrollbar(self)


class Host(App[None]):
    """The widgets that draw their own rows, under one line filter."""

    CSS = "Scroller { height: 12; } LargeTextView { height: 6; } .thinking { text-style: italic dim; }"

    def __init__(self, line_filter: LineFilter) -> None:
        super().__init__()
        self.line_filter = line_filter

    def get_line_filters(self) -> list[LineFilter]:
        return [self.line_filter]

    def compose(self) -> ComposeResult:
        with Scroller():
            yield StreamingText("Thinking about it,\nin plain style.", plain_style="italic", classes="thinking")
            yield StreamingText()
        yield LargeTextView("".join(f"row {n}\tof the output, wider than the view {'x' * 60}\n" for n in range(40)))


def _rows(widget: Widget) -> list[Strip]:
    """What the widget paints: its rows through the app's line filters."""
    return widget.render_lines(Region(0, 0, *widget.size))


@pytest.mark.parametrize("name", FILTERS)
async def test_every_row_pideck_draws_goes_through_each_line_filter(name: str) -> None:
    make_filter, shows = FILTERS[name]
    app = Host(make_filter())
    async with app.run_test(size=(70, 24)) as pilot:
        reply = app.query(StreamingText).last()
        for start in range(0, len(MARKDOWN), 40):  # streamed: finished chunks and a tail
            reply.append(MARKDOWN[start : start + 40])
        await pilot.pause()
        assert reply.pending == 0 and "streaming" in reply.visible_text()
        view = app.query_one(LargeTextView)
        widgets: list[Widget] = [*app.query(StreamingText), view]
        for selected in (False, True):
            if selected:  # drawn over each of them
                app.screen.selections = {widget: Selection(Offset(2, 0), Offset(5, 3)) for widget in widgets}
                await pilot.pause()
            bar = app.query_one(Scroller).vertical_scrollbar
            assert isinstance(bar, StripScrollBar) and bar.display
            rows = [row for widget in [*widgets, bar] for row in _rows(widget)]
            assert len(rows) > 30
            wrong = [(segment.text, segment.style) for row in rows for segment in row
                     if not segment.control and (segment.style is None or not shows(segment.style))]
            assert not wrong, f"{name}: {wrong[:3]}"
        assert app.is_running


@pytest.mark.pi
@pytest.mark.parametrize("setting", ["NO_COLOR", "TEXTUAL_FILTERS=dim"])
async def test_a_reply_with_tool_output_under_no_color_and_dim(
    setting: str, pi_harness: PiHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    if setting == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")  # Textual reads it when the app is made
    else:
        monkeypatch.setattr(textual.constants, "FILTERS", "dim")
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(reasoning="First I look around.", tool_calls=(
            ToolCallSpec("bash", {"command": "printf 'one\\ttwo\\nthree\\n'"}, id="call_filters"),)),
        Reply(text=MARKDOWN, chunk_chars=7, delay=0.01),
    )
    app = PideckApp(pi_harness.launch_config())
    assert isinstance(app.get_line_filters()[-1], NoColor if setting == "NO_COLOR" else DimFilter)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, timeout=30, what="pi start-up")
        app.query_one(PromptEditor).load("Look around.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "streaming" in transcript_text(app) and not app.desk.current.pi.model.running, what="answer")
        block = app.query(TextBlock).last()
        await pilot.mouse_down(block, offset=(2, 0))
        await pilot.hover(block, offset=(8, 1))
        await pilot.mouse_up(block, offset=(8, 1))
        assert app.screen.get_selected_text()
        await pilot.click(app.query_one(ToolCallBlock))
        view = await wait_until(
            pilot, lambda: isinstance(app.screen, ToolOutputScreen) and app.screen.query_one(LargeTextView), what="the output"
        )
        await pilot.mouse_down(view, offset=(0, 0))
        await pilot.mouse_up(view, offset=(4, 1))
        assert app.screen.get_selected_text() == "one two\nthree"  # its tab as shown: to column 4
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ToolOutputScreen), what="the output closed")
        await pilot.pause()
        assert app.is_running
