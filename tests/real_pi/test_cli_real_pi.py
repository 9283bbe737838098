"""`pideck --demo`'s launch configuration runs the REAL pi on the scripted model, tools and all."""

from __future__ import annotations

import pytest

from app.cli import parse_args
from app.launch import build_launch
from protocol.client import RpcClient
from protocol.commands import Prompt
from protocol.events import MessageEnd, ToolExecutionEnd
from protocol.messages import AssistantMessage, TextContent


@pytest.mark.pi
async def test_demo_runs_tools_in_real_pi_and_answers(tmp_path):
    (tmp_path / "README.md").write_text("# A demo project\n")
    config = build_launch(parse_args(["--demo", "--cwd", str(tmp_path)]))
    client = RpcClient(config.argv, env=config.env, cwd=config.cwd)
    try:
        await client.start()
        records = await client.prompt_and_wait(Prompt(message="hello"), timeout=60)
    finally:
        await client.close()
        config.close()
    tools = [r for r in records if isinstance(r, ToolExecutionEnd)]
    assert sorted(t.tool_name for t in tools) == ["bash", "bash", "read"], client.stderr_tail
    assert not any(t.is_error for t in tools)
    replies = [r.message for r in records if isinstance(r, MessageEnd) and isinstance(r.message, AssistantMessage)]
    final = "".join(b.text for b in replies[-1].content if isinstance(b, TextContent))
    assert final.startswith("## Summary") and "A demo project" in final and "`step 3`" in final
