"""Keystroke latency: typing in the prompt editor while a 3,000-delta reply floods in.

Keys are sent the way a terminal sends them (an `events.Key` through the headless
driver) at about 20 Hz while the real pi streams the long reply of
`stream_to_screen` into PideckApp (120x40); each key's latency is from sending it to
the character being typed in `PromptEditor` (its cursor moved on; polled every 1 ms, so it includes the time
the event loop is busy with the stream). Reference: the same keys with the app idle
(after a warm-up stream). A fresh app (and pi child) per stream.
Reports p50 and p95 of both; goal: p95 < 50 ms while streaming.

Also keys typed at the end of a 2 MB editor text, as an extension's `set_editor_text` may
leave (lines with `@words`, which the prompt completes and scans for images): the first
key and the p50, against the idle app's p50 in the same run.

Run: `python -m benchmarks keystroke_latency`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from benchmarks import harness as h
from benchmarks import stream_to_screen as stream
from benchmarks.table import Row
from widgets.engine.probes import send_as_driver

RATE = 20.0  # keys per second
STREAMS = 10
IDLE_KEYS = 60
HUGE_KEYS = 20
HUGE_LINE = "look at @src/main.py and @docs/notes.md, then fix the parser"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


async def type_key(app: Any, char: str) -> float:
    """Send one key like a terminal would; seconds until it is in the editor's text."""
    from textual import events

    from widgets.prompt.editor import PromptEditor

    editor = app.query_one(PromptEditor)
    before = editor.cursor_location  # not `len(editor.text)`, which joins the text on every look
    event = events.Key(char, char)
    event.set_sender(app)
    started = time.perf_counter()
    send_as_driver(app, event)
    done = await h.wait_until(lambda: editor.cursor_location != before, timeout=30, poll=0.001)
    return done - started


async def type_keys(app: Any, samples: list[float], *, count: int | None = None, until: Any = None) -> None:
    """Type at RATE until `count` keys were typed or `until()` holds."""
    period = 1 / RATE
    next_at = time.perf_counter()
    typed = 0
    while (count is None or typed < count) and not (until is not None and until()):
        samples.append(await type_key(app, LETTERS[typed % len(LETTERS)]))
        typed += 1
        next_at += period
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def measure(streams: int = STREAMS) -> dict[str, list[float]]:
    from widgets.prompt.editor import PromptEditor

    idle: list[float] = []
    busy: list[float] = []
    huge: list[float] = []
    async with h.real_pi() as pi:
        for run in range(streams):  # a fresh app (and pi) per stream, as in stream_to_screen
            app = await stream.start_app(pi)
            async with app.run_test(size=h.SIZE, headless=True):
                await stream.wait_ready(app)
                await stream.stream_once(app, pi, f"warm{run}")  # warm-up: pi's JIT, the renderer's caches
                app.query_one(PromptEditor).load("")
                await type_keys(app, idle, count=IDLE_KEYS // streams)
                if run == 0:
                    await type_after_huge_text(app, huge)
                app.query_one(PromptEditor).load("")
                tag = f"keys{run}"
                token = h.last_token(tag)

                async def during(app: Any, token: str = token) -> None:
                    await type_keys(app, busy, until=lambda: h.reply_received(app, token))

                await stream.stream_once(app, pi, tag, during=during)
    return {"idle": idle, "streaming": busy, "huge": huge}


async def type_after_huge_text(app: Any, samples: list[float]) -> None:
    """Put a 2 MB text in the editor (as `set_editor_text` does), let it settle, type HUGE_KEYS."""
    from widgets.prompt.editor import PromptEditor

    lines = 2_000_000 // (len(HUGE_LINE) + 1) + 1
    text = "\n".join([HUGE_LINE] * lines)
    editor = app.query_one(PromptEditor)
    editor.load(text)
    await h.wait_until(lambda: len(editor.text) == len(text), timeout=60)
    await asyncio.sleep(1.0)  # the change's completion and image scan run before the first key
    await type_keys(app, samples, count=HUGE_KEYS)


def run() -> list[Row]:
    result = asyncio.run(measure())
    idle, busy, huge = result["idle"], result["streaming"], result["huge"]
    idle50, idle95 = h.percentile(idle, 50) * 1000, h.percentile(idle, 95) * 1000
    busy50, busy95 = h.percentile(busy, 50) * 1000, h.percentile(busy, 95) * 1000
    return [
        Row(f"key -> editor text while streaming, p50 ({len(busy)} keys)", busy50, "ms", "idle app, p50", idle50),
        Row(f"key -> editor text while streaming, p95 ({len(busy)} keys)", busy95, "ms", "idle app, p95", idle95),
        Row(f"key -> editor text while streaming, max", max(busy, default=float("nan")) * 1000, "ms"),
        Row(f"key -> editor text, idle app, p50 ({len(idle)} keys)", idle50, "ms"),
        Row(f"key -> editor text, idle app, p95 ({len(idle)} keys)", idle95, "ms"),
        Row("key -> editor text after a 2 MB editor text, first key", huge[0] * 1000, "ms", "idle app, p50", idle50),
        Row(f"key -> editor text after a 2 MB editor text, p50 ({len(huge)} keys)",
            h.percentile(huge, 50) * 1000, "ms", "idle app, p50", idle50),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("keystroke_latency", row) for row in run()))
