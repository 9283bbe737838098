"""Held pis that pile up: the memory a holder keeps after windows are opened and closed.

A window is opened on a new held pi and its terminal closed (the window detaches), CYCLES
times, CYCLE s apart: the pace of a script that left 85 idle held pis after 16 minutes (one
every 11.3 s), sped up by TIME_SCALE, the idle time too. The pi is a small shell script
that answers as pi does (get_state with a session file, get_messages), so that a hundred of
them fit on the machine; a real pi holds 80–180 MB each, so what matters is how many stay.
Measured: the RSS of the holder and every process under it, and how many pis it holds,

* when the last window has closed, with the idle time before this change (a day) against
  the one now (PIDECK_HOLD_IDLE's default, 5 minutes: scaled, the last ~27 pis still live);
* and once the idle time has passed since the last window (the reference: with a day, all
  of them stay).

Run: `python -m benchmarks hold_idle`.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.table import Row

CYCLES = 100
REAL_CYCLE = 16 * 60 / 85  # seconds between two windows in the script that piled 85 pis up
CYCLE = 0.1  # seconds between two windows here
TIME_SCALE = CYCLE / REAL_CYCLE
BEFORE_IDLE = 24 * 3600.0  # PIDECK_HOLD_IDLE's default before
AFTER_IDLE = 300.0 * TIME_SCALE  # and now, scaled
FAKE_PI = r"""
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
  case "$line" in
    *'"type":"get_state"'*) printf '{"type":"response","id":"%s","command":"get_state","success":true,"data":{"sessionFile":"%s","sessionId":"s","isStreaming":false}}\n' "$id" "$FAKE_SESSION";;
    *'"type":"get_messages"'*) printf '{"type":"response","id":"%s","command":"get_messages","success":true,"data":{"messages":[]}}\n' "$id";;
  esac
done
"""


def tree_rss_mb(root: int) -> float:
    """The RSS of process `root` and every process under it, in MB."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e6


async def cycles(idle_close: float) -> dict[str, float]:
    """CYCLES windows opened on a new held pi and closed, in a holder of their own."""
    from protocol.hold.ask import ask, held
    from protocol.hold.held_link import held_client
    from protocol.wire.commands import GetState

    folder = Path(tempfile.mkdtemp(prefix="pideck-bench-idle-"))
    runtime = folder / "run"
    runtime.mkdir(mode=0o700)
    session = folder / "session.jsonl"
    session.write_text("{}\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "FAKE_SESSION": str(session)}
    try:
        started = time.monotonic()
        for n in range(CYCLES):
            client = held_client(["sh", "-c", FAKE_PI], holder_env=env, env=env, cwd=folder, idle_close=idle_close)
            await client.start()
            await client.call(GetState(), timeout=60)
            client.detach()
            await client.link.written(10)
            await asyncio.sleep(max(0.0, started + (n + 1) * CYCLE - time.monotonic()))
        answer = ask({"op": "list"}, env) or {}
        holder = answer["holder"]
        at_end = {"rss": tree_rss_mb(holder), "pis": sum(pi.get("pid") is not None for pi in answer["pis"])}
        await asyncio.sleep(AFTER_IDLE + 2.0)
        later = [pi for pi in held(env) if pi.get("pid") is not None]
        return {"end_rss": at_end["rss"], "end_pis": at_end["pis"], "later_rss": tree_rss_mb(holder),
                "later_pis": len(later), "listed": len(held(env))}
    finally:
        ask({"op": "stop", "all": True}, env, timeout=60)


async def measure() -> dict[str, Any]:
    before = await cycles(BEFORE_IDLE)
    after = await cycles(AFTER_IDLE)
    return {"before": before, "after": after}


def run() -> list[Row]:
    result = asyncio.run(measure())
    before, after = result["before"], result["after"]
    return [
        Row(f"holder + pis RSS after {CYCLES} windows opened and closed (idle 5 min, scaled): "
            f"{after['end_pis']:.0f} pis", after["end_rss"], "MB",
            f"idle a day, as before: {before['end_pis']:.0f} pis", before["end_rss"]),
        Row(f"the same once the idle time passed: {after['later_pis']:.0f} pis running, "
            f"{after['listed']:.0f} listed", after["later_rss"], "MB",
            f"idle a day: {before['later_pis']:.0f} pis", before["later_rss"]),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("hold_idle", row) for row in run()))
