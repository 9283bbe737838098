"""A coding session's transcript: 200 tool results rendered by kind against the same
results shown as plain text, in one run.

The session holds 100 `edit` results with pi's ~300-line display diffs and 100 `read`
results of 500-line Python files (collapsed, as the transcript shows them), then an
answer. Measured in PideckApp headless at 120x40 (a client that runs nothing; the
messages are loaded as `/resume` loads them), for

* kinds: the tools as pi names them (`edit`, `read`, with `details`), rendered by kind
  (diffs, highlighted code);
* plain: the same text as the output of a tool pideck knows nothing about;

the time from loading the messages to the first frame showing the last answer, the
time to scroll 20 pages up (each until its frame is composed), and how long a
2,000-delta reply then takes to reach the screen against the same reply on an empty
transcript (the stream-to-screen ratio; it must not grow with the tool results).
Medians of `RUNS`, the variants taking turns.

Run: `python -m benchmarks tool_transcript`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from benchmarks import harness as h
from benchmarks.table import Row
from widgets.engine.probes import watch_display
from protocol import decode
from protocol.wire.codec import Unknown

RUNS = 3
TOOLS = 200
DIFF_LINES = 300
READ_LINES = 500
PAGES = 20
DELTAS = 2_000
LAST = "ZZLASTANSWER"
COMMON = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo"}


def _python_line(number: int, file: int = 0) -> str:
    """A line of Python; each file's lines are its own (no cache can take one file for another)."""
    return f"    value_{file}_{number} = compute(items[{number}], limit={(number + file) % 17})  # step {number}"


def _edit_details(index: int) -> dict[str, Any]:
    """pi's display diff and patch of an edit with two changes 150 lines apart."""
    width = 4
    rows: list[str] = []
    for number in range(1, DIFF_LINES + 1):
        if number % 150 == 10:
            rows.append(f"-{number:>{width}} {_python_line(number, index)}")
            rows.append(f"+{number:>{width}} {_python_line(number, index).replace('compute', f'compute_v{index}')}")
        else:
            rows.append(f" {number:>{width}} {_python_line(number, index)}")
    patch = f"--- src/module_{index}.py\n+++ src/module_{index}.py\n@@ -1,3 +1,3 @@\n-old\n+new\n"
    return {"diff": "\n".join(rows), "patch": patch, "firstChangedLine": 10}


def session_messages(kinds: bool) -> list[Any]:
    """The session's messages: per tool, a call and its result; then the answer."""
    raw: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Rename compute everywhere."}], "timestamp": 1}]
    for index in range(TOOLS):
        call = f"call_{index}"
        if index % 2 == 0:
            name, args = "edit", {"path": f"src/module_{index}.py", "edits": [{"oldText": "compute", "newText": f"compute_v{index}"}]}
            details: Any = _edit_details(index)
            text = f"Successfully replaced 2 block(s) in src/module_{index}.py."
            plain = details["diff"]
        else:
            name, args, details = "read", {"path": f"src/file_{index}.py"}, None
            text = plain = "\n".join(_python_line(number, index) for number in range(1, READ_LINES + 1))
        if not kinds:
            name, args, details, text = "plain_output", {}, None, plain
        raw.append({**COMMON, "role": "assistant", "stopReason": "toolUse", "timestamp": 2,
                    "content": [{"type": "toolCall", "id": call, "name": name, "arguments": args}]})
        raw.append({"role": "toolResult", "toolCallId": call, "toolName": name, "isError": False, "details": details,
                    "content": [{"type": "text", "text": text}], "timestamp": 3})
    raw.append({**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": 4,
                "content": [{"type": "text", "text": f"Done. {LAST}"}]})
    response = decode(json.dumps({"type": "response", "command": "get_messages", "success": True, "data": {"messages": raw}}).encode())
    return response.data.messages  # type: ignore[union-attr]


def stream_records(tag: str, count: int = DELTAS) -> list[Any]:
    """message_start, `count` text deltas ending in the reply's last token, message_end."""
    deltas = h.long_reply_deltas(count, tag)
    message = {**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": 5, "content": []}
    lines = [{"type": "message_start", "message": message},
             {"type": "message_update", "assistantMessageEvent": {"type": "text_start", "contentIndex": 0}}]
    lines += [{"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": d}} for d in deltas]
    lines.append({"type": "message_end", "message": {**message, "content": [{"type": "text", "text": "".join(deltas)}]}})
    records = [decode(json.dumps(line).encode()) for line in lines]
    assert not any(isinstance(record, Unknown) for record in records), "the benchmark's records must be pi's"
    return records


class Frames:
    """Counts the compositor's updates (`App._display` sees each one, headless too)."""

    def __init__(self, app: Any) -> None:
        self.count = 0

        def display(_screen: Any, _renderable: Any) -> None:
            self.count += 1

        watch_display(app, display)


async def measure_variant(kinds: bool | None, tag: str) -> dict[str, float]:
    """Load (None: nothing), scroll and stream in a fresh app; seconds of each."""
    from app.pideck_app import PideckApp

    client = h.FakeClient()
    app = PideckApp(h.fake_config(), client=client)  # type: ignore[arg-type]
    result: dict[str, float] = {}
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        transcript = app.desk.current.main.transcript
        frames = Frames(app)
        if kinds is not None:
            messages = session_messages(kinds)
            watch = h.PaintWatch(app, LAST)
            with h.gc_quiet():
                started = time.perf_counter()
                app.desk.current.pi.model.load_messages(messages)
                await app.desk.current.pi.apply_changes()
                await h.wait_until(lambda: watch.painted is not None, timeout=120)
            watch.close()
            result["load"] = watch.painted - started  # type: ignore[operator]
            await pilot.pause()
            with h.gc_quiet():
                started = time.perf_counter()
                for _ in range(PAGES):
                    seen = frames.count
                    transcript.page(-1)  # (PageUp's scroll, at once: Textual's scroll_page_up waits for a frame,
                    # and could come after the scroll to the end below, the reply then not followed)
                    await h.wait_until(lambda seen=seen: frames.count > seen, timeout=60)
                result["scroll"] = time.perf_counter() - started
            transcript.scroll_end(animate=False, immediate=True)
            await pilot.pause()
        records = stream_records(tag)
        watch = h.PaintWatch(app, h.last_token(tag))
        with h.gc_quiet():
            started = time.perf_counter()
            for start in range(0, len(records), 50):  # pi's records arrive in bursts
                for record in records[start : start + 50]:
                    client.feed(record)
                await asyncio.sleep(0)
            await h.wait_until(lambda: watch.painted is not None, timeout=120)
        watch.close()
        result["stream"] = watch.painted - started  # type: ignore[operator]
    return result


async def measure(runs: int = RUNS) -> dict[str, dict[str, list[float]]]:
    found: dict[str, dict[str, list[float]]] = {"kinds": {}, "plain": {}, "empty": {}}
    for run_index in range(runs):
        for variant, kinds in (("kinds", True), ("plain", False), ("empty", None)):
            for key, seconds in (await measure_variant(kinds, f"{variant}{run_index}")).items():
                found[variant].setdefault(key, []).append(seconds)
    return found


def run(runs: int = RUNS) -> list[Row]:
    found = asyncio.run(measure(runs))
    kinds, plain, empty = ({key: h.median(values) for key, values in found[name].items()} for name in ("kinds", "plain", "empty"))
    return [
        Row("200 results to screen (by kind vs plain)", kinds["load"], "s", "plain text", plain["load"]),
        Row(f"scroll {PAGES} pages (by kind vs plain)", kinds["scroll"], "s", "plain text", plain["scroll"]),
        Row(f"{DELTAS:,}-delta reply after them (vs empty transcript)", kinds["stream"], "s",
            "empty transcript", empty["stream"]),
        Row(f"{DELTAS:,}-delta reply after plain results (vs empty)", plain["stream"], "s",
            "empty transcript", empty["stream"]),
    ]
