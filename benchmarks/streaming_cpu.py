"""CPU while a reply streams at a reading pace: what pideck costs a laptop or an ssh session.

The real pi streams a reply of `DELTAS` deltas of about a token each, one every `DELAY`
seconds (a fast model's pace), into PideckApp headless at 120x40, under a transcript that already
holds a 3,000-delta reply. Measured: pideck's CPU time (this process) over the wall time
from submitting the prompt until the last token is painted, against the same app left
idle for as long. Median of `RUNS`. No goal is set yet.

Run: `python -m benchmarks streaming_cpu`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from app.scripted_model.server import Reply
from benchmarks import harness as h
from benchmarks import stream_to_screen as stream
from benchmarks.table import Row

DELTAS = 300
DELAY = 0.01  # seconds between deltas: 100 a second
RUNS = 3


def paced_reply(tag: str) -> tuple[str, ...]:
    """`DELTAS` deltas of about a token (4 characters) each, the last ending in the token."""
    text = "".join(h.long_reply_deltas(DELTAS, tag))
    head, end = text[: 4 * (DELTAS - 1)], h.last_token(tag)
    return (*(head[i : i + 4] for i in range(0, len(head), 4)), f" {end}")


async def cpu_share(app: Any, pi: Any, tag: str) -> float:
    """pideck's CPU seconds per wall second while the paced reply streams."""
    pi.model.reset()
    pi.model.queue(Reply(deltas=paced_reply(tag), delay=DELAY))
    token = h.last_token(tag)
    from widgets.prompt.editor import PromptEditor

    watch = h.PaintWatch(app, token)  # also turns each frame into terminal output, as a terminal would
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        app.desk.current.main.post_message(PromptEditor.Submitted(f"Stream slowly ({tag}).", "enter"))
        await h.wait_until(lambda: watch.painted is not None, timeout=60, poll=0.05)
        return (time.process_time() - cpu) / (time.perf_counter() - wall)
    finally:
        watch.close()


async def idle_share(seconds: float) -> float:
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.sleep(seconds)
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


async def measure(runs: int = RUNS) -> dict[str, list[float]]:
    streaming: list[float] = []
    idle: list[float] = []
    async with h.real_pi() as pi:
        for run in range(runs):
            app = await stream.start_app(pi)
            async with app.run_test(size=h.SIZE, headless=True):
                await stream.wait_ready(app)
                await stream.stream_once(app, pi, f"warm{run}")
                await stream.wait_idle(app)
                idle.append(await idle_share(DELTAS * DELAY))
                streaming.append(await cpu_share(app, pi, f"paced{run}"))
                await stream.wait_settled(app)
    return {"streaming": streaming, "idle": idle}


def run() -> list[Row]:
    result = asyncio.run(measure())
    streaming, idle = h.median(result["streaming"]) * 100, h.median(result["idle"]) * 100
    return [
        Row(f"pideck CPU while pi streams {1 / DELAY:.0f} deltas/s (median of {RUNS})", streaming, "% of a core",
            "the same app idle", idle),
        Row("pideck CPU, idle app", idle, "% of a core"),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("streaming_cpu", row) for row in run()))
