"""Page Up and Page Down pressed faster than frames (a key held down, keys typed ahead over
ssh) move a view a page each, in the views that scroll by pages: the full output of a tool
and the pages of /hotkeys and /session. (The transcript's: tests/app/test_transcript_keys.py.)"""

from __future__ import annotations

from rich.text import Text
from textual.screen import Screen
from textual.widget import Widget

from tests.pi_harness import burst, wait_until
from tests.screen_app import ScreenApp
from widgets.screens.info_screen import InfoScreen
from widgets.screens.tool_output_screen import ToolOutputScreen
from widgets.tools.output import LargeTextView

TEXT = "\n".join(f"line {number}" for number in range(2000))


async def pages_at_once(screen: Screen[None], view_of: type[Widget] | str) -> None:
    app = ScreenApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await wait_until(pilot, lambda: app.screen.query(view_of).first(), what="the view")
        await wait_until(pilot, lambda: view.has_focus and view.max_scroll_y > 0, what="the view laid out, focused")
        page = view.scrollable_content_region.height
        burst(app, "pagedown", "pagedown", "pagedown")
        await wait_until(pilot, lambda: view.scroll_y == 3 * page, what="three pages down")
        burst(app, "pageup", "pageup")
        await wait_until(pilot, lambda: view.scroll_y == page, what="two pages up")


async def test_the_full_output_of_a_tool_pages_once_a_press() -> None:
    await pages_at_once(ToolOutputScreen("bash", TEXT), LargeTextView)


async def test_an_info_page_pages_once_a_press() -> None:
    await pages_at_once(InfoScreen("Hotkeys", Text(TEXT)), "#info-body")
