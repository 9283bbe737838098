"""widgets.screens.dialogs: keyboard answers, cancel, timeout, literal markup, long options, 80×24 snapshots;
and, over a fake pi, answers only from keys pressed on purpose, dialogs pideck cannot show and dialogs
that wait their turn."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.app.test_sessions import open_second, two_fakes
from tests.pi_harness import Fake, burst, option_text, ui, wait_until
from tests.screen_app import ScreenApp
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

import widgets.screens.dialogs as dialogs
from protocol.wire.commands import ExtensionUIResponse
from protocol.wire.extension_ui import (
    ConfirmRequest,
    DialogRequest,
    EditorRequest,
    InputRequest,
    SelectRequest,
)
from widgets.engine.key_events import key_clock
from widgets.screens.on_purpose import BURST
from widgets.screens.pickers import ChoicePicker
from widgets.screens.dialogs import (
    ConfirmDialog,
    EditorDialog,
    ExtensionDialog,
    InputDialog,
    SelectDialog,
    dialog_for,
)

SELECT = SelectRequest(id="s1", title="Allow dangerous command?", options=["Allow", "Block", "Ask later"])
CONFIRM = ConfirmRequest(id="c1", title="Clear session?", message="All messages will be lost.")
INPUT = InputRequest(id="i1", title="Enter a value", placeholder="type something...")
EDITOR = EditorRequest(id="e1", title="Edit some text", prefill="Line 1\nLine 2\nLine 3")
MARKUP = "[bold]x[/] [@click=app.boom]y[/]"


class DialogApp(ScreenApp):
    """Shows one dialog; `booms` counts runs of `app.boom`, the action MARKUP would click."""

    def __init__(self, dialog: ExtensionDialog) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        self.booms = 0

    def action_boom(self) -> None:
        self.booms += 1


async def taking_keys(pilot: Pilot[Any], dialog: ExtensionDialog) -> None:
    """Until a key pressed may answer `dialog` (not within its first 0.3 s, on_purpose.py)."""
    await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")


async def answered(pilot: Pilot[Any], app: DialogApp) -> list[ExtensionUIResponse | None]:
    await wait_until(pilot, lambda: app.results and app.screen is not app.dialog, what="the answer")
    return app.results


async def answer(request: DialogRequest, *keys: str) -> list[ExtensionUIResponse | None]:
    """Open the dialog for `request`, press `keys` once it takes them, return the recorded results."""
    app = DialogApp(dialog_for(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await taking_keys(pilot, app.dialog)
        await pilot.press(*keys)
        return await answered(pilot, app)


def test_dialog_for_maps_each_request() -> None:
    assert type(dialog_for(SELECT)) is SelectDialog
    assert type(dialog_for(CONFIRM)) is ConfirmDialog
    assert type(dialog_for(INPUT)) is InputDialog
    assert type(dialog_for(EDITOR)) is EditorDialog


async def test_select_by_arrows_and_enter() -> None:
    assert await answer(SELECT, "down", "down", "up", "enter") == [
        ExtensionUIResponse(id="s1", value="Block")
    ]


async def test_select_returns_option_as_sent() -> None:
    request = SelectRequest(id="s2", title="t", options=["\x1b[31mred\x1b[0m", "plain"])
    assert await answer(request, "enter") == [ExtensionUIResponse(id="s2", value="\x1b[31mred\x1b[0m")]


@pytest.mark.parametrize(("key", "confirmed"), [("y", True), ("n", False)])
async def test_confirm_keys(key: str, confirmed: bool) -> None:
    assert await answer(CONFIRM, key) == [ExtensionUIResponse(id="c1", confirmed=confirmed)]


async def test_confirm_enter_on_default_focus_is_no() -> None:
    assert await answer(CONFIRM, "enter") == [ExtensionUIResponse(id="c1", confirmed=False)]


async def test_confirm_yes_button_by_tab() -> None:
    assert await answer(CONFIRM, "shift+tab", "enter") == [ExtensionUIResponse(id="c1", confirmed=True)]


async def test_input_text_and_enter() -> None:
    assert await answer(INPUT, *"hi there", "enter") == [ExtensionUIResponse(id="i1", value="hi there")]


async def test_editor_multiline_and_ctrl_s() -> None:
    request = EditorRequest(id="e2", title="Edit")
    results = await answer(request, *"one", "enter", *"two", "ctrl+s")
    assert results == [ExtensionUIResponse(id="e2", value="one\ntwo")]


async def test_editor_keeps_prefill_and_submit_button() -> None:
    app = DialogApp(dialog_for(EDITOR))
    async with app.run_test(size=(80, 24)) as pilot:
        await taking_keys(pilot, app.dialog)
        await pilot.press("end", "!")
        await pilot.click("#submit")
        await answered(pilot, app)
    assert app.results == [ExtensionUIResponse(id="e1", value="Line 1!\nLine 2\nLine 3")]


@pytest.mark.parametrize("request_", [SELECT, CONFIRM, INPUT, EDITOR], ids=lambda r: type(r).__name__)
async def test_escape_cancels(request_: DialogRequest) -> None:
    assert await answer(request_, "escape") == [ExtensionUIResponse(id=request_.id, cancelled=True)]


@pytest.mark.parametrize("request_", [SELECT, CONFIRM, INPUT, EDITOR], ids=lambda r: type(r).__name__)
async def test_timeout_dismisses_with_none(request_: DialogRequest) -> None:
    app = DialogApp(dialog_for(type(request_)(id="t", title="soon", timeout=300)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.results, what="the dialog's timeout")
        assert app.results == [None]
        await wait_until(pilot, lambda: app.screen is not app.dialog, what="the dialog gone")


async def test_countdown_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each tick shows the whole seconds left, rounded up (on a clock of the test's, so a
    loaded machine that runs the tick late does not skip a count)."""
    now = [1000.0]
    monkeypatch.setattr(dialogs, "monotonic", lambda: now[0])
    app = DialogApp(dialog_for(SelectRequest(id="t", title="t", options=["a"], timeout=60500)))
    async with app.run_test(size=(80, 24)) as pilot:
        countdown = app.dialog.query_one("#countdown", Static)
        await wait_until(pilot, lambda: str(countdown.content) == "closes in 61s", what=f"61s, not {countdown.content}")
        now[0] += 1.2
        await wait_until(pilot, lambda: str(countdown.content) == "closes in 60s", what=f"the tick, not {countdown.content}")
        assert app.results == []


async def test_no_countdown_without_timeout() -> None:
    app = DialogApp(dialog_for(SELECT))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert str(app.dialog.query_one("#countdown", Static).content) == ""


async def test_timeout_under_another_screen_closes_on_return() -> None:
    app = DialogApp(dialog_for(SelectRequest(id="t", title="t", options=["a"], timeout=3000)))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(Screen())
        await wait_until(pilot, lambda: app.dialog._expired, what="the dialog's time to run out")
        await pilot.pause()
        assert app.results == []
        app.pop_screen()
        await pilot.pause()
        assert app.results == [None]
        assert app.screen is not app.dialog


async def test_answer_then_timeout_sends_only_the_answer() -> None:
    app = DialogApp(dialog_for(SelectRequest(id="t", title="t", options=["a"], timeout=1000)))
    async with app.run_test(size=(80, 24)) as pilot:
        await taking_keys(pilot, app.dialog)
        await pilot.press("enter")
        await pilot.pause(1.3)
    assert app.results == [ExtensionUIResponse(id="t", value="a")]


async def test_long_text_scrolls_and_takes_focus_only_when_it_overflows() -> None:
    long = "\n".join(f"line {i}" for i in range(20))
    app = DialogApp(dialog_for(ConfirmRequest(id="c", title="short", message=long)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.dialog.query_one("#title").focusable
        await pilot.press("tab")  # from "No" past the end, wrapping to the message
        assert app.focused is app.dialog.query_one("#message")
        await pilot.press("end")
        await pilot.pause()
        assert app.dialog.query_one("#message").scroll_y > 0


async def test_markup_in_request_text_is_literal() -> None:
    request = SelectRequest(id="m", title=MARKUP, options=[MARKUP, "other"])
    app = DialogApp(dialog_for(request))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.dialog.query_one("#title Static", Static).visual.plain == MARKUP
        assert option_text(app.dialog.query_one(OptionList), 0) == MARKUP
        await taking_keys(pilot, app.dialog)
        for column in (2, 28):  # where "y" is if parsed as markup, and where it is literally
            await pilot.click("#title Static", offset=(column, 0))
        await pilot.click(OptionList, offset=(4, 1))  # the first option
        await answered(pilot, app)
    assert app.booms == 0
    assert app.results == [ExtensionUIResponse(id="m", value=MARKUP)]


async def test_long_options_take_one_line_but_the_highlighted_one() -> None:
    """Options of 10,000 characters: one line each, cut with "…"; the highlighted one whole."""
    long = [f"option {i} " + "word " * 2000 for i in range(3)]
    app = DialogApp(dialog_for(SelectRequest(id="l", title="t", options=[*long, "short\nsecond line"])))
    async with app.run_test(size=(80, 24)) as pilot:
        options = app.dialog.query_one(OptionList)

        def heights() -> list[int]:
            return [options._heights[i] for i in range(options.option_count)]

        await wait_until(pilot, lambda: heights()[0] > 100, what="the highlighted option whole")
        assert heights()[1:] == [1, 1, 1]
        assert options.render_line(0).text.startswith("option 0 word")
        line = options.render_line(heights()[0]).text.rstrip()  # the second option
        assert line.startswith("option 1 word") and line.endswith("…")
        await pilot.press("down", "down", "down")
        await wait_until(pilot, lambda: heights() == [1, 1, 1, 2], what="only the last one whole")
        assert option_text(options, 3) == "short\nsecond line" and len(option_text(options, 0)) == dialogs.ONE_LINE_CHARS
        await taking_keys(pilot, app.dialog)
        await pilot.press("enter")
        await answered(pilot, app)
    assert app.results == [ExtensionUIResponse(id="l", value="short\nsecond line")]


async def test_picker_rows_take_one_line() -> None:
    app = ScreenApp(ChoicePicker("Pick", ["x" * 300, "short"]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert options.virtual_size.height == 2
        assert options.render_line(0).text.rstrip().endswith("…")


async def test_markup_in_confirm_and_input_is_literal() -> None:
    app = DialogApp(dialog_for(ConfirmRequest(id="m", title="t", message=MARKUP)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        message = app.dialog.query_one("#message Static", Static)
        assert message.visual.plain == MARKUP
        for column in (2, 28):
            await pilot.click(message, offset=(column, 0))
        assert app.booms == 0
    app = DialogApp(dialog_for(InputRequest(id="m", title="t", placeholder=MARKUP)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.dialog.query_one(Input).placeholder == MARKUP


# SVG snapshots at 80×24 (snapshots/test_dialogs/). The select one has a timeout; its clock is
# frozen so the countdown stays at 10s.


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dialogs, "monotonic", lambda: 1000.0)


async def no_blink(pilot: Pilot[Any]) -> None:
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


def test_snapshot_select_dialog(snap_compare: Any, frozen_clock: None) -> None:
    request = SelectRequest(id="s", title=SELECT.title, options=SELECT.options, timeout=10000)
    assert snap_compare(DialogApp(dialog_for(request)), press=["down"], terminal_size=(80, 24))


def test_snapshot_confirm_dialog(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(dialog_for(CONFIRM)), terminal_size=(80, 24))


def test_snapshot_input_dialog(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(dialog_for(INPUT)), run_before=no_blink, terminal_size=(80, 24))


def test_snapshot_editor_dialog(snap_compare: Any) -> None:
    assert snap_compare(DialogApp(dialog_for(EDITOR)), run_before=no_blink, terminal_size=(80, 24))


# --- pideck over a fake pi: requests pideck cannot show, dialogs that wait their turn ----------


def toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


def ignored(dialog: ExtensionDialog) -> str:
    """The line that says a key was ignored ("" while it is hidden)."""
    line = dialog.query_one("#ignored", Static)
    return str(line.render()) if line.display else ""


@pytest.mark.parametrize(("request_", "typed_on", "key", "said", "answer"), [
    (ui("confirm", "q", title="Allow `rm -rf build`?", message="It runs if you say yes."), "try it", "y",
     "y was ignored", {"confirmed": True}),
    (ui("select", "q", title="Allow?", options=["Allow", "Block"]), "ok", "enter", "Enter was ignored", {"value": "Allow"}),
    (ui("input", "q", title="Why?"), "no reason", "enter", "Enter was ignored", {"value": "no reason"}),
    (ui("editor", "q", title="The commit message"), "done", "ctrl+s", "Ctrl+S was ignored", {"value": "done"}),
], ids=["confirm", "select", "input", "editor"])
async def test_keys_typed_on_as_an_extensions_question_opens_answer_nothing(
        tmp_path: Path, request_: dict[str, Any], typed_on: str, key: str, said: str, answer: dict[str, Any]) -> None:
    """The text and the key that answers, typed on in one burst as the question opens: the
    key is ignored, and the dialog says so; text typed into a field stays there. The key
    pressed on its own, once the question has been up a while, answers."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(request_)
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, ExtensionDialog) and app.screen, what="the dialog")
        burst(app, *typed_on, key)
        await wait_until(pilot, lambda: said in ignored(dialog), what="the key ignored, and said")
        await pilot.pause()
        assert app.screen is dialog and not fake.commands("extension_ui_response")
        await taking_keys(pilot, dialog)
        await pilot.press(key)
        answers = await wait_until(pilot, lambda: fake.commands("extension_ui_response"), what="the answer")
        assert answers == [{"type": "extension_ui_response", "id": "q", **answer}]


async def test_a_key_typed_on_as_the_session_of_a_question_is_shown_again_answers_nothing(tmp_path: Path) -> None:
    """A question up a while in session 2; session 1 shown, then session 2 again, and a `y`
    typed on right after Alt+2 (not in one burst with it): the question takes keys from when
    it is shown again, so the y is ignored."""
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        second.inject(ui("confirm", "c-1", title="Allow `rm -rf build`?", message="It runs if you say yes."))
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen, what="the question")
        await taking_keys(pilot, dialog)
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: app.screen is app.desk.slots[0].main, what="session 1 shown")
        pressed = key_clock()
        for key, character, at in (("alt+2", None, pressed), ("y", "y", pressed + 2 * BURST)):
            event = events.Key(key, character)  # the y pressed 2 BURST after Alt+2: not one burst with it, and
            event.time = at  # before the question is drawn again or well within SETTLE of it, however loaded
            event.set_sender(app)
            app.post_message(event)
        await wait_until(pilot, lambda: "y was ignored" in ignored(dialog), what="the y ignored, and said")
        await pilot.pause()
        assert app.screen is dialog and not second.commands("extension_ui_response")
        await taking_keys(pilot, dialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: second.commands("extension_ui_response"), what="the answer")


async def test_dialog_pideck_cannot_show_is_cancelled_and_explained(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(ui("select", "bad-1", title={"text": "not text"}, options=["a"]),
                    ui("confirm", "ok-2", title="Still asked", message=7))
        answers = await wait_until(pilot, lambda: fake.commands("extension_ui_response"), what="cancel")
        assert answers == [{"type": "extension_ui_response", "id": "bad-1", "cancelled": True}]
        note = await wait_until(pilot, lambda: [t for t in toasts(app) if "cancelled" in t], what="toast")
        assert note == ["An extension's select dialog could not be shown, so pideck cancelled it: "
                        "Expected `bool | int | float | str | null`, got `object` - at `$.title`"]
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen, what="confirm")
        message = await wait_until(pilot, lambda: dialog.query("#message Static"), what="message")
        assert message.first(Static).visual.plain == "7"
        assert app.desk.current.pi.model.protocol_errors == 0


async def test_dialog_timeout_counts_from_when_pi_sent_it(tmp_path: Path) -> None:
    """Three dialogs at once: "first" (no timeout) is answered after "soon" (1.5 s) ran out
    and before "later" (30 s) did: "soon" is reported, never shown; "later" shows the time
    it has left, not its whole timeout."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        sent = time.monotonic()
        fake.inject(ui("confirm", "first", title="First", message="m"),
                    ui("confirm", "soon", title="Soon", message="m", timeout=1500),
                    ui("confirm", "later", title="Later", message="m", timeout=30000))
        first = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen, what="first")
        assert first.request.id == "first"
        await wait_until(pilot, lambda: time.monotonic() > sent + 3.5, what="time to pass")
        await pilot.press("y")
        later = await wait_until(pilot, lambda: app.screen is not first and isinstance(app.screen, ConfirmDialog)
                                 and app.screen, what="the next dialog")
        assert later.request.id == "later"
        countdown = str(later.query_one("#countdown", Static).content)
        assert countdown.startswith("closes in ") and int(countdown.split()[2].rstrip("s")) <= 27, countdown
        assert [t for t in toasts(app) if "timed out" in t] == [
            "An extension's confirm dialog “Soon” timed out before pideck could show it; pi went on without an answer"
        ]
        await taking_keys(pilot, later)
        await pilot.press("n")
        answers = await wait_until(pilot, lambda: len(fake.commands("extension_ui_response")) == 2 and
                                   fake.commands("extension_ui_response"), what="answers")
        assert [a["id"] for a in answers] == ["first", "later"]


async def test_a_dialog_closes_when_pis_timer_runs_out_however_late_it_is_shown(tmp_path: Path) -> None:
    """pi's timer starts as it sends the request. pideck may show the request only after a
    flush that takes a while (a long reply): the dialog's time still runs from when the
    request was read, so it closes when pi gives up on it, not up to that flush later."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app

        def busy(record: Any) -> None:  # after the app's own listener: the UI is busy before it shows the record
            if isinstance(record, SelectRequest):
                time.sleep(1.2)

        app.desk.current.pi.client.add_listener(busy)
        fake.inject(ui("select", "late", title="Late", options=["a"], timeout=3000))
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog) and app.screen, what="the dialog")
        shown = await wait_until(pilot, lambda: next((str(c.content).split()[2:] for c in dialog.query("#countdown").results(Static)), []),
                                 what="the countdown shown")  # the dialog's mount sets it; it is the screen before it is composed
        left = int(shown[0].rstrip("s"))
        assert left <= 2, "1.2 s of its 3 s had gone before it was shown"
        await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog closed")
        assert not fake.commands("extension_ui_response"), "pi answered it itself"


async def test_the_prompt_keeps_its_height_after_a_dialog_of_a_session_not_shown(tmp_path: Path) -> None:
    """The dialogs' stylesheet is the dialogs' alone: its `#editor` (the editor dialog's text)
    made every prompt (also #editor) 8 rows tall once a session's screen was styled again
    after a dialog had been shown, e.g. the session that needs you shown for its dialog."""
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        await pilot.press("alt+1")
        second.inject(ui("confirm", "c-1", title="Deploy now?", message="It goes live."))
        await wait_until(pilot, lambda: any("asks a question" in t for t in toasts(app)), what="the needs-you toast")
        await pilot.press("alt+0")
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen,
                                  what="the dialog, its session shown")
        await taking_keys(pilot, dialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: second.commands("extension_ui_response"), what="the answer")
        editors = [slot.main.editor for slot in app.desk.slots]
        await wait_until(pilot, lambda: app.screen is app.desk.slots[1].main, what="the dialog gone")
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: app.screen is app.desk.slots[0].main, what="the first session shown")
        assert [editor.outer_size.height for editor in editors] == [3, 3], "an empty prompt: one row and its border"
