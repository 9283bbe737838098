"""`pideck --demo`'s launch configuration runs the REAL pi on the scripted model, tools and all."""

from __future__ import annotations

import json

import pytest

from app.cli.pideck import parse_args
from app.pi.launch import build_launch
from protocol.wire.local_link import local_client
from protocol.wire.commands import Prompt
from protocol.wire.events import MessageEnd, ToolExecutionEnd
from protocol.wire.messages import AssistantMessage, TextContent


@pytest.mark.pi
async def test_demo_runs_tools_in_real_pi_and_answers(tmp_path):
    (tmp_path / "README.md").write_text("# A demo project\n")
    config = build_launch(parse_args(["--demo", "--cwd", str(tmp_path)]))
    client = local_client(config.argv, env=config.env, cwd=config.cwd)
    assert config.demo_server is not None
    scratch = config.demo_server.workdir / "scratch" / "greeter.py"
    settings = json.loads((config.demo_server.workdir / "agent" / "settings.json").read_text())
    try:
        await client.start()
        records = await client.prompt_and_wait(Prompt(message="hello"), timeout=60)
        written = scratch.read_text()
    finally:
        await client.close()
        config.close()
    tools = [r for r in records if isinstance(r, ToolExecutionEnd)]
    assert sorted(t.tool_name for t in tools) == ["bash", "bash", "edit", "read", "write"], client.stderr_tail
    assert not any(t.is_error for t in tools)
    assert 'return f"Hello, {name}!"' in written and "hello " not in written, "written, then edited"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"], "nothing of the user's is touched"
    assert settings["quietStartup"] is False, "a newcomer sees pideck's welcome text"
    assert not scratch.exists(), "the scratch folder goes with the demo"
    edit = next(t for t in tools if t.tool_name == "edit")
    assert isinstance(edit.result.details, dict) and "-1 def greet(name):" in edit.result.details["diff"]
    replies = [r.message for r in records if isinstance(r, MessageEnd) and isinstance(r.message, AssistantMessage)]
    final = "".join(b.text for b in replies[-1].content if isinstance(b, TextContent))
    assert final.startswith("## Summary") and "A demo project" in final and "`step 3`" in final
