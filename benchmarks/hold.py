"""Held pis (`pideck --hold`, protocol/hold/): what the holder between pideck and pi costs.

In a holder folder of the benchmark's own (XDG_RUNTIME_DIR), the real pi on the scripted model:

* the flood: a 3,000-delta reply, from submitting it to the frame that shows its last token,
  PideckApp over a held pi against PideckApp over a pi of its own, in pairs, median of RUNS
  (goal ≤ 1.05);
* attaching: 8 held pis, 4 of them streaming a paced 3,000-delta reply, and `pideck attach`
  (PideckApp on their 8 launches) from its construction to its first frame, and to the shown
  session's transcript caught up with pi; against PideckApp starting 8 pis of its own
  (construction to first frame) (goal: < 0.3 s);
* the holder idle: its CPU time over IDLE_FOR s while it holds the 8 pis, no window and no run
  (goal: 0);
* a big attach: a window attaching to a run of BIG_MB MB of records (tests/fake_pi.py's) while
  STREAMING other windows stream theirs: from the attach to its first record and to the
  whole run, and the holder's longest stall meanwhile, seen from outside (the slowest answer
  to `list` asked every 5 ms, less the median one) (goal: a stall under 20 ms).

Run: `python -m benchmarks hold` (`python -m benchmarks.hold big`: the big attach alone).
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks import harness as h
from benchmarks.stream_to_screen import stream_once, wait_idle, wait_ready
from benchmarks.table import Row

RUNS = 9
BIG_MB = 100
HELD = 8
STREAMING = 4
IDLE_FOR = 3.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def flood(pi: Any, held: bool, tag: str) -> float:
    from app.pideck_app import PideckApp

    app = PideckApp(replace(h.launch_config(pi), hold=held))
    async with app.run_test(size=h.SIZE, headless=True):
        await wait_ready(app)
        await stream_once(app, pi, f"warm-{tag}")
        await wait_idle(app)
        return (await stream_once(app, pi, tag))["screen"]


async def attach(pi: Any, env: dict[str, str]) -> dict[str, float]:
    from app.cli.hold import attach_launches
    from app.pideck_app import PideckApp
    from app.scripted_model.server import Reply
    from protocol.hold.held_link import held_client
    from protocol.hold.ask import ask
    from protocol.wire.commands import GetState, Prompt

    clients = []
    for _ in range(HELD):
        client = held_client(pi.argv, holder_env=env, env=pi.env, cwd=pi.cwd)
        await client.start()
        await client.call(GetState(), timeout=60)
        clients.append(client)
    holder = (ask({"op": "list"}, env) or {})["holder"]
    for client in clients:
        client.detach()
    await asyncio.sleep(1.0)  # (the holder has seen them go)
    idle_from = cpu_seconds(holder)
    await asyncio.sleep(IDLE_FOR)
    idle = cpu_seconds(holder) - idle_from
    pi.model.reset()
    tag = "attach"
    pi.model.queue(*(Reply(deltas=h.long_reply_deltas(3000, f"{tag}{n}"), delay=0.002) for n in range(STREAMING)))
    streaming = []
    for client in clients[:STREAMING]:  # (a window of their own starts the runs, then leaves)
        again = held_client(pi.argv, holder_env=env, number=client.hello.number)
        await again.start()
        await again.call(Prompt(message="stream"))
        streaming.append(again)
    await asyncio.sleep(0.5)  # (well into the replies)
    for client in streaming:
        client.detach()
    base = h.launch_config(pi)
    launches = [launch for launch, _ in attach_launches(replace(base, hold=True), _args(), env)]
    started = time.perf_counter()
    app = PideckApp(launches[0], restore=launches[1:])
    async with app.run_test(size=h.SIZE, headless=True):
        first_frame = time.perf_counter() - started
        await h.wait_until(lambda: app.desk.current.pi.ready and len(app.desk.slots) == HELD, timeout=60, poll=0.005)
        ready = time.perf_counter() - started
        app.exit()
    return {"first_frame": first_frame, "ready": ready, "idle_cpu": idle}


async def big_attach(env: dict[str, str]) -> dict[str, Any]:
    """A window attaching to a BIG_MB MB run while STREAMING windows stream (see the module's notes)."""
    import sys

    from protocol.hold.ask import ask
    from protocol.hold.held_link import held_client
    from protocol.wire.client import RpcClient
    from protocol.wire.commands import GetState, Prompt
    from protocol.wire.events import BashExecutionUpdate
    from tests.held_holder import flood_stream
    from tests.pi_harness import FAKE_PI

    folder = Path(tempfile.mkdtemp(prefix="pideck-bench-big-"))
    records = BIG_MB * 1000
    big = flood_stream(folder / "big.jsonl", records, pad=1000)
    paced = flood_stream(folder / "paced.jsonl", 400_000, pad=100)

    async def window(argv: list[str], number: int | None = None) -> tuple[RpcClient, list[float]]:
        client = held_client(argv, holder_env=env, number=number)
        times: list[float] = []  # when its first and its records-th run record came
        count = [0]

        def read(record: Any) -> None:
            if type(record) is BashExecutionUpdate:
                count[0] += 1
                if count[0] in (1, records):
                    times.append(time.perf_counter())

        client.add_listener(read)
        await client.start()
        return client, times

    started, times = await window([sys.executable, str(FAKE_PI), "--stream", str(big), "--stop-after", str(records + 1)])
    await started.call(GetState(), timeout=60)
    await started.call(Prompt(message="big"), timeout=60)
    await h.wait_until(lambda: len(times) == 2, timeout=300, poll=0.05)
    started.detach()
    streaming = []
    for _ in range(STREAMING):
        client, _ = await window([sys.executable, str(FAKE_PI), "--stream", str(paced), "--rate", "20/5"])
        await client.call(Prompt(message="stream"), timeout=60)
        streaming.append(client)
    await asyncio.sleep(1.0)  # (well into their streams)
    pinger = await asyncio.create_subprocess_exec(sys.executable, "-c", PINGER, stdin=asyncio.subprocess.PIPE,
                                                  stdout=asyncio.subprocess.PIPE, env=env)
    await asyncio.sleep(1.0)  # (its quiet answers)
    assert pinger.stdin is not None
    pinger.stdin.write(b"attach\n")
    await pinger.stdin.drain()
    asked = time.perf_counter()
    attached, times = await window(["unused"], number=started.hello.number)
    let_go = None
    try:
        await h.wait_until(lambda: len(times) == 2 or attached.exited is not None, timeout=300, poll=0.005)
        if attached.exited is not None:
            let_go = attached.exited.error or f"exited {attached.exited.returncode}"
    finally:
        answers, _ = await pinger.communicate(b"stop\n")
    quiet, slowest = (float(word) for word in answers.split())
    for client in [attached, *streaming]:
        client.detach()
    ask({"op": "stop", "all": True}, env, timeout=60)
    return {"first": (times[0] - asked) if times else float("nan"), "whole": (times[1] - asked) if len(times) == 2 else float("nan"),
            "stall": slowest - quiet, "let_go": let_go}


# A process of its own (the benchmark's loop must not delay it) asks the holder for its list
# every 5 ms; told `attach`, and then `stop`, it prints the median answer's time before the
# attach and the slowest one from then on, in seconds.
PINGER = """
import sys, threading, time
from protocol.hold.ask import ask
times, marks = [], []
def read():
    for line in sys.stdin:
        marks.append(len(times))
threading.Thread(target=read, daemon=True).start()
while len(marks) < 2 or len(times) == marks[0]:
    asked = time.perf_counter()
    try:
        ask({"op": "list"})
    except OSError:
        pass
    times.append(time.perf_counter() - asked)
    time.sleep(0.005)
quiet = sorted(times[: marks[0]])
print(quiet[len(quiet) // 2], max(times[marks[0] :]))
"""


def _args() -> Any:
    import argparse

    return argparse.Namespace(attach=[])


async def own_first_frame(pi: Any) -> float:
    """PideckApp starting 8 pis of its own: construct -> first frame."""
    from app.pideck_app import PideckApp

    started = time.perf_counter()
    app = PideckApp(h.launch_config(pi), restore=[h.launch_config(pi) for _ in range(HELD - 1)])
    async with app.run_test(size=h.SIZE, headless=True):
        first = time.perf_counter() - started
        await h.wait_until(lambda: app.desk.current.pi.ready and len(app.desk.slots) == HELD, timeout=60, poll=0.005)
    return first


async def measure(runs: int = RUNS) -> dict[str, Any]:
    from protocol.hold.ask import ask

    runtime = tempfile.mkdtemp(prefix="pideck-bench-run-")
    previous = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    env = dict(os.environ)
    held: list[float] = []
    own: list[float] = []
    try:
        async with h.real_pi() as pi:
            for run in range(runs):
                own.append(await flood(pi, False, f"own{run}"))
                held.append(await flood(pi, True, f"held{run}"))
            reference = await own_first_frame(pi)
            attached = await attach(pi, env)
            ask({"op": "stop", "all": True}, env, timeout=60)
    finally:
        if previous is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = previous
    return {"held": held, "own": own, "own_first_frame": reference, **attached}


def big_rows() -> list[Row]:
    """The big attach alone, in a holder folder of its own."""
    runtime = tempfile.mkdtemp(prefix="pideck-bench-run-")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "PIDECK_HOLD_STALLS": "1"}
    from protocol.hold.ask import ask
    from protocol.hold.place import hold_dir

    try:
        result = asyncio.run(big_attach(env))
    finally:
        ask({"op": "stop", "all": True}, env, timeout=60)  # (what a failed run left: nothing runs on)

    stalls = re.findall(r"longest stall so far: ([0-9.]+) ms", (hold_dir(env) / "holder.log").read_text())
    if result["let_go"]:
        print(f"the attaching window was let go: {result['let_go']}")
    return [
        Row(f"attach to a {BIG_MB} MB run, {STREAMING} windows streaming: -> its first record", result["first"] * 1000, "ms"),
        Row(f"attach to a {BIG_MB} MB run, {STREAMING} windows streaming: -> the whole run", result["whole"] * 1000, "ms"),
        Row("the holder's longest stall meanwhile (slowest `list` answer less the median)", result["stall"] * 1000, "ms"),
        *([Row("the holder's longest loop stall over the whole run (its own probe)", float(stalls[-1]), "ms")]
          if stalls else []),
    ]


def run() -> list[Row]:
    result = asyncio.run(measure())
    own = h.median(result["own"]) * 1000
    frame = result["own_first_frame"] * 1000
    return [
        Row(f"flood held: submit -> last token on screen (3,000 deltas, median of {RUNS})",
            h.median(result["held"]) * 1000, "ms", "pi pideck's own child (--no-hold)", own),
        Row(f"pideck attach, {HELD} held ({STREAMING} streaming): construct -> first frame",
            result["first_frame"] * 1000, "ms", f"pideck starting {HELD} pis of its own: construct -> first frame", frame),
        Row(f"pideck attach, {HELD} held: construct -> the shown session caught up", result["ready"] * 1000, "ms",
            f"pideck starting {HELD} pis of its own: construct -> first frame", frame),
        Row(f"holder CPU over {IDLE_FOR:g} s idle, {HELD} pis held", result["idle_cpu"] * 1000, "ms"),
        *big_rows(),
    ]


if __name__ == "__main__":
    import sys

    from benchmarks.table import format_table

    print(format_table(("hold", row) for row in (big_rows() if sys.argv[1:] == ["big"] else run())))
