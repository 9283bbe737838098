"""Keystroke latency during a notify stream: an extension calls `ctx.ui.notify` 50 times a
second (tests/extensions/ui_flood.ts, `/flood-notify-stream 50 SECONDS`, real pi) while
keys are typed into the prompt at 20 Hz, as in `keystroke_latency` (toasts on, 120x40).
Reference: the same keys with the app idle. Also: the most toasts up at once and the
process's RSS after the stream. Goal: p95 < 50 ms during the stream.

Run: `python -m benchmarks notify_flood`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from benchmarks import harness as h
from benchmarks.keystroke_latency import type_keys
from benchmarks.table import Row

RATE = 50  # notifies a second
SECONDS = 10
IDLE_KEYS = 60


async def measure() -> dict[str, Any]:
    from app.pideck_app import PideckApp
    from tests.pi_harness import EXTENSIONS_DIR
    from widgets.prompt.editor import PromptEditor

    idle: list[float] = []
    busy: list[float] = []
    most = 0
    async with h.real_pi() as pi:
        app = PideckApp(pi.launch_config(extensions=[EXTENSIONS_DIR / "ui_flood.ts"]))
        async with app.run_test(size=h.SIZE, headless=True, notifications=True):
            await h.wait_until(lambda: app.desk.current.pi.ready and bool(app.desk.current.pi.commands), timeout=60, poll=0.01)
            editor = app.query_one(PromptEditor)
            await type_keys(app, idle, count=IDLE_KEYS)
            editor.load(f"/flood-notify-stream {RATE} {SECONDS}")
            editor.action_submit("enter")
            await h.wait_until(lambda: app.toasts.center.total > 0, timeout=30)

            def done() -> bool:
                nonlocal most
                most = max(most, len(app.screen.query("Toast")))
                return any(notice.message == "stream=done" for notice in app.toasts.center.entries)

            await type_keys(app, busy, until=done)
            notified = app.toasts.center.total
    return {"idle": idle, "busy": busy, "most": most, "notified": notified, "rss": h.rss_mb()}


def run() -> list[Row]:
    result = asyncio.run(measure())
    idle, busy = result["idle"], result["busy"]
    idle95 = h.percentile(idle, 95) * 1000
    return [
        Row(f"key -> editor text during {RATE} notifies/s, p50 ({len(busy)} keys)", h.percentile(busy, 50) * 1000,
            "ms", "idle app, p50", h.percentile(idle, 50) * 1000),
        Row(f"key -> editor text during {RATE} notifies/s, p95", h.percentile(busy, 95) * 1000, "ms",
            "idle app, p95", idle95),
        Row(f"key -> editor text during {RATE} notifies/s, max", max(busy, default=float("nan")) * 1000, "ms"),
        Row(f"toasts up at once, most ({result['notified']:,} notifications)", result["most"], "toasts"),
        Row("RSS after the stream", result["rss"], "MB"),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("notify_flood", row) for row in run()))
