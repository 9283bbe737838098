"""Extension UI requests from the real pi, with tests/extensions/ui_everything.ts loaded
(and, for pideck over pi, tests/extensions/ui_odd_dialogs.ts).

The extension reports what each dialog returned with `notify("<method>=<json>")`
(`<undefined>` for undefined), so the test sees exactly what the extension observed.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.pi_harness import (
    EXTENSIONS_DIR,
    SIZE,
    UI_EVERYTHING,
    PiHarness,
    Recorder,
    fresh_session,
    option_text,
    press_alone,
    question,
    wait_until,
)
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply
from protocol.wire.client import RpcClient
from protocol.wire.commands import ExtensionUIResponse, GetCommands, GetState, Prompt
from protocol.wire.events import AgentSettled, MessageUpdate, TextDelta
from protocol.wire.extension_ui import (
    DIALOG_REQUESTS,
    ConfirmRequest,
    EditorRequest,
    InputRequest,
    NotifyRequest,
    SelectRequest,
    SetEditorTextRequest,
    SetStatusRequest,
    SetTitleRequest,
    SetWidgetRequest,
    UIRequest,
)
from protocol.wire.responses import Disposition
from widgets.screens.dialogs import ConfirmDialog, InputDialog, SelectDialog
from widgets.prompt.editor import PromptEditor

pytestmark = pytest.mark.pi

UNDEFINED = object()
UI_ODD_DIALOGS = EXTENSIONS_DIR / "ui_odd_dialogs.ts"


@pytest.fixture(scope="module")
async def ui_pi_child(pi_harness: PiHarness) -> AsyncIterator[RpcClient]:
    client = await pi_harness.start_client(extensions=[UI_EVERYTHING])
    try:
        yield client
    finally:
        await pi_harness.close_client(client)


@pytest.fixture
async def ui_pi(ui_pi_child: RpcClient, pi_harness: PiHarness) -> RpcClient:
    await fresh_session(ui_pi_child)
    pi_harness.reset_model()
    return ui_pi_child


def reported(notify: NotifyRequest, name: str) -> Any:
    """The value the extension reported as `name=<json>`."""
    key, _, value = notify.message.partition("=")
    assert key == name, f"expected a {name}= report, got {notify.message!r}"
    return UNDEFINED if value == "<undefined>" else json.loads(value)


async def next_report(rec: Recorder, start: int) -> tuple[NotifyRequest, int]:
    index = await rec.wait_index(lambda r: isinstance(r, NotifyRequest) and "=" in r.message, start=start)
    return rec.records[index], index + 1


async def test_extension_commands_are_listed(ui_pi: RpcClient) -> None:
    commands = await ui_pi.call(GetCommands())
    ours = {c.name: c for c in commands.commands if c.source_info and c.source_info.path == str(UI_EVERYTHING)}
    assert set(ours) == {"ui-dialogs", "ui-fire", "ui-timeout"}
    assert all(c.source == "extension" for c in ours.values())


async def test_dialogs_get_exactly_the_answers_sent(ui_pi: RpcClient) -> None:
    with Recorder(ui_pi) as rec:
        prompt = asyncio.create_task(ui_pi.call(Prompt(message="/ui-dialogs")))
        cursor = 0

        select = await rec.wait_for(SelectRequest)
        assert select.title == "Pick a colour" and select.options == ["red", "green", "blue"]
        assert select.timeout is None and select.id
        assert not prompt.done(), "the command is still waiting for the dialog"
        await ui_pi.send(ExtensionUIResponse(id=select.id, value="green"))
        notify, cursor = await next_report(rec, cursor)
        assert reported(notify, "select") == "green"

        confirm = await rec.wait_for(ConfirmRequest, start=cursor)
        assert confirm.title == "Proceed?" and confirm.message == "Really proceed with the test?"
        await ui_pi.send(ExtensionUIResponse(id=confirm.id, confirmed=True))
        notify, cursor = await next_report(rec, cursor)
        assert reported(notify, "confirm") is True

        ask = await rec.wait_for(InputRequest, start=cursor)
        assert ask.title == "Your name" and ask.placeholder == "type a name"
        await ui_pi.send(ExtensionUIResponse(id=ask.id, value="Ada \u2028 Lovelace 😀"))
        notify, cursor = await next_report(rec, cursor)
        assert reported(notify, "input") == "Ada \u2028 Lovelace 😀"

        editor = await rec.wait_for(EditorRequest, start=cursor)
        assert editor.title == "Edit the text" and editor.prefill == "line one\nline two"
        await ui_pi.send(ExtensionUIResponse(id=editor.id, value="edited\nby the test\n"))
        notify, cursor = await next_report(rec, cursor)
        assert reported(notify, "editor") == "edited\nby the test\n"

        assert await asyncio.wait_for(prompt, 10) == Disposition(disposition="handled")

    dialogs = [r for r in rec.records if isinstance(r, DIALOG_REQUESTS)]
    assert [type(d) for d in dialogs] == [SelectRequest, ConfirmRequest, InputRequest, EditorRequest]
    assert len({d.id for d in dialogs}) == 4
    assert all(r.notify_type == "info" for r in rec.of_type(NotifyRequest))


async def test_dialogs_cancelled_or_declined(ui_pi: RpcClient) -> None:
    with Recorder(ui_pi) as rec:
        prompt = asyncio.create_task(ui_pi.call(Prompt(message="/ui-dialogs")))
        cursor = 0
        expected = {"select": UNDEFINED, "confirm": False, "input": UNDEFINED, "editor": UNDEFINED}
        for kind, name in ((SelectRequest, "select"), (ConfirmRequest, "confirm"),
                           (InputRequest, "input"), (EditorRequest, "editor")):
            request = await rec.wait_for(kind, start=cursor)
            answer = (ExtensionUIResponse(id=request.id, confirmed=False) if name == "confirm"
                      else ExtensionUIResponse(id=request.id, cancelled=True))
            await ui_pi.send(answer)
            notify, cursor = await next_report(rec, cursor)
            value = reported(notify, name)
            assert value is expected[name], f"{name}: {value!r}"
        assert (await asyncio.wait_for(prompt, 10)).disposition == "handled"


async def test_cancelled_confirm_is_false(ui_pi: RpcClient) -> None:
    with Recorder(ui_pi) as rec:
        prompt = asyncio.create_task(ui_pi.call(Prompt(message="/ui-dialogs")))
        select = await rec.wait_for(SelectRequest)
        await ui_pi.send(ExtensionUIResponse(id=select.id, value="blue"))
        confirm = await rec.wait_for(ConfirmRequest)
        await ui_pi.send(ExtensionUIResponse(id=confirm.id, cancelled=True))
        notify = await rec.wait_for(lambda r: isinstance(r, NotifyRequest) and r.message.startswith("confirm="))
        assert reported(notify, "confirm") is False
        for kind in (InputRequest, EditorRequest):
            request = await rec.wait_for(kind)
            await ui_pi.send(ExtensionUIResponse(id=request.id, cancelled=True))
        await asyncio.wait_for(prompt, 10)


async def test_fire_and_forget_requests_arrive_typed(ui_pi: RpcClient) -> None:
    with Recorder(ui_pi) as rec:
        assert (await ui_pi.call(Prompt(message="/ui-fire"))).disposition == "handled"
    ui = [r for r in rec.records if isinstance(r, UIRequest)]
    assert all(r.id for r in ui) and len({r.id for r in ui}) == len(ui)
    stripped = [msgspec.structs.replace(r, id="") for r in ui]
    assert stripped == [
        NotifyRequest(message="note info", notify_type="info"),
        NotifyRequest(message="note warning", notify_type="warning"),
        NotifyRequest(message="note error", notify_type="error"),
        SetStatusRequest(status_key="ui-test", status_text="status on"),
        SetStatusRequest(status_key="ui-test", status_text=None),
        SetWidgetRequest(widget_key="ui-above", widget_lines=["above 1", "above 2"], widget_placement="aboveEditor"),
        SetWidgetRequest(widget_key="ui-below", widget_lines=["below 1"], widget_placement="belowEditor"),
        SetWidgetRequest(widget_key="ui-above", widget_lines=None),
        SetTitleRequest(title="pideck ui test"),
        SetEditorTextRequest(text="text from the extension"),
        NotifyRequest(message="fire=done", notify_type="info"),
    ]
    assert not any(isinstance(r, DIALOG_REQUESTS) for r in rec.records)


async def test_timed_dialogs_resolve_in_pi_when_unanswered(ui_pi: RpcClient) -> None:
    loop = asyncio.get_running_loop()
    with Recorder(ui_pi) as rec:
        started = loop.time()
        disposition = await ui_pi.call(Prompt(message="/ui-timeout 150"), timeout=20)
        elapsed = loop.time() - started
    assert disposition.disposition == "handled"
    dialogs = [r for r in rec.records if isinstance(r, DIALOG_REQUESTS)]
    assert [type(d) for d in dialogs] == [SelectRequest, ConfirmRequest, InputRequest]
    assert all(d.timeout == 150 for d in dialogs)
    reports = {n.message.partition("=")[0]: n for n in rec.of_type(NotifyRequest)}
    assert reported(reports["timeout-select"], "timeout-select") is UNDEFINED
    assert reported(reports["timeout-confirm"], "timeout-confirm") is False
    assert reported(reports["timeout-input"], "timeout-input") is UNDEFINED
    assert elapsed >= 0.45, "each dialog waited for its timeout"

    # A late answer to a dialog pi already resolved is ignored; pi keeps working.
    await ui_pi.send(ExtensionUIResponse(id=dialogs[0].id, value="a"))
    assert (await ui_pi.call(GetState())).is_streaming is False


async def test_dialog_during_a_run_does_not_block_events(ui_pi: RpcClient, pi_harness: PiHarness) -> None:
    """An extension command runs at once even while a reply streams; both go on together."""
    pi_harness.model.queue(Reply(text="r" * 30, chunk_chars=2, delay=0.03))
    with Recorder(ui_pi) as rec:
        await ui_pi.call(Prompt(message="stream while a dialog is open"))
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))
        command = asyncio.create_task(ui_pi.call(Prompt(message="/ui-dialogs")))
        select = await rec.wait_for(SelectRequest)
        settled_at = await rec.wait_index(AgentSettled)
        assert settled_at > rec.records.index(select), "the run finished while the dialog was open"
        await ui_pi.send(ExtensionUIResponse(id=select.id, cancelled=True))
        for kind in (ConfirmRequest, InputRequest, EditorRequest):
            request = await rec.wait_for(kind)
            await ui_pi.send(ExtensionUIResponse(id=request.id, cancelled=True))
        assert (await asyncio.wait_for(command, 10)).disposition == "handled"


# --- pideck over pi, with tests/extensions/ui_odd_dialogs.ts -----------------------------------


def app_notes(app: PideckApp) -> list[str]:
    """Every notification, shown or waiting for the question on screen to close (app/toasts.py)."""
    return [str(n.message) for n in app.toasts.center.entries]


def app_report(app: PideckApp, name: str) -> Any:
    """What the extension reported as `name=<json>` (a toast), or None while it has not."""
    for note in app_notes(app):
        key, _, value = note.partition("=")
        if key == name:
            return UNDEFINED if value == "<undefined>" else json.loads(value)
    return None


async def start_odd_app(pilot: Pilot[Any], command: str) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.commands, timeout=30, what="pi start-up")
    app.query_one(PromptEditor).load(command)
    await pilot.pause()
    await pilot.press("enter")


async def test_dialog_with_numbers_and_nulls_is_shown_and_answered(pi_harness: PiHarness) -> None:
    """select(null, [1, 2, null, "x"], {timeout: 60000.5}) and input(title, 42): pi sends them
    as they are; pideck shows them as text and answers with the option as sent."""
    app = PideckApp(pi_harness.launch_config(extensions=[UI_ODD_DIALOGS]))
    async with app.run_test(size=SIZE) as pilot:
        await start_odd_app(pilot, "/odd-dialogs")
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog) and app.screen, what="select dialog")
        options = (await wait_until(pilot, lambda: dialog.query(OptionList), what="options")).first(OptionList)
        assert [option_text(options, i) for i in range(4)] == ["1", "2", "null", "x"]
        assert dialog.query_one("#title Static", Static).visual.plain == ""
        countdown = str(dialog.query_one("#countdown", Static).content)  # counted from when pi sent it
        left = countdown.removeprefix("closes in ").removesuffix("s")
        assert dialog.request.timeout == 60000.5 and left.isdigit() and 0 < int(left) <= 60, countdown
        assert app.desk.current.pi.model.protocol_errors == 0
        await question(pilot, SelectDialog)
        await pilot.press("down")
        await press_alone(pilot, "enter")
        assert await wait_until(pilot, lambda: app_report(app, "odd-select"), what="select answer") == 2
        dialog = await wait_until(pilot, lambda: isinstance(app.screen, InputDialog) and app.screen, what="input dialog")
        field = (await wait_until(pilot, lambda: dialog.query(Input), what="input field")).first(Input)
        assert field.placeholder == "42"
        await question(pilot, InputDialog)
        await pilot.press("o", "k")
        await press_alone(pilot, "enter")
        assert await wait_until(pilot, lambda: app_report(app, "odd-input"), what="input answer") == "ok"


async def test_dialog_that_timed_out_while_queued_is_not_shown(pi_harness: PiHarness) -> None:
    """Two confirms at once, the second with a timeout: it runs out while the first is open
    (pi answers it false); answering the first must not offer the second."""
    app = PideckApp(pi_harness.launch_config(extensions=[UI_ODD_DIALOGS]))
    async with app.run_test(size=SIZE) as pilot:
        await start_odd_app(pilot, "/two-confirms 1500")
        first = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen, what="first")
        assert first.request.title == "First"
        assert await wait_until(pilot, lambda: app_report(app, "second") is False, what="pi's own answer")
        assert app.screen is first
        await pilot.press("y")
        assert await wait_until(pilot, lambda: app_report(app, "first"), what="first answer") is True
        await wait_until(pilot, lambda: any("timed out" in n for n in app_notes(app)), what=f"timed-out toast {app_notes(app)} {app.screen}")
        assert not isinstance(app.screen, ConfirmDialog)
        assert [n for n in app_notes(app) if "timed out" in n] == [
            "An extension's confirm dialog “Second” timed out before pideck could show it; pi went on without an answer"
        ]



@pytest.mark.parametrize("answered_after", [3.6, 4.0])
@pytest.mark.parametrize("held", [True, False], ids=["held", "not held"])
async def test_a_timed_dialog_queued_behind_another_counts_down_from_when_pi_asked(
        pi_harness: PiHarness, holder_runtime: Path, held: bool, answered_after: float) -> None:
    """Two 5 s confirms at once, the first answered late: the second, if there is time left
    to show it, counts down what pi leaves of its 5 s and closes when pi answers it itself;
    else it is said to have timed out (it showed with no countdown and stayed open 2 s after
    pi had answered it false)."""
    config = pi_harness.launch_config(extensions=[UI_ODD_DIALOGS], env={"XDG_RUNTIME_DIR": str(holder_runtime)})
    app = PideckApp(replace(config, hold=held))
    async with app.run_test(size=SIZE) as pilot:
        await start_odd_app(pilot, "/two-timed-confirms 5000")
        first = await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog) and app.screen, what="A")
        assert first.request.title == "A" and first._deadline is not None
        asked = first._deadline - 5.0  # (when pideck read pi's request)
        await pilot.pause(max(0.0, asked + answered_after - time.monotonic()))  # a person answering late
        await pilot.press("y")
        await wait_until(pilot, lambda: app_report(app, "A") is not None, what="A's answer")
        countdowns: list[str] = []

        def b_answered() -> bool:
            screen = app.screen
            if isinstance(screen, ConfirmDialog) and screen.request.title == "B" and screen.query("#countdown"):
                countdowns.append(str(screen.query_one("#countdown", Static).content))
            return app_report(app, "B") is not None

        await wait_until(pilot, b_answered, what="pi's own answer to B")
        if app_report(app, "A") is False:  # pi gave up on A before the y came (a loaded machine): it answered B
            return
        assert app_report(app, "B") is False
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmDialog), timeout=0.5,
                         what="B closed as pi answered it")  # (its timer ran out with pi's, read a little later)
        if countdowns:
            assert set(countdowns) <= {"closes in 2s", "closes in 1s", "closes in 0s"}, countdowns
        else:
            await wait_until(pilot, lambda: any("“B” timed out before pideck could show it" in n for n in app_notes(app)),
                             what="the note that B timed out")
