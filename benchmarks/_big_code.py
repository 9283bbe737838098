"""Shared by the big-code benchmarks (big_line_diff, big_write, big_diff, long_tool_session):
tool calls made into a session's messages, the app on a client that runs nothing, and
timings from an action to the frame that shows its result.

Each measurement runs in a fresh interpreter (`in_subprocess`), so the RSS it reports is
what that one scenario grew the process to.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from benchmarks import harness as h
from protocol import decode
from widgets.engine.probes import watch_display

LAST = "ZZLASTANSWER"
COMMON = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo"}
ROOT = Path(__file__).resolve().parents[1]

Tool = tuple[str, dict[str, Any], Any, str]  # name, arguments, details, result text


FIRST = "ZZFIRSTQUESTION"


def session_messages(tools: list[Tool], answer: str = LAST) -> list[Any]:
    """A user's question (ending in FIRST), a call and a result per tool, then an answer
    ending in `answer`."""
    raw: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": f"Go. {FIRST}"}], "timestamp": 1}]
    for index, (name, args, details, text) in enumerate(tools):
        call = f"call_{index}"
        raw.append({**COMMON, "role": "assistant", "stopReason": "toolUse", "timestamp": 2,
                    "content": [{"type": "toolCall", "id": call, "name": name, "arguments": args}]})
        raw.append({"role": "toolResult", "toolCallId": call, "toolName": name, "isError": False, "details": details,
                    "content": [{"type": "text", "text": text}], "timestamp": 3})
    raw.append({**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": 4,
                "content": [{"type": "text", "text": f"Done. {answer}"}]})
    response = decode(json.dumps({"type": "response", "command": "get_messages", "success": True, "data": {"messages": raw}}).encode())
    return response.data.messages  # type: ignore[union-attr]


def edit_tool(path: str, diff_lines: list[str], patch_lines: list[str]) -> Tool:
    patch = "\n".join([f"--- {path}", f"+++ {path}", *patch_lines]) + "\n"
    details = {"diff": "\n".join(diff_lines), "patch": patch, "firstChangedLine": 1}
    return "edit", {"path": path, "edits": [{"oldText": "a", "newText": "b"}]}, details, f"Successfully replaced 1 block(s) in {path}."


@contextlib.asynccontextmanager
async def app_running() -> AsyncIterator[tuple[Any, Any]]:
    """PideckApp headless at 120x40 on a client that runs nothing: (app, pilot)."""
    from app.pideck_app import PideckApp

    app = PideckApp(h.fake_config(), client=h.FakeClient())  # type: ignore[arg-type]
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        yield app, pilot


async def until_painted(app: Any, token: str, action: Callable[[], Any], timeout: float) -> float:
    """Seconds from starting `action` (awaited if it returns an awaitable) to the first
    frame that shows `token`."""
    watch = h.PaintWatch(app, token)
    try:
        gc.collect()
        started = time.perf_counter()
        result = action()
        if asyncio.iscoroutine(result):
            await result
        await h.wait_until(lambda: watch.painted is not None, timeout=timeout, poll=0.005)
        return watch.painted - started  # type: ignore[operator]
    finally:
        watch.close()


async def load(app: Any, messages: list[Any], timeout: float) -> float:
    """Seconds from loading `messages` (as /resume does) to the answer on screen."""

    async def apply() -> None:
        app.desk.current.pi.model.load_messages(messages)
        await app.desk.current.pi.apply_changes()

    return await until_painted(app, LAST, apply, timeout)


async def load_and_open_full(app: Any, pilot: Any, messages: list[Any], timeout: float = 900) -> tuple[float, float]:
    """(seconds to the answer on screen, seconds from asking for the first tool call's full
    view to the frame that shows it)."""
    from widgets.tools.output import ShowToolOutput

    loaded = await load(app, messages, timeout)
    await pilot.pause()
    first = app.desk.current.pi.model.tool_runs()[0].key
    full = await until_painted(app, " characters", lambda: app.desk.current.main.post_message(ShowToolOutput(first)), timeout)
    await pilot.pause()
    return loaded, full


def in_subprocess(module: str, *args: str, timeout: float = 1200) -> dict[str, Any]:
    """Run `python -m benchmarks.<module> --json args…` and return the JSON it prints last;
    a run that took longer than `timeout` gives {"timeout": timeout}."""
    try:
        out = subprocess.run([sys.executable, "-m", f"benchmarks.{module}", "--json", *args], cwd=ROOT,
                             capture_output=True, text=True, check=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    return json.loads(out.strip().splitlines()[-1])


async def next_frame(app: Any, action: Callable[[], Any], timeout: float = 900, when: Callable[[], bool] = lambda: True) -> float:
    """Seconds from starting `action` to the next frame the compositor makes after it
    (timed as it is made: work queued after it may delay the wait's next look), the
    first made once `when()` holds."""
    frames: list[float] = []

    def display(screen: Any, renderable: Any) -> None:
        if when():
            frames.append(time.perf_counter())

    undo = watch_display(app, display)
    try:
        gc.collect()
        started = time.perf_counter()
        result = action()
        if asyncio.iscoroutine(result):
            await result
        await h.wait_until(lambda: bool(frames), timeout=timeout, poll=0.005)
        return frames[0] - started
    finally:
        undo()
