"""/login and /logout (app/commands/login.py) over the fake child: pideck is suspended, pi's own
sign-in runs with the pi command, cwd and agent directory pideck runs pi with (a stand-in
pi that records how it was started), then pi reopens its session and the models that
changed are said. `App.suspend` is not supported headless, so the test records its use."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, notes, send, wait_until

from app.pideck_app import PideckApp

SESSION = "/tmp/pideck-login-test/session.jsonl"
CLAUDE = {"id": "claude-x", "name": "Claude X", "api": "anthropic-messages", "provider": "anthropic",
          "baseUrl": "https://api.anthropic.com", "reasoning": True, "input": ["text"],
          "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
          "contextWindow": 200000, "maxTokens": 8192}


def login_app(tmp_path: Path, status: int = 0) -> tuple[Fake, PideckApp, list[bool], Path]:
    """pideck over the fake child, started through a stand-in pi: with `--mode rpc` it runs the
    fake, otherwise it records its argv, cwd and agent directory in record.json and exits
    with `status`."""
    record = tmp_path / "record.json"
    pi = tmp_path / "pi"
    pi.write_text(f"""#!{sys.executable}
import json, os, sys
if sys.argv[1:3] == ["--mode", "rpc"]:
    os.execv(sys.executable, [sys.executable, *sys.argv[3:]])
with open({str(record)!r}, "w") as out:
    json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(), "agent": os.environ.get("PI_CODING_AGENT_DIR")}}, out)
sys.exit({status})
""")
    pi.chmod(0o755)
    fake = Fake(tmp_path, "--session-file", SESSION,
                "--answer", "get_available_models+1=" + json.dumps({"models": [CLAUDE]}),
                "--answer", "switch_session=" + json.dumps({"cancelled": False}))
    agent = tmp_path / "agent"
    agent.mkdir()
    config = fake.config({"PI_CODING_AGENT_DIR": str(agent), "PIDECK_CHECKPOINTS": "off"})  # a fake named pi
    app = PideckApp(replace(config, argv=(str(pi), "--mode", "rpc", *fake.argv[1:])))
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:
        suspended.append(True)
        yield

    app.suspend = suspend  # type: ignore[method-assign]
    return fake, app, suspended, record


async def test_login_runs_pis_own_sign_in_and_says_what_changed(tmp_path: Path) -> None:
    fake, app, suspended, record = login_app(tmp_path)
    async with fake.run(app) as pilot:
        await send(pilot, "/login anthropic --api-key")
        toast = await wait_until(pilot, lambda: [n for n in notes(app) if n.startswith("Models")], what="the toast")
        started: dict[str, Any] = json.loads(record.read_text())
        assert started == {"argv": ["auth", "login", "anthropic", "--api-key"], "cwd": str(tmp_path),
                           "agent": str(tmp_path / "agent")}
        assert suspended == [True]
        assert [c["sessionPath"] for c in fake.commands("switch_session")] == [SESSION]  # pi reads the login
        assert toast == ["Models 1 added: anthropic/claude-x; 2 removed: scripted/scripted-demo, "
                         "scripted/scripted-demo-mini"]
        assert "prompt" not in fake.kinds()  # /login never reached the model


async def test_logout_without_a_provider_opens_pis_ui(tmp_path: Path) -> None:
    fake, app, suspended, record = login_app(tmp_path, status=3)
    async with fake.run(app) as pilot:
        await send(pilot, "/logout")
        await wait_until(pilot, lambda: [n for n in notes(app) if n.startswith("Models")], what="the toast")
        assert json.loads(record.read_text())["argv"] == ["--no-session"]
        assert "pi's /logout ended with status 3." in notes(app)
