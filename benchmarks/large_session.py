"""Opening a large session: pideck started on a session file of SIZE MB (`--session`),
from asking pi for the messages to the first frame that shows the session's last message.

The session is written by `write_session`: turns of a question, a tool call, a tool
result of a few KB (the bulk, as in real sessions) and an answer. Measured in one run:

* reference: a bare `RpcClient` on pi started on the same file - from writing
  `get_messages` to having its answer (read and decoded);
* pideck: `PideckApp` headless at 120x40 on the same file - from writing `get_messages`
  to the first compositor update showing the last answer's unique token
  (`harness.PaintWatch`), and the process's RSS after it, against the RSS of the idle
  app (a fake client, before it opened anything).

and `pideck view` (no pi) on a JSON-mode output file of the same size and turns (what
`pi -p --mode json` prints for them: every delta, the bash tool's partial results, each
turn's `turn_end`, the run's `agent_end`), and on the session file itself: from
constructing the app to the same first frame, against pideck opening the session through pi.

SIZE is 50 MB; `PIDECK_BENCH_SESSION_MB=218` (or any size) sets it.

Run: `python -m benchmarks large_session`.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from pathlib import Path
from typing import Any

from benchmarks import harness as h
from benchmarks.table import Row

SIZE_MB = float(os.environ.get("PIDECK_BENCH_SESSION_MB", "50"))
RESULT_BYTES = 4_000  # of each tool result
LAST = "ZZLASTANSWER"
USAGE = {"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
         "cost": {"input": 0.0012, "output": 0.0004, "cacheRead": 0, "cacheWrite": 0, "total": 0.0016}}


def _entry(kind_id: str, parent: str | None, stamp: int, message: dict[str, Any]) -> str:
    iso = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(stamp / 1000))
    message["timestamp"] = stamp
    return json.dumps({"type": "message", "id": kind_id, "parentId": parent, "timestamp": iso, "message": message})


def write_session(path: Path, megabytes: float, cwd: Path, turns: int | None = None) -> int:
    """A session file of about `megabytes` MB, or of `turns` turns; returns its message
    count. The last assistant answer ends with `LAST`."""
    budget = int(megabytes * 1024 * 1024)
    stamp = 1_795_000_000_000
    header = {"type": "session", "version": 3, "id": "0195a1b2-0000-7000-8000-00000000beef",
              "timestamp": "2026-11-17T09:00:00.000Z", "cwd": str(cwd)}
    common = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}
    parent: str | None = None
    written = count = turn = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        while True:
            last = turn == turns - 1 if turns else written >= budget - 3 * RESULT_BYTES
            line = f"turn {turn} line %04d: build output, a warning or two, paths and numbers\n"
            output = "".join(line % i for i in range(RESULT_BYTES // len(line % 0) + 1))[:RESULT_BYTES]
            call = f"call_{turn}"
            answer = f"Turn {turn} is done — see the log." + (f" {LAST}" if last else "")
            messages = [
                {"role": "user", "content": [{"type": "text", "text": f"Question {turn}: build and check the log"}]},
                {**common, "role": "assistant", "stopReason": "toolUse", "content": [
                    {"type": "text", "text": f"Running the build for turn {turn}."},
                    {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": f"make turn-{turn}"}}]},
                {"role": "toolResult", "toolCallId": call, "toolName": "bash", "isError": False,
                 "content": [{"type": "text", "text": output}]},
                {**common, "role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": answer}]},
            ]
            for index, message in enumerate(messages):
                entry_id = f"{turn:07x}{index}"
                text = _entry(entry_id, parent, stamp, message) + "\n"
                out.write(text)
                written += len(text)
                parent, stamp, count = entry_id, stamp + 1, count + 1
            turn += 1
            if last:
                return count


def _event(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields}) + "\n"


def write_json_run(path: Path, megabytes: float, cwd: Path) -> int:
    """A JSON-mode output file of about `megabytes` MB (the turns of `write_session`, as pi
    streams them); returns its line count. The last answer ends with `LAST`."""
    budget = int(megabytes * 1024 * 1024)
    stamp = 1_795_000_000_000
    common = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}
    written = lines = turn = 0
    with path.open("w", encoding="utf-8") as out:
        def emit(text: str) -> None:
            nonlocal written, lines
            out.write(text)
            written, lines = written + len(text), lines + 1

        emit(json.dumps({"type": "session", "version": 3, "id": "0195a1b2-0000-7000-8000-00000000cafe",
                         "timestamp": "2026-11-17T09:00:00.000Z", "cwd": str(cwd)}) + "\n")
        emit(_event("agent_start"))
        while True:
            last = written >= budget - 6 * RESULT_BYTES
            call = f"call_{turn}"
            line = f"turn {turn} line %04d: build output, a warning or two, paths and numbers\n"
            output = "".join(line % i for i in range(RESULT_BYTES // len(line % 0) + 1))[:RESULT_BYTES]
            answer = f"Turn {turn} is done — see the log." + (f" {LAST}" if last else "")
            user = {"role": "user", "content": [{"type": "text", "text": f"Question {turn}: build and check the log"}],
                    "timestamp": stamp}
            running = f"Running the build for turn {turn}."
            asked = {**common, "role": "assistant", "stopReason": "toolUse", "timestamp": stamp + 1, "content": [
                {"type": "text", "text": running},
                {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": f"make turn-{turn}"}}]}
            result = {"role": "toolResult", "toolCallId": call, "toolName": "bash", "isError": False,
                      "content": [{"type": "text", "text": output}], "timestamp": stamp + 2}
            done = {**common, "role": "assistant", "stopReason": "stop", "timestamp": stamp + 3,
                    "content": [{"type": "text", "text": answer}]}
            emit(_event("turn_start"))
            emit(_event("message_start", message=user))
            emit(_event("message_end", message=user))
            emit(_event("message_start", message={**asked, "content": [], "stopReason": "pending"}))
            for start in range(0, len(running), 4):
                emit(_event("message_update", usage=USAGE, assistantMessageEvent={
                    "type": "text_delta", "contentIndex": 0, "delta": running[start : start + 4]}))
            emit(_event("message_update", usage=USAGE, assistantMessageEvent={
                "type": "toolcall_start", "contentIndex": 1, "id": call, "toolName": "bash"}))
            emit(_event("message_end", message=asked))
            args = {"command": f"make turn-{turn}"}
            emit(_event("tool_execution_start", toolCallId=call, toolName="bash", args=args))
            for part in (1, 2, 3, 4):  # bash's partial results: the output so far, each time
                emit(_event("tool_execution_update", toolCallId=call, toolName="bash", args=args, partialResult={
                    "content": [{"type": "text", "text": output[: len(output) * part // 4]}], "details": {}}))
            emit(_event("tool_execution_end", toolCallId=call, toolName="bash", isError=False, durationMs=12,
                        result={"content": [{"type": "text", "text": output}], "details": {}}))
            emit(_event("message_start", message=result))
            emit(_event("message_end", message=result))
            emit(_event("turn_end", message=asked, toolResults=[result]))
            emit(_event("turn_start"))
            emit(_event("message_start", message={**done, "content": [], "stopReason": "pending"}))
            for start in range(0, len(answer), 4):
                emit(_event("message_update", usage=USAGE, assistantMessageEvent={
                    "type": "text_delta", "contentIndex": 0, "delta": answer[start : start + 4]}))
            emit(_event("message_end", message=done))
            emit(_event("turn_end", message=done, toolResults=[]))
            stamp, turn = stamp + 4, turn + 1
            if last:
                break
        emit(_event("agent_end", messages=[], willRetry=False))  # (pi lists the run's messages here again)
        emit(_event("agent_settled", aborted=False))
    return lines


async def view_opens(path: Path) -> float:
    """Seconds from constructing `pideck view`'s app on `path` to the last message painted."""
    from app.view.app import ViewApp
    from protocol.files.view_client import ViewClient

    started = time.perf_counter()
    app = ViewApp(h.fake_config(), ViewClient(str(path)), path=path)
    watch = h.PaintWatch(app, LAST)
    async with app.run_test(size=h.SIZE, headless=True):
        await h.wait_until(lambda: watch.painted is not None, timeout=900, poll=0.01)
    assert watch.painted is not None
    return watch.painted - started


def peak_rss_mb() -> float:
    """The most this process has held resident (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def idle_rss() -> float:
    from app.pideck_app import PideckApp

    app = PideckApp(h.fake_config(), client=h.FakeClient())  # type: ignore[arg-type]
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        gc.collect()
        return h.rss_mb()


async def pideck_opens(pi: Any, argv: list[str]) -> dict[str, float]:
    """Seconds from writing get_messages to the answer read, and to the last message painted."""
    from app.pideck_app import PideckApp
    from protocol.wire.commands import GetMessages
    from protocol.wire.responses import Response

    app = PideckApp(pi.launch_config(session_dir=pi.root / "sessions", extra_args=argv))
    marks: dict[str, float] = {}
    send = app.desk.current.pi.client.send

    async def timed_send(record: Any) -> None:
        if isinstance(record, GetMessages):
            marks["asked"] = time.perf_counter()
        await send(record)

    def listen(record: Any) -> None:
        if isinstance(record, Response) and record.command == "get_messages":
            marks["read"] = time.perf_counter()

    app.desk.current.pi.client.send = timed_send  # type: ignore[method-assign]
    app.desk.current.pi.client.add_listener(listen)
    watch = h.PaintWatch(app, LAST)
    async with app.run_test(size=h.SIZE, headless=True):
        await h.wait_until(lambda: watch.painted is not None, timeout=900, poll=0.01)
        rss, peak = h.rss_mb(), peak_rss_mb()
    assert watch.painted is not None
    return {"read": marks["read"] - marks["asked"], "screen": watch.painted - marks["asked"], "rss": rss, "peak": peak}


async def pi_alone(pi: Any, argv: list[str]) -> float:
    """Seconds from writing get_messages to its answer read and decoded by a bare RpcClient."""
    from protocol.wire.commands import GetMessages

    client = await pi.start_client(session_dir=pi.root / "sessions", extra_args=argv, ready_timeout=600)
    try:
        started = time.perf_counter()
        await client.call(GetMessages(), timeout=900)
        return time.perf_counter() - started
    finally:
        await pi.close_client(client)


async def measure(megabytes: float = SIZE_MB) -> dict[str, Any]:
    idle = await idle_rss()
    async with h.real_pi() as pi:
        path = pi.root / "large.jsonl"
        messages = write_session(path, megabytes, pi.cwd)
        size = path.stat().st_size
        argv = ["--session", str(path)]
        opened = await pideck_opens(pi, argv)
        gc.collect()
        reference = await pi_alone(pi, argv)
        run = pi.root / "large-run.jsonl"
        run_lines = write_json_run(run, megabytes, pi.cwd)
        run_bytes = run.stat().st_size
        gc.collect()
        view_run = await view_opens(run)
        gc.collect()
        view_session = await view_opens(path)
    return {"idle": idle, "reference": reference, "messages": messages, "bytes": size, **opened,
            "view_run": view_run, "run_bytes": run_bytes, "run_lines": run_lines, "view_session": view_session}


def run() -> list[Row]:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "benchmarks.large_session", "--json"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    size = f"{result['bytes'] / 1024 / 1024:,.0f} MB, {result['messages']:,} messages"
    ref_name = "pi alone: get_messages -> answer read (RpcClient)"
    reference = result["reference"] * 1000
    screen_name = f"pideck: get_messages -> last message on screen ({size})"
    return [
        Row(screen_name, result["screen"] * 1000, "ms", ref_name, reference),
        Row(ref_name, reference, "ms"),
        Row("pideck: get_messages -> answer read", result["read"] * 1000, "ms", ref_name, reference),
        Row("RSS with the session on screen", result["rss"], "MB", "idle app", result["idle"]),
        Row("peak RSS while opening it", result["peak"], "MB", "idle app", result["idle"]),
        Row(f"pideck view: JSON-mode file -> last message on screen ({result['run_bytes'] / 1024 / 1024:,.0f} MB, "
            f"{result['run_lines']:,} lines)", result["view_run"] * 1000, "ms", screen_name, result["screen"] * 1000),
        Row("pideck view: the session file -> last message on screen", result["view_session"] * 1000, "ms",
            screen_name, result["screen"] * 1000),
    ]


if __name__ == "__main__":
    import sys

    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure())))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("large_session", row) for row in run()))
