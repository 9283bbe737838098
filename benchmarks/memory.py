"""Memory: RSS of PideckApp after 200 turns with tool output (no pi: a fake client).

Each turn is fed through the app's listener path (`app.desk.current.pi.pump.feed`) as decoded pi
records: agent/turn start, a user message, a streamed assistant reply (20 text deltas)
with a bash tool call, the tool's execution (two partial updates, ~5 KB final output),
its toolResult message, a final assistant text, agent_end and agent_settled. The app
runs headless at 120x40 in a fresh interpreter and gets a frame after each turn. Reference: RSS of the same app
idle before the turns. Goal: < 300 MB after 200 turns.

Run: `python -m benchmarks memory`.
"""

from __future__ import annotations

import asyncio
import gc
import json
from typing import Any

from benchmarks import harness as h
from benchmarks.table import Row
from protocol import decode

TURNS = 200
OUTPUT_BYTES = 5_000


def _usage() -> dict[str, Any]:
    cost = {"input": 0.0001, "output": 0.0001, "cacheRead": 0, "cacheWrite": 0, "total": 0.0002}
    return {"input": 120, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 160, "cost": cost}


def turn_lines(turn: int) -> list[dict[str, Any]]:
    """The records of one turn, as pi writes them (JSON objects)."""
    stamp = 1_795_000_000_000 + turn * 1000
    call_id = f"call_{turn}"
    command = f"cat log_{turn}.txt"
    line = f"turn {turn} line %05d: some tool output text here\n"
    output = "".join(line % i for i in range(OUTPUT_BYTES // len(line % 0) + 1))[:OUTPUT_BYTES]
    text = " ".join(f"word{turn}_{i}" for i in range(20))
    deltas = [f"word{turn}_{i} " for i in range(20)]
    user = {"role": "user", "content": [{"type": "text", "text": f"Question {turn}: what is in the log?"}], "timestamp": stamp}
    tool_call = {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": command}}
    assistant = {"role": "assistant", "content": [{"type": "text", "text": text}, tool_call], "api": "openai-completions",
                 "provider": "scripted", "model": "scripted-demo", "usage": _usage(), "stopReason": "toolUse",
                 "timestamp": stamp + 1}
    result_content = [{"type": "text", "text": output}]
    tool_result = {"role": "toolResult", "toolCallId": call_id, "toolName": "bash", "content": result_content,
                   "isError": False, "durationMs": 12, "timestamp": stamp + 2}
    final = {"role": "assistant", "content": [{"type": "text", "text": f"The log of turn {turn} is fine."}],
             "api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": _usage(),
             "stopReason": "stop", "timestamp": stamp + 3}

    def update(event: dict[str, Any]) -> dict[str, Any]:
        return {"type": "message_update", "usage": _usage(), "assistantMessageEvent": event}

    records: list[dict[str, Any]] = [
        {"type": "agent_start"},
        {"type": "turn_start"},
        {"type": "message_start", "message": user},
        {"type": "message_end", "message": user},
        {"type": "message_start", "message": {**assistant, "content": [], "stopReason": "pending"}},
        update({"type": "text_start", "contentIndex": 0}),
        *(update({"type": "text_delta", "contentIndex": 0, "delta": delta}) for delta in deltas),
        update({"type": "text_end", "contentIndex": 0, "content": text}),
        update({"type": "toolcall_start", "contentIndex": 1, "id": call_id, "toolName": "bash"}),
        update({"type": "toolcall_delta", "contentIndex": 1, "delta": json.dumps({"command": command})}),
        update({"type": "toolcall_end", "contentIndex": 1, "toolCall": tool_call}),
        {"type": "message_end", "message": assistant},
        {"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash", "args": {"command": command}},
        {"type": "tool_execution_update", "toolCallId": call_id, "toolName": "bash", "args": {"command": command},
         "partialResult": {"content": [{"type": "text", "text": output[: OUTPUT_BYTES // 2]}]}},
        {"type": "tool_execution_update", "toolCallId": call_id, "toolName": "bash", "args": {"command": command},
         "partialResult": {"content": result_content}},
        {"type": "tool_execution_end", "toolCallId": call_id, "toolName": "bash", "result": {"content": result_content},
         "isError": False, "durationMs": 12},
        {"type": "message_start", "message": tool_result},
        {"type": "message_end", "message": tool_result},
        {"type": "turn_end", "message": assistant, "toolResults": [tool_result]},
        {"type": "turn_start"},
        {"type": "message_start", "message": {**final, "content": [], "stopReason": "pending"}},
        update({"type": "text_start", "contentIndex": 0}),
        update({"type": "text_delta", "contentIndex": 0, "delta": final["content"][0]["text"]}),
        update({"type": "text_end", "contentIndex": 0, "content": final["content"][0]["text"]}),
        {"type": "message_end", "message": final},
        {"type": "turn_end", "message": final, "toolResults": []},
        {"type": "agent_end", "messages": []},
        {"type": "agent_settled"},
    ]
    return records


def turn_records(turn: int) -> list[Any]:
    return [decode(json.dumps(record).encode()) for record in turn_lines(turn)]


async def measure(turns: int = TURNS) -> dict[str, Any]:
    from app.pideck_app import PideckApp

    client = h.FakeClient()
    app = PideckApp(h.fake_config(), client=client)  # type: ignore[arg-type]
    samples: dict[int, float] = {}
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        gc.collect()
        idle = h.rss_mb()
        for turn in range(1, turns + 1):
            for record in turn_records(turn):
                app.desk.current.pi.pump.feed(record)
            await h.wait_until(lambda: app.desk.current.pi.pump.idle, timeout=60, poll=0.005)
            if turn % 50 == 0:
                await pilot.pause()
                gc.collect()
                samples[turn] = h.rss_mb()
        views = len(app.query("*"))
    return {"idle": idle, "samples": samples, "widgets": views}


def measure_in_child() -> dict[str, Any]:
    """`measure()` in a fresh interpreter, so RSS left over by other benchmarks run in this
    process (`python -m benchmarks`) does not count."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "benchmarks.memory", "--json"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["samples"] = {int(turn): rss for turn, rss in result["samples"].items()}
    return result


def run() -> list[Row]:
    result = measure_in_child()
    idle, samples = result["idle"], result["samples"]
    final = samples[max(samples)]
    half = samples.get(TURNS // 2, idle)
    growth_late = (final - half) / ((max(samples) - TURNS // 2) / 100)
    growth_all = (final - idle) / (max(samples) / 100)
    return [
        Row(f"RSS after {max(samples)} turns with ~5 KB tool output", final, "MB", "idle app before the turns", idle),
        Row("RSS growth per 100 turns (whole run)", growth_all, "MB"),
        Row(f"RSS growth per 100 turns (turns {TURNS // 2}-{max(samples)})", growth_late, "MB"),
        Row("RSS of the idle app", idle, "MB"),
        Row(f"widgets in the DOM after {max(samples)} turns", result["widgets"], "widgets"),
    ]


if __name__ == "__main__":
    import sys

    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure())))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("memory", row) for row in run()))
