"""The stream benchmark's harness still drives the app as it is built: one short reply, from
the prompt to its last token on screen (`make bench` measures; this only runs it once)."""

from __future__ import annotations

import math

from app.runtime import PiRuntime
from benchmarks import harness as h
from benchmarks import stream_to_screen, versus_pi_tui


async def test_the_stream_benchmark_runs_a_short_reply_to_the_screen(pi_runtime: PiRuntime) -> None:
    async with h.real_pi() as pi:
        app = await stream_to_screen.start_app(pi)
        async with app.run_test(size=h.SIZE, headless=True):
            await stream_to_screen.wait_ready(app)
            result = await stream_to_screen.stream_once(app, pi, "smoke", 60)
    assert not math.isnan(result["pi"]) and 0 < result["pi"] <= result["screen"], "the last token shows after pi sent it"


def test_the_benchmark_against_pis_tui_runs_one_short_round(pi_runtime: PiRuntime) -> None:
    shape = versus_pi_tui.Shape(flood=60, paced=5, paced_delay=0.02, shorts=2, idle=0.5, quiet=0.5)
    results = versus_pi_tui.measure(1, shape)
    for program in ("pi", "pideck"):
        (figures,) = results[program]
        assert figures["startup"] > 0 and figures["idle"] >= 0
        for reply in ("direct flood", "direct paced", "direct short", "throttled flood", "throttled paced"):
            assert figures[f"{reply} bytes"] > 0 and figures[f"{reply} to_token"] > 0, (program, reply, figures)
            assert figures[f"{reply} cpu"] >= figures[f"{reply} own cpu"] >= 0 and figures[f"{reply} after"] >= 0
    assert len(versus_pi_tui.rows(results)) == 22
