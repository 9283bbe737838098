"""Extensions cannot lock the user out: the real pi with tests/extensions/ui_flood.ts floods
pideck with widgets and notifications; the prompt and the transcript keep their room, the
screen keeps a few toasts, and F8 lists every notification in full."""

from __future__ import annotations

from typing import Any

import pytest
from tests.pi_harness import EXTENSIONS_DIR, SIZE, PiHarness, wait_until
from textual.widgets._toast import Toast

from app.pideck_app import PideckApp
from protocol.state.notification_center import MAX_ENTRIES, MAX_TOASTS, TOAST_CHARS
from widgets.screens.notification_list import NotificationList
from widgets.prompt.editor import PromptEditor
from widgets.tools.output import LargeTextView
from widgets.screens.tool_output_screen import ToolOutputScreen
from widgets.transcript.transcript import Transcript

pytestmark = pytest.mark.pi

UI_FLOOD = EXTENSIONS_DIR / "ui_flood.ts"


def make_app(harness: PiHarness) -> PideckApp:
    return PideckApp(harness.launch_config(extensions=[UI_FLOOD]))


def kept(app: PideckApp) -> list[str]:
    return [notice.message for notice in app.toasts.center.entries]


async def run_command(pilot: Any, text: str, done: str) -> None:
    """Send an extension command and wait for the notify that ends it."""
    app = pilot.app
    before = kept(app).count(done)
    app.query_one(PromptEditor).load(text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: kept(app).count(done) > before, timeout=30, what=f"{text} done")
    await pilot.pause(0.1)


async def started(pilot: Any) -> None:
    await wait_until(pilot, lambda: pilot.app.desk.current.pi.ready and pilot.app.desk.current.pi.commands, timeout=30, what="pi start-up")


def assert_prompt_and_transcript_keep_their_room(app: PideckApp) -> None:
    height = app.screen.size.height
    editor = app.query_one(PromptEditor).region
    assert editor.height >= 3 and editor.bottom <= height - 2, f"the prompt is off the screen: {editor}"
    assert app.query_one(Transcript).region.height >= 10


async def test_widgets_are_capped_alone_and_together(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    app = make_app(pi_harness)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot)
        await run_command(pilot, "/flood-widgets 1 60", "widgets=done")
        (widget,) = app.query("#widgets-above .extension-widget")
        shown = str(widget.render()).split("\n")
        assert shown == [f"w0 line {n}" for n in range(10)] + ["… 50 more lines"]  # pi's MAX_WIDGET_LINES
        assert widget.region.height == 11 and app.query_one("#widgets-above").region.height == 11
        assert_prompt_and_transcript_keep_their_room(app)

        await run_command(pilot, "/flood-widgets 100 1000", "widgets=done")
        await run_command(pilot, "/flood-widgets 100 1000 below", "widgets=done")
        await pilot.pause(0.2)
        assert len(app.query(".extension-widget")) <= 2 * 51  # the rest summed up in "… N more widgets"
        assert "… 50 more widgets" in str(app.query("#widgets-below .extension-widget").last().render())
        assert_prompt_and_transcript_keep_their_room(app)
        conversation = app.query_one("#conversation").region.height
        widgets = app.query_one("#widgets-above").region.height + app.query_one("#widgets-below").region.height
        assert widgets <= conversation // 2


async def test_a_thousand_notifies_keep_a_few_toasts_and_f8_lists_them(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await started(pilot)
        most = 0

        def toasts() -> list[Toast]:
            nonlocal most
            shown = [toast for toast in app.screen.query(Toast) if toast.display]  # not those being removed
            most = max(most, len(shown))
            return shown

        def summary() -> list[Toast]:
            return [toast for toast in toasts() if "more notification" in toast._notification.message]

        app.query_one(PromptEditor).load("/flood-notify 1000")
        await pilot.press("enter")
        await wait_until(pilot, lambda: toasts() and "flood=done" in kept(app), timeout=30, what="the flood")
        await wait_until(pilot, lambda: summary() or most > MAX_TOASTS + 1, what="the +N more toast")
        assert most <= MAX_TOASTS + 1, f"{most} toasts at once"
        assert "F8 or /notifications" in summary()[0]._notification.message
        assert app.toasts.center.total == 1001 and len(kept(app)) == MAX_ENTRIES

        await pilot.press("x")  # keys still go to the prompt
        await wait_until(pilot, lambda: app.query_one(PromptEditor).text == "x", what="the key")
        await pilot.press("f8")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, NotificationList) else None,
                                  what="the list")
        await pilot.pause(0.1)
        assert len(picker.rows) == MAX_ENTRIES and "flood=done" in picker.rows[0].prompt.plain
        await pilot.press("down", "enter")  # the newest but one: note 999
        await wait_until(pilot, lambda: isinstance(app.screen, ToolOutputScreen), what="the full text")
        assert app.screen.query_one(LargeTextView).rows == ["note 999"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, NotificationList), what="back to the list")
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(app.screen_stack) == 1, what="the list closed")


async def test_a_megabyte_notify_is_a_short_toast_and_whole_in_the_list(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await started(pilot)
        await run_command(pilot, "/flood-notify 1 1000000", "flood=done")
        assert len(kept(app)[-2]) == 1_000_000
        toast = await wait_until(pilot, lambda: [t for t in app.screen.query(Toast)
                                                 if t._notification.message.startswith("note 0x")], what="the toast")
        await pilot.pause(0.1)
        assert len(toast[0]._notification.message) < TOAST_CHARS + 80
        assert toast[0].region.height <= 12
