"""Start-up held against `--no-hold`, when no holder runs (each held start in a runtime
folder of its own, so the window starts the holder), taking turns, RUNS each:

* pideck in a 120x40 pseudo-terminal (as benchmarks/versus_pi_tui.py runs it), from starting
  it until the model's name is in its output: medians, and the median of the pairs'
  differences (goal: held within 30 ms of --no-hold);
* what start-up waits on, in a process of its own as pideck's early start is: from asking
  for pi (held: protocol.hold.early.ask_early, the holder started; not held: the spawn) to
  pi's process running its command, and how long the asking blocked. Less noisy than the
  first on a loaded machine.

Run: `python -m benchmarks held_startup` (PIDECK_BENCH_STARTUP_RUNS: how many of each).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def early(held: bool) -> tuple[float, float]:
    """(seconds the ask blocked, seconds until pi runs its command), `held` or not, measured
    in a new process (`python -m benchmarks.held_startup held|own`)."""
    out = subprocess.run([sys.executable, "-m", "benchmarks.held_startup", "held" if held else "own"], check=True,
                         capture_output=True, text=True, cwd=Path(__file__).parents[1]).stdout.split()
    return float(out[0]), float(out[1])


def _early_here(held: bool) -> None:
    """One early ask for pi (a `sleep` standing in for it), printed as `blocked running` seconds."""
    from protocol.hold.ask import ask
    from protocol.hold.early import ask_early, spawn_request
    from protocol.wire.spawn import spawn

    marker = f"{time.time() % 1000:.6f}"
    runtime = tempfile.mkdtemp(prefix="pideck-bench-early-")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime}
    started = time.perf_counter()
    if held:
        sock = ask_early(spawn_request(["sleep", marker], {"PATH": os.environ["PATH"]}, "/", {}, None), env)
        assert sock is not None
    else:
        child = spawn(["sleep", marker], {"PATH": os.environ["PATH"]}, "/")
    blocked = time.perf_counter() - started
    command = f"sleep\0{marker}\0".encode()
    while not any(_cmdline(entry) == command for entry in Path("/proc").iterdir() if entry.name.isdigit()):
        time.sleep(0.001)
    running = time.perf_counter() - started
    print(blocked, running)
    if held:
        sock.settimeout(30)
        sock.recv(1 << 16)  # (the hello: the holder holds pi by now, so the stop below finds it)
        sock.close()
        ask({"op": "stop", "all": True}, env, timeout=30)
    else:
        child.kill()
        child.wait()
    shutil.rmtree(runtime, ignore_errors=True)


def _cmdline(entry: Path) -> bytes:
    try:
        return (entry / "cmdline").read_bytes()
    except OSError:
        return b""


def measure(runs: int = RUNS) -> dict[str, list[float]]:
    h.compiled()
    result: dict[str, list[float]] = {"held": [], "no-hold": []}
    with setting() as (pi, env, cwd, _model):
        argv = commands(pi, cwd, [str(PIDECK)])["pideck"]
        start([*argv[:1], "--no-hold", *argv[1:]], env, cwd)  # warm-up: the first start's disk reads
        for _ in range(runs):
            result["held"].append(held_start(argv, env, cwd))
            result["no-hold"].append(start([*argv[:1], "--no-hold", *argv[1:]], env, cwd))
    for key in ("held blocked", "held running", "own blocked", "own running"):
        result[key] = []
    for _ in range(runs * 2):
        for held in (True, False):
            blocked, running = early(held)
            result[f"{'held' if held else 'own'} blocked"].append(blocked)
            result[f"{'held' if held else 'own'} running"].append(running)
    return result


def run() -> list[Row]:
    result = measure()
    held, own = h.median(result["held"]), h.median(result["no-hold"])
    return [
        Row(f"pideck held, no holder running: start -> model's name (median of {RUNS})", held * 1000, "ms",
            "pideck --no-hold", own * 1000),
        Row(f"held minus --no-hold (median of {RUNS} pairs)",
            h.median([a - b for a, b in zip(result["held"], result["no-hold"], strict=True)]) * 1000, "ms"),
        Row(f"held: ask for pi -> pi runs (median of {RUNS * 2})", h.median(result["held running"]) * 1000, "ms",
            "not held: spawn -> pi runs", h.median(result["own running"]) * 1000),
        Row(f"held: the ask blocks start-up for (median of {RUNS * 2})", h.median(result["held blocked"]) * 1000, "ms",
            "not held: the spawn", h.median(result["own blocked"]) * 1000),
    ]


if __name__ == "__main__":
    _early_here(sys.argv[1] == "held")
