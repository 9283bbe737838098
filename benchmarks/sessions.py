"""Several sessions in one pideck: what the sessions not shown cost the one shown.

PideckApp headless at 120x40, each session over a client that runs nothing (records are fed
in-process, in bursts of 50, as pi's arrive), so every figure is pideck's own:

* keys typed at 20 Hz in the session shown while 4 of 7 other sessions each take a
  3,000-delta reply, p95, against the same keys with one session alone (goal ≤ 1.2×);
* the process's CPU for those 4 replies folded in sessions not shown, against the same 4
  replies drawn one after another in the session shown (goal ≤ 0.3×);
* 8 idle sessions: CPU and frames over 3 s against one session alone; the RSS each idle
  session adds;
* switching between two sessions of 1,000 messages each: Alt+N to the first frame of the
  other, against a Page Up in it (goal: ≤ 50 ms).

Run: `python -m benchmarks sessions`.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from benchmarks import harness as h
from benchmarks import tool_transcript as tools
from benchmarks.keystroke_latency import type_keys
from benchmarks.table import Row
from protocol import decode
from widgets.engine.probes import send_as_driver, watch_display

OPEN = 8
STREAMING = 4
KEYS = 60
IDLE_FOR = 3.0
MESSAGES = 1_000
DELTAS = 3_000


async def new_app(sessions: int) -> tuple[Any, list[Any]]:
    from app.pideck_app import PideckApp

    clients = [h.FakeClient() for _ in range(sessions)]
    app = PideckApp(h.fake_config(), client=clients[0])  # type: ignore[arg-type]
    return app, clients


def open_others(app: Any, clients: list[Any]) -> None:
    for client in clients[1:]:
        app.desk._open_slot(app.desk._new_slot(h.fake_config(), client), show=False)


async def feed(client: Any, records: list[Any]) -> None:
    for start in range(0, len(records), 50):
        for record in records[start : start + 50]:
            client.feed(record)
        await asyncio.sleep(0)


def folded(app: Any, number: int, token: str) -> bool:
    """The reply's last token is in session `number`'s model (its records folded)."""
    items = app.desk.slots[number].pi.model.items
    return bool(items) and any(token in block.text for block in getattr(items[-1], "blocks", {}).values())


async def keys_and_cpu() -> dict[str, float]:
    result: dict[str, float] = {}
    app, clients = await new_app(1)
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        alone: list[float] = []
        await type_keys(app, alone, count=KEYS)
        result["alone"] = h.percentile(alone, 95)
        # the reference: 4 replies drawn one after another in the session shown
        with h.gc_quiet():
            cpu = time.process_time()
            for run in range(STREAMING):
                tag = f"shown{run}"
                watch = h.PaintWatch(app, h.last_token(tag))
                await feed(clients[0], tools.stream_records(tag, DELTAS))
                await h.wait_until(lambda: watch.painted is not None, timeout=120)
                watch.close()
            result["drawn_cpu"] = time.process_time() - cpu
    app, clients = await new_app(OPEN)
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        open_others(app, clients)
        await pilot.pause()
        busy: list[float] = []
        streams = range(1, STREAMING + 1)
        with h.gc_quiet():
            cpu = time.process_time()
            feeding = [asyncio.create_task(feed(clients[n], tools.stream_records(f"bg{n}", DELTAS))) for n in streams]
            await h.wait_until(lambda: all(folded(app, n, h.last_token(f"bg{n}")) for n in streams), timeout=120)
            result["background_cpu"] = time.process_time() - cpu
            await asyncio.gather(*feeding)
        for n in streams:  # the same again, with keys typed meanwhile
            app.desk.slots[n].pi.model.take_changes()
            asyncio.create_task(feed(clients[n], tools.stream_records(f"keys{n}", DELTAS)))
        await type_keys(app, busy, count=KEYS)
        result["with_others"] = h.percentile(busy, 95)
    return result


async def idle() -> dict[str, float]:
    result: dict[str, float] = {}
    for sessions in (1, OPEN):
        app, clients = await new_app(sessions)
        async with app.run_test(size=h.SIZE, headless=True) as pilot:
            await pilot.pause()
            before = h.rss_mb()
            open_others(app, clients)
            await asyncio.sleep(1.0)
            frames = tools.Frames(app)
            cpu = time.process_time()
            await asyncio.sleep(IDLE_FOR)
            result[f"cpu{sessions}"] = time.process_time() - cpu
            result[f"frames{sessions}"] = frames.count
            if sessions > 1:
                result["rss_each"] = (h.rss_mb() - before) / (sessions - 1)
    return result


def long_messages(tag: str) -> list[Any]:
    """MESSAGES messages: a user's question and a paragraph of answer, by turns."""
    raw: list[dict[str, Any]] = []
    for turn in range(MESSAGES // 2):
        raw.append({"role": "user", "content": [{"type": "text", "text": f"Question {turn} of {tag}?"}], "timestamp": 1})
        raw.append({**tools.COMMON, "role": "assistant", "stopReason": "stop", "timestamp": 2,
                    "content": [{"type": "text", "text": f"Answer {turn}: " + "some words of it " * 30}]})
    response = decode(json.dumps({"type": "response", "command": "get_messages", "success": True,
                                  "data": {"messages": raw}}).encode())
    return response.data.messages  # type: ignore[union-attr]


class ScreenFrames:
    """The screens of the compositor's updates, in order (`App._display` sees each one)."""

    def __init__(self, app: Any) -> None:
        self.screens: list[Any] = []
        watch_display(app, lambda screen, _renderable: self.screens.append(screen))

    def shown_since(self, count: int, screen: Any) -> bool:
        return screen in self.screens[count:]


async def switching() -> dict[str, float]:
    from textual import events

    app, clients = await new_app(2)
    async with app.run_test(size=h.SIZE, headless=True) as pilot:
        await pilot.pause()
        open_others(app, clients)
        for number in (0, 1):
            app.desk.slots[number].pi.model.load_messages(long_messages(f"session {number + 1}"))
        app.desk.show(2)
        await app.desk.current.pi.apply_changes()
        app.desk.show(1)
        await app.desk.current.pi.apply_changes()
        await pilot.pause(0.5)
        frames = ScreenFrames(app)
        switches, pages = [], []
        for turn in range(10):
            seen, target = len(frames.screens), app.desk.slots[1 if turn % 2 == 0 else 0].main
            key = events.Key("alt+2" if turn % 2 == 0 else "alt+1", None)  # as the terminal's driver sends it
            key.set_sender(app)
            started = time.perf_counter()
            send_as_driver(app, key)
            await h.wait_until(lambda: frames.shown_since(seen, target), timeout=60, poll=0.001)
            switches.append(time.perf_counter() - started)
            await pilot.pause(0.5)  # (the session left is trimmed meanwhile)
            seen = len(frames.screens)
            started = time.perf_counter()
            app.desk.current.main.transcript.scroll_page_up(animate=False)
            await h.wait_until(lambda: len(frames.screens) > seen, timeout=60, poll=0.001)
            pages.append(time.perf_counter() - started)
            await pilot.pause(0.2)
    return {"switch": h.median(switches), "page": h.median(pages)}


def run() -> list[Row]:
    keys = asyncio.run(keys_and_cpu())
    still = asyncio.run(idle())
    switch = asyncio.run(switching())
    return [
        Row(f"key p95 in the session shown, {STREAMING} of {OPEN - 1} others streaming", keys["with_others"] * 1000,
            "ms", "one session alone", keys["alone"] * 1000),
        Row(f"CPU: {STREAMING} 3,000-delta replies in sessions not shown", keys["background_cpu"], "s",
            "the same drawn in the session shown", keys["drawn_cpu"]),
        Row(f"CPU over {IDLE_FOR:.0f} s idle, {OPEN} sessions", still[f"cpu{OPEN}"], "s", "one session", still["cpu1"]),
        Row(f"frames over {IDLE_FOR:.0f} s idle, {OPEN} sessions", still[f"frames{OPEN}"], "frames", "one session",
            still["frames1"]),
        Row("RSS each idle session adds (beside its pi child)", still["rss_each"], "MB"),
        Row(f"switch between two sessions of {MESSAGES:,} messages: key to first frame", switch["switch"] * 1000, "ms",
            "Page Up in one", switch["page"] * 1000),
    ]
