"""A probe of the holder's loop, for benchmarks (PIDECK_HOLD_STALLS=1): the CPU time the loop
spent before a 5 ms sleep of its own got its turn is how long its steps kept everything
else waiting (a wait for a busy machine's CPU is not counted); each new longest one over
5 ms is logged."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

TICK = 0.005


async def watch_stalls(log: Callable[[str], None]) -> None:
    longest = TICK
    while True:
        used = time.thread_time()
        await asyncio.sleep(TICK)
        busy = time.thread_time() - used
        if busy > longest:
            longest = busy
            log(f"the loop's longest stall so far: {busy * 1000:.1f} ms")
