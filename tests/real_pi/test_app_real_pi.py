"""PideckApp against the REAL pi (pinned runtime) and the scripted model, via run_test.

Each test starts its own pi child (with tests/extensions/ui_everything.ts loaded) through
the app's own RpcClient; the app closes it when it unmounts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.pi_harness import (
    SIZE,
    PiHarness,
    make_app,
    notes,
    press_alone,
    question,
    quiesce,
    send,
    started,
    stats_text,
    tool_run,
    transcript_text,
    wait_until,
)

from app.pi.launch import LaunchConfig
from app.pideck_app import PideckApp
from app.scripted_model.server import Reply, ToolCallSpec
from widgets.screens.dialogs import ConfirmDialog, EditorDialog, InputDialog, SelectDialog
from widgets.prompt.editor import PromptEditor
from widgets.panes.queue_lines import QueueLines
from widgets.panes.side import QueuePane, StatusLine, ToolLog

pytestmark = pytest.mark.pi

SLOW = {"chunk_chars": 2, "delay": 0.03}


async def test_prompt_with_tool_call(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    (pi_harness.cwd / "app_notes.txt").write_text("alpha note from the file\n")
    pi_harness.model.queue(
        Reply(tool_calls=(ToolCallSpec("read", {"path": "app_notes.txt"}, id="call_app_read"),)),
        Reply(text="The notes say **alpha**. All done."),
    )
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "Read the notes.")
        await wait_until(pilot, lambda: "All done." in transcript_text(app) and not app.desk.current.pi.model.running, what="answer")
        text = transcript_text(app)
        assert "alpha note from the file" in text
        run = tool_run(app.desk.current.pi.model, "call_app_read")
        assert run.done and not run.is_error

        def rows() -> list[str]:
            log = app.query_one(ToolLog)
            return [str(log.get_option_at_index(i).prompt) for i in range(log.option_count)]

        await wait_until(pilot, lambda: any(row.startswith("✓ read") for row in rows()), what=f"✓ row: {rows()}")
        await quiesce(pilot)


async def test_steer_during_slow_stream(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(text="word " * 60, **SLOW),
        Reply(text="Steered answer.", **SLOW),
    )
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "Write slowly.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running and "word word" in transcript_text(app), what="streaming")
        await send(pilot, "Be brief instead.")
        await wait_until(pilot, lambda: "Be brief instead." in str(app.query_one(QueuePane).render()), what="queue pane")
        assert app.desk.current.pi.model.steering == ["Be brief instead."]
        await wait_until(pilot, lambda: "Steered answer." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=20, what="steered answer")
        assert app.desk.current.pi.model.steering == []
        assert "steer" not in str(app.query_one(QueuePane).render()).split("—")[0]
        assert "Be brief instead." in transcript_text(app)
        await quiesce(pilot)


async def test_queue_above_the_prompt_below_100_columns(pi_harness: PiHarness) -> None:
    """At 80 columns the side panes hide: the steer and the follow-up pi queued show above
    the prompt, a line each, until pi takes them."""
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(text="word " * 60, **SLOW),
        Reply(text="Steered answer.", **SLOW),
        Reply(text="Followed up.", **SLOW),
    )
    app = make_app(pi_harness)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        queue = app.desk.current.main.query_one(QueueLines)
        await send(pilot, "Write slowly.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running and "word word" in transcript_text(app), what="streaming")
        await send(pilot, "Be brief instead.")
        await send(pilot, "Then summarize.", key="alt+enter")
        await wait_until(pilot, lambda: queue.display and str(queue.render()).split("\n")[:2]
                         == ["Steering: Be brief instead.", "Follow-up: Then summarize."], what="the queue above the prompt")
        await wait_until(pilot, lambda: "Followed up." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the follow-up's answer")
        assert not queue.display, "nothing queued: no lines"
        await quiesce(pilot)


async def test_esc_during_slow_stream_aborts(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="slow " * 200, **SLOW))
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "Write a very long answer.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running and "slow slow" in transcript_text(app), what="streaming")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="run to end")
        await wait_until(pilot, lambda: "abort" in transcript_text(app).lower(), what="aborted mark")
        assert transcript_text(app).count("slow") < 200
        await quiesce(pilot)


async def test_extension_dialogs_answered_in_app(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/ui-dialogs")
        await question(pilot, SelectDialog)
        await pilot.press("down")
        await press_alone(pilot, "enter")
        await question(pilot, ConfirmDialog)
        await pilot.press("y")
        await question(pilot, InputDialog)
        await pilot.press("A", "d", "a")
        await press_alone(pilot, "enter")
        await question(pilot, EditorDialog)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: any(n.startswith("editor=") for n in notes(app)), what="editor answer seen")
        seen = {n.split("=", 1)[0]: n.split("=", 1)[1] for n in notes(app) if "=" in n}
        assert seen["select"] == '"green"'
        assert seen["confirm"] == "true"
        assert seen["input"] == '"Ada"'
        assert seen["editor"] == '"line one\\nline two"'
        await quiesce(pilot)


async def test_no_model_says_how_to_get_one_and_a_refusal_stays_in_the_transcript(
    pi_harness: PiHarness, tmp_path: Path
) -> None:
    """A newcomer's pi: an agent directory without models or credentials, no API key set."""
    agent = tmp_path / "empty-agent"
    agent.mkdir()
    env = {key: value for key, value in pi_harness.env.items() if "API_KEY" not in key and "TOKEN" not in key}
    env["PI_CODING_AGENT_DIR"] = str(agent)
    app = PideckApp(LaunchConfig(argv=(*pi_harness.runtime.argv, "--mode", "rpc", "--no-session"), env=env,
                                 cwd=pi_harness.cwd, demo=False, protocol_log=tmp_path / "protocol.log"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        panel = await wait_until(pilot, lambda: "pi has no model" in transcript_text(app) and transcript_text(app),
                                 what="the no-model panel")
        for command in ("/login PROVIDER", "export ANTHROPIC_API_KEY=", "pideck -- --provider NAME --model ID",
                        "pideck --demo"):
            assert f"\n    {command}" in panel  # on a line of its own, to copy
        status = str(app.query_one(StatusLine).render())
        assert "no model" in status and "ready" not in status
        await wait_until(pilot, lambda: "none selected" in stats_text(app), what="stats: no model")
        assert "unknown" not in stats_text(app)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: "pi refused the message" in transcript_text(app), what="the refusal")
        refusal = transcript_text(app).split("pi refused the message", 1)[1]
        assert "No API key found for the selected model." in refusal and "providers.md" in refusal  # all of it
        assert app.query_one(PromptEditor).text == "hello"
        await send(pilot, "/login")  # headless, the terminal cannot be handed to pi's own sign-in
        await wait_until(pilot, lambda: "This terminal cannot be handed to pi for /login." in notes(app),
                         what="/login's answer")
        await quiesce(pilot)
