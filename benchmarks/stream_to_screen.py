"""Stream to screen: a 3,000-delta reply from the real pi, through PideckApp, onto the screen.

The scripted model streams 3,000 deltas of a few words (headings, list items, bold and
inline code now and then) with no delay. Measured (median of RUNS, after one warm-up):

* reference: a plain `RpcClient` reading pi's stdout - from writing `prompt` to the
  record carrying the last delta;
* pideck: `PideckApp` headless at 120x40 - from posting `PromptEditor.Submitted` to the
  first compositor update (the frame the terminal would be sent) that shows the
  unique last token (`harness.PaintWatch`). Each run uses a fresh app whose transcript already holds one
  such reply (a warm-up stream, which also warms up its pi child).

Both run in the same process, in pairs (pi alone, then pideck), so that a shared
machine's drift slows both alike. Goal: ratio <= 1.10.

Run: `python -m benchmarks stream_to_screen`.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from benchmarks import harness as h
from benchmarks.table import Row
from protocol.wire.client import ChildExited, RpcClient
from protocol.wire.commands import Prompt
from protocol.wire.events import AgentSettled

DELTAS = 3000
RUNS = 9


async def pi_alone(client: RpcClient, pi: Any, tag: str, deltas: int = DELTAS) -> float:
    """Seconds from writing `prompt` to reading the record that carries the last delta."""
    h.queue_reply(pi, h.long_reply_deltas(deltas, tag))
    token = h.last_token(tag)
    seen: dict[str, float] = {}
    settled = asyncio.Event()

    def listen(record: Any) -> None:
        if "last" not in seen and h.delta_contains(record, token):
            seen["last"] = time.perf_counter()
        if isinstance(record, (AgentSettled, ChildExited)):
            settled.set()

    remove = client.add_listener(listen)
    try:
        started = time.perf_counter()
        await client.send(Prompt(message=f"Stream {deltas} deltas ({tag}).", id=client.next_id()))
        await asyncio.wait_for(settled.wait(), 120)
    finally:
        remove()
    if "last" not in seen:
        raise RuntimeError(f"pi never sent the last delta; stderr:\n{client.stderr_tail}")
    return seen["last"] - started


async def start_app(pi: Any, size: tuple[int, int] = h.SIZE) -> Any:
    from app.pideck_app import PideckApp

    return PideckApp(h.launch_config(pi))


async def wait_ready(app: Any, timeout: float = 60.0) -> None:
    await h.wait_until(lambda: app.desk.current.pi.ready, timeout=timeout, poll=0.01)


async def stream_once(app: Any, pi: Any, tag: str, deltas: int = DELTAS, during: Any = None) -> dict[str, float]:
    """Prompt the app for a long reply; returns {"screen": s, "pi": s} from submit.

    "pi" is when the app's client read the last delta (pi's pace inside the app run).
    `during(app)` (a coroutine function) runs while the reply streams.
    """
    from widgets.prompt.editor import PromptEditor

    h.queue_reply(pi, h.long_reply_deltas(deltas, tag))
    token = h.last_token(tag)
    seen: dict[str, float] = {}

    def listen(record: Any) -> None:
        if "pi" not in seen and h.delta_contains(record, token):
            seen["pi"] = time.perf_counter()

    remove = app.desk.current.pi.client.add_listener(listen)
    watch = h.PaintWatch(app, token)
    try:
        started = time.perf_counter()
        app.desk.current.main.post_message(PromptEditor.Submitted(f"Stream {deltas} deltas ({tag}).", "enter"))
        side = asyncio.create_task(during(app)) if during is not None else None
        await h.wait_until(lambda: watch.painted is not None, timeout=120)
        shown = watch.painted
        if side is not None:
            await side
        await wait_settled(app)
    finally:
        watch.close()
        remove()
    return {"screen": shown - started, "pi": seen.get("pi", float("nan")) - started}


async def wait_settled(app: Any) -> None:
    """Until the run is over and its records are shown, and the stats refresh that
    agent_settled starts has finished (a stats worker still running when the app closes
    fails on the removed StatsPane)."""
    await h.wait_until(lambda: not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle, timeout=60, poll=0.01)
    await h.wait_until(lambda: not any(w.group in ("stats", "send") and not w.is_finished
                                       for w in app.workers), timeout=30, poll=0.01)


async def wait_idle(app: Any) -> None:
    """Until the app has rendered every chunk it put off and run its full collection after
    the last reply (either would run during the next measurement), then a collection of
    what came before."""
    from app.gc_pause import SETTLE
    from widgets.markdown.stream import StreamingText

    await h.wait_until(lambda: not any(block.pending for block in app.query(StreamingText)), timeout=30, poll=0.01)
    await h.wait_until(lambda: not app.desk.current.pi.model.running, timeout=30, poll=0.01)
    await asyncio.sleep(SETTLE + 0.2)
    gc.collect()


async def measure(runs: int = RUNS, deltas: int = DELTAS) -> dict[str, Any]:
    """Pairs of runs, one after the other: pi alone, then pideck. A fresh app (and pi child)
    per pair, warmed up by one long reply, so every pideck run starts from the same
    transcript; the reference client is warmed up once and kept."""
    reference: list[float] = []
    app_runs: list[dict[str, float]] = []
    async with h.real_pi() as pi:
        client: RpcClient = await pi.start_client()
        try:
            await pi_alone(client, pi, "ref-warm", deltas)
            for run in range(runs):
                app = await start_app(pi)
                async with app.run_test(size=h.SIZE, headless=True):
                    await wait_ready(app)
                    await stream_once(app, pi, f"warm{run}", deltas)
                    await wait_idle(app)
                    reference.append(await pi_alone(client, pi, f"ref{run}", deltas))
                    app_runs.append(await stream_once(app, pi, f"app{run}", deltas))
        finally:
            await pi.close_client(client)
    return {
        "reference": reference,
        "screen": [r["screen"] for r in app_runs],
        "pi_in_app": [r["pi"] for r in app_runs],
    }


def run() -> list[Row]:
    result = asyncio.run(measure())
    reference = h.median(result["reference"])
    screen = h.median(result["screen"])
    pi_in_app = h.median(result["pi_in_app"])
    ref_name = "pi alone: prompt -> last delta read (RpcClient)"
    return [
        Row(f"pideck: submit -> last token on screen ({DELTAS:,} deltas, median of {RUNS})", screen * 1000, "ms",
            ref_name, reference * 1000),
        Row(ref_name, reference * 1000, "ms"),
        Row("pi inside the pideck run: submit -> last delta read", pi_in_app * 1000, "ms", ref_name, reference * 1000),
        Row("pideck: last token on screen, against pi's last delta in the same stream", screen * 1000, "ms",
            "pi inside the pideck run", pi_in_app * 1000),
    ]


if __name__ == "__main__":
    import json
    import sys

    if "--raw" in sys.argv:
        print(json.dumps(asyncio.run(measure()), indent=2))
    else:
        from benchmarks.table import format_table

        print(format_table(("stream_to_screen", row) for row in run()))
