"""pideck's model, thinking, queue-mode, compaction, retry, export, copy, info commands,
their keys and the command palette, driven through the app against the REAL pi.

One app (and its pi child) serves the whole module, to keep it fast: the `deck`
fixture starts it on an agent dir of its own (settings changed here stay here: a
small `keepRecentTokens` so a short session can be compacted, slow retries so one
can be aborted while it waits) with sessions saved (export needs a session file).
`pilot` gives each test a new session, the default model, thinking level and modes.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import (
    DEFAULT_SETTINGS,
    SIZE,
    PiHarness,
    notes,
    quiesce,
    send,
    started,
    stats_text,
    transcript_text,
    wait_until,
)
from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.widgets import OptionList, Static

from app.hotkeys_table import key_label
from app.pideck_app import PideckApp
from app.runtime import PiRuntime
from app.scripted_model.agent_dir import MODEL_ID, PROVIDER
from app.scripted_model.server import Reply, ScriptedModel
from protocol.wire.commands import GetState, NewSession, SetFollowUpMode, SetModel, SetSteeringMode, SetThinkingLevel
from widgets.screens.info_screen import InfoScreen
from protocol.state.notification_center import NotificationCenter
from widgets.screens.pickers import ChoicePicker, ModelPicker
from widgets.prompt.editor import PromptEditor

pytestmark = pytest.mark.pi

MINI = MODEL_ID + "-mini"
SETTINGS = {**DEFAULT_SETTINGS, "compaction": {"keepRecentTokens": 1}, "retry": {"baseDelayMs": 30_000}}


@pytest.fixture(scope="module")
async def deck_harness(
    pi_runtime: PiRuntime, scripted_model: ScriptedModel, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[PiHarness]:
    harness = PiHarness(tmp_path_factory.mktemp("deck"), model=scripted_model, runtime=pi_runtime, settings=SETTINGS)
    try:
        yield harness
    finally:
        await harness.close()


@pytest.fixture(scope="module")
async def deck(deck_harness: PiHarness) -> AsyncIterator[Any]:
    app = PideckApp(deck_harness.launch_config(session_dir=deck_harness.root / "sessions"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        yield pilot
        await quiesce(pilot)


@pytest.fixture
async def pilot(deck: Any, deck_harness: PiHarness) -> Any:
    """The shared app on a fresh session, with the default model, thinking level and modes."""
    app: PideckApp = deck.app
    while app.screen.is_modal:
        app.pop_screen()
    await wait_until(deck, lambda: not app.desk.current.pi.model.running and app.desk.current.pi.model.compaction is None, what="idle app")
    client = app.desk.current.pi.client
    await client.call(NewSession())
    await client.call(SetModel(provider=PROVIDER, model_id=MODEL_ID))
    await client.call(SetThinkingLevel(level="medium"))
    await client.call(SetSteeringMode(mode="one-at-a-time"))
    await client.call(SetFollowUpMode(mode="one-at-a-time"))
    await app.desk.current.pi.reload()
    deck_harness.reset_model()
    app.clear_notifications()
    app.toasts.center = NotificationCenter()  # `notes` reads what it kept
    app.query_one(PromptEditor).focus()
    await quiesce(deck)
    return deck


async def pi_state(app: PideckApp) -> Any:
    return await app.desk.current.pi.client.call(GetState())


def noted(app: PideckApp, part: str) -> bool:
    return any(part in note for note in notes(app))


async def converse(pilot: Any, model: ScriptedModel, *answers: str) -> None:
    """One prompt per answer, each answered by the scripted model."""
    app = pilot.app
    for number, answer in enumerate(answers, 1):
        model.queue(Reply(text=answer))
        await send(pilot, f"question {number}")
        await wait_until(pilot, lambda a=answer: a in transcript_text(app) and not app.desk.current.pi.model.running, what=answer)


async def palette_pick(pilot: Any, query: str, hit: str) -> None:
    """Open the palette, type `query`, wait for `hit` to be the highlighted hit, choose it."""
    app = pilot.app
    await pilot.press("f1")
    palette = await wait_until(pilot, lambda: CommandPalette.is_open(app) and app.screen, what="palette")
    await pilot.press(*query)
    hits = palette.query_one(CommandList)

    def highlighted() -> str:
        index = hits.highlighted
        return str(hits.get_option_at_index(index).prompt) if index is not None and hits.option_count else ""

    await wait_until(pilot, lambda: highlighted().startswith(hit), what=f"palette hit {hit!r}")
    await pilot.press("enter")


# --- models ---------------------------------------------------------------------------------


async def test_ctrl_l_picker_switches_model(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await pilot.press("ctrl+l")
    picker = await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen, what="model picker")
    options = picker.query_one(OptionList)
    await wait_until(pilot, lambda: options.option_count == 2, what="two models")
    assert str(options.get_option_at_index(options.highlighted).prompt).startswith(f"● {PROVIDER}/{MODEL_ID}")
    await pilot.press(*"mini")
    await wait_until(pilot, lambda: options.option_count == 1, what="filtered to one model")
    await pilot.press("enter")
    await wait_until(pilot, lambda: not isinstance(app.screen, ModelPicker), what="picker closed")
    await wait_until(pilot, lambda: f"{PROVIDER}/{MINI}" in stats_text(app), what="stats pane shows the new model")
    assert (await pi_state(app)).model.id == MINI
    assert noted(app, f"{PROVIDER}/{MINI} · thinking")
    assert not noted(app, "Model:"), "the toast's title says Model; its text does not say it again"
    await quiesce(pilot)


async def test_model_command_by_name_and_by_search(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, f"/model {PROVIDER}/{MINI}")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.model.id == MINI, what="switched by exact name")
    assert not isinstance(app.screen, ModelPicker)
    await send(pilot, "/model nosuchmodel")
    picker = await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.query("#picker-hint")
                              and app.screen, what="picker, composed")
    hint = picker.query_one("#picker-hint", Static)
    await wait_until(pilot, lambda: "no model matches" in str(hint.render()), what="no-match hint")
    await pilot.press("escape")
    await wait_until(pilot, lambda: not app.screen.is_modal, what="picker closed")
    assert (await pi_state(app)).model.id == MINI  # Esc kept the model
    await quiesce(pilot)


async def test_ctrl_p_cycles_models_forward_and_alt_p_back(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.model.id == MINI, what="next model")
    assert (await pi_state(app)).model.id == MINI
    assert noted(app, f"{PROVIDER}/{MINI} · thinking off")  # mini has no reasoning
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.model.id == MODEL_ID, what="wrapped around")
    await pilot.press("alt+p")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.model.id == MINI, what="previous model")
    assert f"{PROVIDER}/{MINI}" in stats_text(app)
    await quiesce(pilot)


# --- thinking -------------------------------------------------------------------------------


async def test_shift_tab_cycles_thinking_and_slash_thinking_sets_it(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await pilot.press("shift+tab")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.thinking_level == "high", what="medium → high")
    assert (await pi_state(app)).thinking_level == "high"
    assert "high" in stats_text(app)
    assert app.focused is app.query_one(PromptEditor)  # Shift+Tab did not move the focus
    told = await wait_until(pilot, lambda: [(n.title, n.message) for n in app.toasts.center.entries
                                            if "hinking" in n.title + n.message], what="the toast")
    assert told == [("Thinking level", "high")], "the title says what it is, the text does not say it again"

    await send(pilot, "/thinking low")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.thinking_level == "low", what="/thinking low")

    await send(pilot, "/thinking")
    picker = await wait_until(pilot, lambda: isinstance(app.screen, ChoicePicker) and app.screen, what="level picker")
    options = picker.query_one(OptionList)
    assert str(options.get_option_at_index(options.highlighted).prompt) == "● low"
    await pilot.press("home", "enter")  # "off" is first
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.thinking_level == "off", what="picked off")
    assert (await pi_state(app)).thinking_level == "off"

    await send(pilot, "/thinking enormous")
    await wait_until(pilot, lambda: noted(app, "'enormous' is not a thinking level"), what="refusal")
    assert (await pi_state(app)).thinking_level == "off"
    await quiesce(pilot)


async def test_thinking_on_a_model_without_reasoning(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, f"/model {PROVIDER}/{MINI}")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.model.id == MINI, what="mini")
    await pilot.press("shift+tab")
    await wait_until(pilot, lambda: noted(app, f"{PROVIDER}/{MINI} does not support thinking"), what="no thinking")
    assert (await pi_state(app)).thinking_level == "off"
    await quiesce(pilot)


# --- queue modes, toggles, retry ------------------------------------------------------------


async def test_steering_and_follow_up_modes(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "/steering-mode all")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.steering_mode == "all", what="steering all")
    await send(pilot, "/follow-up-mode")  # toggles
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.follow_up_mode == "all", what="follow-up toggled")
    state = await pi_state(app)
    assert (state.steering_mode, state.follow_up_mode) == ("all", "all")
    assert "steer all · follow all" in stats_text(app)
    await send(pilot, "/steering-mode sometimes")
    await wait_until(pilot, lambda: noted(app, "Unknown mode 'sometimes'"), what="refusal")
    await send(pilot, "/steering-mode one-at-a-time")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.steering_mode == "one-at-a-time", what="steering back")
    await quiesce(pilot)


async def test_auto_compaction_and_auto_retry_toggles(pilot: Any, deck_harness: PiHarness) -> None:
    app: PideckApp = pilot.app
    settings_file = deck_harness.agent_dir / "settings.json"
    await send(pilot, "/auto-compact")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.auto_compaction_enabled is False, what="auto-compaction off")
    assert (await pi_state(app)).auto_compaction_enabled is False
    assert "compact off" in stats_text(app)
    await send(pilot, "/auto-compact on")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.auto_compaction_enabled is True, what="auto-compaction on")

    await send(pilot, "/auto-retry")  # pi does not report it: pideck asks for on or off
    await wait_until(pilot, lambda: noted(app, "use /auto-retry on or /auto-retry off"), what="ask for on/off")
    await send(pilot, "/auto-retry off")
    await wait_until(pilot, lambda: app.desk.current.pi.model.auto_retry is False, what="auto-retry off")
    assert json.loads(settings_file.read_text())["retry"]["enabled"] is False  # pi saved it
    assert "retry off" in stats_text(app)
    await send(pilot, "/auto-retry")  # now known: toggles
    await wait_until(pilot, lambda: app.desk.current.pi.model.auto_retry is True, what="auto-retry on")
    assert json.loads(settings_file.read_text())["retry"]["enabled"] is True
    await quiesce(pilot)


async def test_abort_retry_while_a_retry_waits(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    scripted_model.queue(Reply(status=503, error_message="overloaded, try later"))
    await send(pilot, "/abort-retry")
    await wait_until(pilot, lambda: noted(app, "No retry is waiting."), what="nothing to abort")
    await send(pilot, "Hello?")
    await wait_until(pilot, lambda: app.desk.current.pi.model.retry is not None and app.desk.current.pi.model.retry.active, what="retry waiting")
    status = app.query_one("#status", Static)
    await wait_until(pilot, lambda: "Retrying (1/" in str(status.render()), what="status line shows the retry")
    await send(pilot, "/abort-retry")
    await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="run ended")
    assert noted(app, "Retry aborted.")
    assert len(scripted_model.requests) == 1  # the retry never went out
    assert "Retrying (1/" in transcript_text(app)
    await quiesce(pilot)


# --- compaction -----------------------------------------------------------------------------


async def test_compact_shows_progress_and_tokens_before_and_after(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "/compact")
    await wait_until(pilot, lambda: any("Nothing to compact" in n for n in notes(app)), what="too small")
    await converse(pilot, scripted_model, "First answer.", "Second answer.")

    scripted_model.queue(Reply(text="slow " * 100, chunk_chars=2, delay=0.05))
    await send(pilot, "/compact")
    await wait_until(pilot, lambda: app.desk.current.pi.model.compaction is not None, what="first compaction running")
    await pilot.press("escape")  # stops a compaction, as in pi
    await wait_until(pilot, lambda: app.desk.current.pi.model.compaction is None, what="compaction stopped")
    await wait_until(pilot, lambda: "— aborted" in transcript_text(app), what="aborted banner")
    assert not noted(app, "Context compacted")
    scripted_model.replies.clear()

    scripted_model.queue(Reply(text="## Goal\nSummarised.", delay=0.3))
    await send(pilot, "/compact keep the answers")
    await wait_until(pilot, lambda: app.desk.current.pi.model.compaction is not None, what="compaction running")
    status = app.query_one("#status", Static)
    await wait_until(pilot, lambda: "compacting the context" in str(status.render()), what="status line progress")
    await wait_until(pilot, lambda: noted(app, "Context compacted: "), timeout=30, what="result")
    result = next(n for n in notes(app) if n.startswith("Context compacted: "))
    assert " tokens → ~" in result
    await wait_until(pilot, lambda: "— done: " in transcript_text(app), what="banner with the result")
    assert "Summarised." in transcript_text(app)
    summary_request = json.dumps(scripted_model.requests[-2])
    assert "keep the answers" in summary_request  # the instructions reached the summary prompt
    await quiesce(pilot)


async def test_esc_stops_a_running_shell_command(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "!sleep 30")
    await wait_until(pilot, lambda: app.desk.current.pi.model.bash_running, what="!sleep running")
    assert not app.desk.current.pi.model.running
    await pilot.press("escape")  # no run to abort: pi's abort_bash
    await wait_until(pilot, lambda: not app.desk.current.pi.model.bash_running, what="!sleep stopped")
    await wait_until(pilot, lambda: "■ cancelled" in transcript_text(app), what="cancelled mark")
    await quiesce(pilot)


# --- export, copy ---------------------------------------------------------------------------


async def test_export_html(pilot: Any, deck_harness: PiHarness, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    await converse(pilot, scripted_model, "Worth keeping.")
    (deck_harness.cwd / "exports").mkdir(exist_ok=True)
    await send(pilot, "/export exports/chat.html")
    target = deck_harness.cwd / "exports" / "chat.html"
    await wait_until(pilot, lambda: noted(app, f"Exported to {target}"), what="export toast")
    html = target.read_text()
    assert html.startswith("<!DOCTYPE html>")
    data = re.search(r'id="session-data"[^>]*>([A-Za-z0-9+/=]+)<', html)
    assert data is not None and "Worth keeping." in base64.b64decode(data.group(1)).decode()

    await send(pilot, "/export")
    note = await wait_until(pilot, lambda: next((n for n in notes(app) if n.startswith("Exported to") and
                                                 "chat.html" not in n), None), what="default export")
    default = Path(note.removeprefix("Exported to "))
    assert default.parent == deck_harness.cwd and default.suffix == ".html" and default.exists()

    await send(pilot, "/export chat.jsonl")
    await wait_until(pilot, lambda: noted(app, "pi's RPC exports HTML only"), what="jsonl refused")
    assert not (deck_harness.cwd / "chat.jsonl").exists()
    await quiesce(pilot)


async def test_copy_writes_osc52(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    written: list[str] = []
    driver = app._driver
    assert driver is not None
    original = driver.write

    def capture(data: str) -> None:
        written.append(data)
        original(data)

    driver.write = capture  # type: ignore[method-assign]
    try:
        await send(pilot, "/copy")
        await wait_until(pilot, lambda: noted(app, "no assistant answer to copy"), what="nothing yet")
        assert not any("\x1b]52;" in chunk for chunk in written)

        answer = "Copy **this** — über ✓\nsecond line"
        await converse(pilot, scripted_model, answer)
        await send(pilot, "/copy")
        osc = f"\x1b]52;c;{base64.b64encode(answer.encode()).decode()}\a"
        await wait_until(pilot, lambda: osc in "".join(written), what="OSC 52 with the answer")
        assert noted(app, "2 lines")

        written.clear()
        await pilot.press("ctrl+x")  # pi's copy key, on an empty prompt
        await wait_until(pilot, lambda: osc in "".join(written), what="Ctrl+X copies too")

        await converse(pilot, scripted_model, "First:\n\n```python\nprint(1)\n```\n\nThen:\n\n```sh\nls -la\necho ok\n```\n")
        for command, code, note in (("/copy code", "ls -la\necho ok", "Copied code block 2 of 2 (2 lines)."),
                                    ("/copy code 1", "print(1)", "Copied code block 1 of 2 (1 line).")):
            written.clear()
            await send(pilot, command)
            osc = f"\x1b]52;c;{base64.b64encode(code.encode()).decode()}\a"
            await wait_until(pilot, lambda o=osc: o in "".join(written), what=command)
            await wait_until(pilot, lambda n=note: noted(app, n), what=note)
        await send(pilot, "/copy code 3")
        await wait_until(pilot, lambda: noted(app, "The last answer has 2 code blocks."), what="no third block")
        await send(pilot, "/copy the rest")
        await wait_until(pilot, lambda: noted(app, "Usage: /copy, /copy code, or /copy code N"), what="usage")
    finally:
        driver.write = original  # type: ignore[method-assign]
    await quiesce(pilot)


# --- info, help, palette --------------------------------------------------------------------


async def test_session_shows_stats(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    await converse(pilot, scripted_model, "Stats please.")
    await send(pilot, "/session")
    info = await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen, what="session page")
    state = await pi_state(app)
    text = _render(app, info)
    assert state.session_id in text and state.session_file in text
    assert "1 user · 1 assistant" in text and f"{PROVIDER}/{MODEL_ID}" in text
    assert "steering one-at-a-time" in text
    await pilot.press("escape")
    await wait_until(pilot, lambda: not app.screen.is_modal, what="closed")
    await quiesce(pilot)


def _render(app: PideckApp, screen: InfoScreen) -> str:
    """The page's text, rendered wide enough that no row wraps."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(screen.body)
    return console.export_text()


async def test_hotkeys_lists_every_binding(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "/hotkeys")
    info = await wait_until(pilot, lambda: isinstance(app.screen, InfoScreen) and app.screen, what="hotkeys page")
    text = _render(app, info)
    editor = app.query_one(PromptEditor)
    for bindings in (app._bindings, editor._bindings):
        for key, binding in bindings:
            if not binding.system:
                assert key_label(key) in text, f"{key} ({binding.action}) missing from /hotkeys"
    for key in ("Ctrl+L", "Ctrl+P", "Shift+Tab", "Ctrl+T", "Ctrl+O", "Alt+Enter", "Esc", "F1", "Shift+Enter"):
        assert key in text
    await pilot.press("escape")
    await wait_until(pilot, lambda: not app.screen.is_modal, what="closed")
    await quiesce(pilot)


async def test_command_not_possible_over_rpc_says_so(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "/share")
    await wait_until(pilot, lambda: noted(app, "/share is not available over pi's RPC"), what="plain answer")
    assert scripted_model.requests == []  # nothing went to the model
    assert "/share" not in transcript_text(app)
    await quiesce(pilot)


async def test_palette_runs_a_pideck_command(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await palette_pick(pilot, "steering-mode", "/steering-mode")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.steering_mode == "all", what="/steering-mode ran (toggled)")
    assert (await pi_state(app)).steering_mode == "all"
    await quiesce(pilot)


async def test_palette_types_a_pi_command_into_the_prompt(pilot: Any, scripted_model: ScriptedModel) -> None:
    app: PideckApp = pilot.app
    name = next(c.name for c in app.desk.current.pi.commands)
    await palette_pick(pilot, name, f"/{name}")
    editor = app.query_one(PromptEditor)
    await wait_until(pilot, lambda: editor.text == f"/{name} ", what="command typed into the prompt")
    assert scripted_model.requests == []
    editor.load("")
    await quiesce(pilot)


async def test_settings_page_opens_the_command_for_a_setting(pilot: Any) -> None:
    app: PideckApp = pilot.app
    await send(pilot, "/settings")
    picker = await wait_until(pilot, lambda: isinstance(app.screen, ChoicePicker) and app.screen, what="settings")
    options = picker.query_one(OptionList)
    rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    assert f"  Model: {PROVIDER}/{MODEL_ID}" in rows and "  Follow-up delivery: one-at-a-time" in rows
    options.highlighted = rows.index("  Follow-up delivery: one-at-a-time")
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.desk.current.pi.model.state.follow_up_mode == "all", what="follow-up mode toggled")
    assert (await pi_state(app)).follow_up_mode == "all"
    await quiesce(pilot)
