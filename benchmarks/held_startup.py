"""Start-up held against `--no-hold`: pideck in a 120x40 pseudo-terminal (as
benchmarks/versus_pi_tui.py runs it), from starting it until the model's name is in its
output, when no holder runs (each held start in a runtime folder of its own, so the window
starts the holder), against `pideck --no-hold`, taking turns, RUNS each; medians and the
difference (goal: held within 30 ms of --no-hold).

Run: `python -m benchmarks held_startup` (PIDECK_BENCH_STARTUP_RUNS: how many of each).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from app.scripted_model.agent_dir import MODEL_ID
from benchmarks import harness as h
from benchmarks.table import Row
from benchmarks.versus_pi_tui import PIDECK, Terminal, commands, setting

RUNS = int(os.environ.get("PIDECK_BENCH_STARTUP_RUNS") or 9)


def start(argv: list[str], env: dict[str, str], cwd: os.PathLike[str]) -> float:
    """Seconds from starting `argv` to the model's name in its output."""
    term = Terminal(argv, env, cwd)  # type: ignore[arg-type]
    try:
        seen, _ = term.wait_for(MODEL_ID, timeout=120)
        return seen - term.started
    finally:
        term.close()


def held_start(argv: list[str], env: dict[str, str], cwd: os.PathLike[str]) -> float:
    """`start` with no holder running: a runtime folder of its own, whose holder is stopped after."""
    from protocol.hold.ask import ask

    runtime = tempfile.mkdtemp(prefix="pideck-bench-startup-")
    held_env = {**env, "XDG_RUNTIME_DIR": runtime, "PIDECK_HOLD": "1"}
    try:
        return start(argv, held_env, cwd)
    finally:
        try:
            ask({"op": "stop", "all": True}, held_env, timeout=30)
        except OSError:
            pass
        deadline = time.monotonic() + 30
        while os.path.exists(os.path.join(runtime, "pideck", "holder.sock")) and time.monotonic() < deadline:
            time.sleep(0.05)
        shutil.rmtree(runtime, ignore_errors=True)


def measure(runs: int = RUNS) -> dict[str, list[float]]:
    h.compiled()
    result: dict[str, list[float]] = {"held": [], "no-hold": []}
    with setting() as (pi, env, cwd, _model):
        argv = commands(pi, cwd, [str(PIDECK)])["pideck"]
        start([*argv[:1], "--no-hold", *argv[1:]], env, cwd)  # warm-up: the first start's disk reads
        for _ in range(runs):
            result["held"].append(held_start(argv, env, cwd))
            result["no-hold"].append(start([*argv[:1], "--no-hold", *argv[1:]], env, cwd))
    return result


def run() -> list[Row]:
    result = measure()
    held, own = h.median(result["held"]), h.median(result["no-hold"])
    return [
        Row(f"pideck held, no holder running: start -> model's name (median of {RUNS})", held * 1000, "ms",
            "pideck --no-hold", own * 1000),
        Row(f"held minus --no-hold (median of {RUNS} pairs)",
            h.median([a - b for a, b in zip(result["held"], result["no-hold"], strict=True)]) * 1000, "ms"),
    ]
