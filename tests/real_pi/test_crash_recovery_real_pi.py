"""pi killed with -9 mid-stream, then restarted: every message pi had saved comes back.
The REAL pi with a session directory (tests/app/test_crash_recovery.py has the fake child's cases)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.pi_harness import SIZE, PiHarness, crash_text, kill_group, quiesce, send, started, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model.server import Reply
from protocol.hold.ask import ask
from protocol.wire.commands import GetMessages
from widgets.panes.crash_bar import CrashBar
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatusLine


def message_key(message: Any) -> tuple[str, int]:
    role = message["role"] if isinstance(message, dict) else type(message).__struct_config__.tag
    stamp = message["timestamp"] if isinstance(message, dict) else message.timestamp
    return role, stamp


def persisted_messages(session_file: str) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in Path(session_file).read_text().splitlines() if line.strip()]
    return [entry["message"] for entry in entries if entry.get("type") == "message"]


@pytest.mark.parametrize("held", [False, True], ids=["own", "held"])
async def test_kill_mid_stream_then_restart_resumes_every_persisted_message(
    pi_harness: PiHarness, tmp_path: Path, held: bool
) -> None:
    """The same whether pi is pideck's child or the holder's."""
    pi_harness.reset_model()
    pi_harness.model.queue(
        Reply(text="First answer, saved to the session."),
        Reply(text="slow " * 400, chunk_chars=2, delay=0.03),
        Reply(text="Answer after the restart."),
    )
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    config = pi_harness.launch_config(session_dir=tmp_path / "sessions", env=env)
    try:
        await _kill_and_restart(PideckApp(dataclasses.replace(config, hold=held)))
    finally:
        ask({"op": "stop", "all": True}, env)


async def _kill_and_restart(app: PideckApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "First question.")
        await wait_until(pilot, lambda: "First answer" in transcript_text(app) and not app.desk.current.pi.model.running, what="answer 1")
        await send(pilot, "Second question, cut short.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running and "slow slow" in transcript_text(app), what="streaming")
        session_file = app.desk.current.pi.model.state.session_file
        assert session_file is not None
        old = app.desk.current.pi.client

        kill_group(old)  # kill -9 of pi's whole process group

        bar, status = app.query_one(CrashBar), app.query_one(StatusLine)
        await wait_until(  # the bar shows at once; the banner and the status line once the records are applied
            pilot, lambda: bar.display and "pi was killed (SIGKILL" in transcript_text(app)
            and "pi is not running" in str(status.render()),
            what="the exit on the crash bar, in the transcript and on the status line",
        )  # fmt: skip
        assert "SIGKILL" in crash_text(app) and "ctrl+r" in crash_text(app)
        assert not app.desk.current.pi.model.running
        text = transcript_text(app)
        assert "First answer, saved" in text and "Second question, cut short." in text and "slow slow" in text
        assert "ready" not in str(status.render())
        assert app.desk.current.main.check_action("restart_pi", ()) is True
        editor = app.query_one(PromptEditor)
        editor.load("a draft typed while pi was down")
        persisted = persisted_messages(session_file)
        assert [m["role"] for m in persisted if m["role"] != "system"] == ["user", "assistant", "user"]

        await pilot.press("ctrl+r")

        await wait_until(
            pilot, lambda: app.desk.current.pi.client is not old and not bar.display and "pi restarted" in transcript_text(app),
            timeout=30, what="restart",
        )
        assert app.desk.current.pi.client.running and app.desk.current.pi.client.link.argv[-2:] == ["--session", session_file]
        resumed = (await app.desk.current.pi.client.call(GetMessages())).messages
        assert [message_key(m) for m in resumed] == [message_key(m) for m in persisted]
        text = transcript_text(app)
        for shown in ("First question.", "First answer, saved to the session.", "Second question, cut short."):
            assert shown in text
        assert editor.text == "a draft typed while pi was down"
        assert app.desk.current.main.check_action("restart_pi", ()) is False

        await send(pilot, "Third question.")
        await wait_until(pilot, lambda: "Answer after the restart." in transcript_text(app) and not app.desk.current.pi.model.running,
                         what="answer after restart")
        roles = [m["role"] for m in persisted_messages(session_file) if m["role"] != "system"]
        assert roles == ["user", "assistant", "user", "user", "assistant"], "the restarted pi appends to the same file"
        await quiesce(pilot)
