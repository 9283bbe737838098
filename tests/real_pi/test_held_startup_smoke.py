"""The held start-up benchmark still runs (`make bench` measures; this runs it once)."""

from __future__ import annotations

from app.runtime import PiRuntime
from benchmarks import held_startup


def test_the_held_startup_benchmark_runs_once(pi_runtime: PiRuntime) -> None:
    result = held_startup.measure(1)
    assert result["held"][0] > 0 and result["no-hold"][0] > 0
    for key in ("held blocked", "held running", "own blocked", "own running"):
        assert len(result[key]) == 2 and all(value > 0 for value in result[key]), (key, result[key])
    assert all(running >= blocked for running, blocked in zip(result["held running"], result["held blocked"], strict=True))
