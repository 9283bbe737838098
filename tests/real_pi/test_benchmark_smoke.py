"""The stream benchmark's harness still drives the app as it is built: one short reply, from
the prompt to its last token on screen (`make bench` measures; this only runs it once)."""

from __future__ import annotations

import math

from app.runtime import PiRuntime
from benchmarks import harness as h
from benchmarks import stream_to_screen


async def test_the_stream_benchmark_runs_a_short_reply_to_the_screen(pi_runtime: PiRuntime) -> None:
    async with h.real_pi() as pi:
        app = await stream_to_screen.start_app(pi)
        async with app.run_test(size=h.SIZE, headless=True):
            await stream_to_screen.wait_ready(app)
            result = await stream_to_screen.stream_once(app, pi, "smoke", 60)
    assert not math.isnan(result["pi"]) and 0 < result["pi"] <= result["screen"], "the last token shows after pi sent it"
