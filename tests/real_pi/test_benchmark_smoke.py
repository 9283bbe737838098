"""The stream benchmark's harness still drives the app as it is built: one short reply, from
the prompt to its last token on screen (`make bench` measures; this only runs it once)."""

from __future__ import annotations

import math

from app.runtime import PiRuntime
from benchmarks import stream_to_screen


async def test_the_stream_benchmark_runs_a_short_reply_to_the_screen(pi_runtime: PiRuntime) -> None:
    result = await stream_to_screen.measure(runs=1, deltas=60)
    assert len(result["screen"]) == 1 and len(result["reference"]) == 1
    screen, pi_in_app = result["screen"][0], result["pi_in_app"][0]
    assert not math.isnan(pi_in_app) and 0 < pi_in_app <= screen, "the last token shows after pi sent it"
