"""The stream benchmark's harness still drives the app as it is built: one short reply, from
the prompt to its last token on screen (`make bench` measures; this only runs it once)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from app.runtime import PiRuntime
from benchmarks import harness as h
from benchmarks import stream_to_screen, versus_pi_tui


async def test_the_stream_benchmark_runs_a_short_reply_to_the_screen(pi_runtime: PiRuntime) -> None:
    async with h.real_pi() as pi:
        app = await stream_to_screen.start_app(pi)
        async with app.run_test(size=h.SIZE, headless=True):
            await stream_to_screen.wait_ready(app)
            try:
                result = await asyncio.wait_for(stream_to_screen.stream_once(app, pi, "smoke", 60), 80)
            except TimeoutError:  # (before pytest's own timeout, which says nothing of the app)
                raise AssertionError(f"no last token on screen after 80 s: {where_it_stopped(app)}") from None
    assert not math.isnan(result["pi"]) and 0 < result["pi"] <= result["screen"], "the last token shows after pi sent it"


def where_it_stopped(app: Any) -> str:
    """What the app had of the reply, and whether its frames were held (once seen stuck for
    120 s in 1 of 9 full runs, and never since in 72 runs of its own)."""
    timer, pump = app.desk.current.main._update_timer, app.desk.current.pi.pump
    return (f"reply received {h.reply_received(app, h.last_token('smoke'))}, running {app.desk.current.pi.model.running}, "
            f"pump idle {pump.idle} ({pump.pending} pending, holding {pump._holding}, frames held {pump._frames_held}), "
            f"frame timer active {timer._active.is_set()} free {timer._free.is_set()}, "
            f"layout due {app.desk.current.main._layout_required}, dirty widgets {len(app.desk.current.main._dirty_widgets)}")


def test_the_benchmark_against_pis_tui_runs_one_short_round(pi_runtime: PiRuntime) -> None:
    shape = versus_pi_tui.Shape(flood=60, paced=5, paced_delay=0.02, shorts=2, idle=0.5, quiet=0.5, long_turns=3,
                                wait=0.3)
    results = versus_pi_tui.measure(1, shape)
    for program in ("pi", "pideck"):
        (figures,) = results[program]
        assert figures["startup"] > 0 and figures["idle"] >= 0
        for reply in ("direct flood", "direct paced", "direct short", "direct wait", "throttled flood", "throttled paced"):
            assert figures[f"{reply} bytes"] > 0 and figures[f"{reply} to_token"] > 0, (program, reply, figures)
            assert figures[f"{reply} cpu"] >= figures[f"{reply} own cpu"] >= 0 and figures[f"{reply} after"] >= 0
        assert figures["long short to_token"] > 0 and figures["long short cpu"] >= figures["long short own cpu"] >= 0
    (bare,) = results["bare"]  # the bare Textual app, the floor under pideck
    assert bare["startup"] > 0 and bare["paced cpu"] >= 0 and bare["short to_token"] > 0, bare
    assert len(versus_pi_tui.rows(results)) == 34
