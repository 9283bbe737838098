"""One pi per session file (protocol/hold/session_claims.py, app/pi/one_writer.py): wherever
pideck starts pi on a session file another pi has open, the new pi is closed before it
writes, and the window shows the held pi that has the file (attached), or says in one line
why it cannot. Real pi, the scripted model; each test has a holder folder of its own."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SIZE, HarnessPi, PiHarness, TmuxPideck, notes, send, started, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from protocol.hold import session_claims
from protocol.hold.ask import ask, held

pytestmark = pytest.mark.pi


@pytest.fixture
def holder_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    env = dict(os.environ)
    yield env
    try:
        ask({"op": "stop", "all": True}, env, timeout=30.0)
    except OSError:
        pass


def _config(pi_harness: PiHarness, holder_env: dict[str, str], sessions: Path, *pi_args: str, hold: bool = True) -> Any:
    config = pi_harness.launch_config(session_dir=sessions, extra_args=pi_args,
                                      env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]})
    return replace(config, hold=hold, pi_args=tuple(pi_args))


def _user_messages(session_file: str) -> list[tuple[str, str | None]]:
    """(text, parent id) of each user message in the file."""
    found = []
    for line in Path(session_file).read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
            found.append((text, entry.get("parentId")))
    return found


async def _held_run_left(pi_harness: PiHarness, holder_env: dict[str, str], sessions: Path) -> dict[str, Any]:
    """A window sends a prompt, gets its reply, and goes (its terminal closed): the held pi
    that goes on, as `pideck ls` lists it."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="the held reply"))
    first = PideckApp(_config(pi_harness, holder_env, sessions))
    async with first.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "first prompt")
        await wait_until(pilot, lambda: "the held reply" in transcript_text(first) and not first.session.running,
                         timeout=30, what="the reply")
        session_file = first.session.state.session_file
        first._hang_up()
    (pi,) = held(holder_env)
    assert pi["windows"] == 0, pi
    return {**pi, "session_file": session_file}


@pytest.mark.parametrize("hold", [True, False], ids=["held", "no-hold"])
async def test_continue_on_a_held_session_attaches_to_the_held_pi(tmp_path: Path, pi_harness: PiHarness,
                                                                  holder_env: dict[str, str], hold: bool) -> None:
    """`pideck -- --continue` in the folder of a held run (held or --no-hold) shows that pi,
    attached, where it started a second pi on the file: one pi is held, the held run's
    reply is in the window, and the window's prompt follows it in the file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    pi_harness.model.queue(Reply(text="the second reply"))
    app = PideckApp(_config(pi_harness, holder_env, sessions, "--continue", hold=hold))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        assert [(p["number"], p["windows"]) for p in held(holder_env)] == [(pi["number"], 1)]
        assert "the held reply" in transcript_text(app)
        assert any(f"Held pi {pi['number']} had this session open already" in note for note in notes(app)), notes(app)
        assert held(holder_env)[0]["session_file"] == pi["session_file"]
        await send(pilot, "second prompt")
        await wait_until(pilot, lambda: "the second reply" in transcript_text(app) and not app.session.running,
                         timeout=30, what="the second reply")
        app._hang_up()
    messages = _user_messages(pi["session_file"])
    assert [text for text, _ in messages] == ["first prompt", "second prompt"]
    assert len(list(sessions.glob("*.jsonl"))) == 1


async def test_a_session_another_windows_own_pi_has_is_refused(tmp_path: Path, pi_harness: PiHarness,
                                                              holder_env: dict[str, str]) -> None:
    """A session file another pideck's own pi (--no-hold) has open: `--session FILE` says so
    in one line and starts nothing; the file is unchanged."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    ask({"op": "stop", "all": True}, holder_env, timeout=30.0)
    session_file = pi["session_file"]
    before = Path(session_file).read_bytes()
    own = HarnessPi(pi_harness, tmp_path)
    args = ("--no-hold", "--pi", shlex.join(pi_harness.runtime.argv), "--", *pi_model_args(), "--session", session_file)
    with TmuxPideck(own, args=args, cwd=tmp_path, env=own.env() | {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "the other pideck ready", timeout=60)
        other = session_claims.owner(session_file, None)
        assert other is not None and isinstance(other.get("pid"), int), other
        app = PideckApp(_config(pi_harness, holder_env, sessions, "--session", session_file))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.session.life.startup_error is not None, timeout=30,
                             what="the refusal")
            error = app.session.life.startup_error
            assert f"is open in another pideck (pid {other['pid']}), whose pi is its own (--no-hold)" in error, error
            app.exit()
        assert held(holder_env) == []
        assert "● ready" in term.screen()
    assert Path(session_file).read_bytes() == before
