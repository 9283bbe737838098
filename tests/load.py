"""How loaded the machine is, and what a bound given for an idle machine stretches to: the
tests' waits and their time limit (pytest-timeout's, tests/conftest.py) use it, so that a
suite that passes at rest passes on a machine whose cores are busy too."""

from __future__ import annotations

import os
import time


def load() -> float:
    """How many times over the machine's cores are asked for (the last minute's load
    average per core, 1 on an idle or a merely busy machine)."""
    try:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        return max(1.0, os.getloadavg()[0] / cores)
    except OSError:
        return 1.0


def out_of_time(started: float, timeout: float) -> bool:
    """Whether a wait begun at `started` (monotonic) is over: `timeout` is what it may take on
    an idle machine, stretched by the load (2 cores at a load of 8: four times as long)."""
    return time.monotonic() - started > timeout * load()
