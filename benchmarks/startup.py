"""Start-up to first frame: PideckApp (fake client, so pi's own start is excluded) vs a
bare Textual App with one Static, both headless at 120x40 in the same run.

Measured from constructing the app to `run_test` handing over, which Textual does once
the app is ready, i.e. after its first screen refresh; best and median of RUNS, alternating the two apps. Import time is not included (both
modules are imported before timing).

Run: `python -m benchmarks startup`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from benchmarks import harness as h
from benchmarks.table import Row

RUNS = 7


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("hello")


async def first_frame(make: Any) -> float:
    """Seconds from constructing the app to its first rendered frame."""
    started = time.perf_counter()
    app = make()
    async with app.run_test(size=h.SIZE, headless=True):
        # run_test hands over once the app is ready: after the first screen refresh.
        painted = time.perf_counter()
    return painted - started


async def measure(runs: int = RUNS) -> dict[str, list[float]]:
    from app.pideck_app import PideckApp

    pideck: list[float] = []
    bare: list[float] = []
    await first_frame(BareApp)  # warm-up: first-use costs of Textual itself
    await first_frame(lambda: PideckApp(h.fake_config(), client=h.FakeClient()))  # type: ignore[arg-type]
    for _ in range(runs):
        bare.append(await first_frame(BareApp))
        pideck.append(await first_frame(lambda: PideckApp(h.fake_config(), client=h.FakeClient())))  # type: ignore[arg-type]
    return {"pideck": pideck, "bare": bare}


def run() -> list[Row]:
    result = asyncio.run(measure())
    pideck, bare = result["pideck"], result["bare"]
    return [
        Row(f"PideckApp: construct -> first frame (median of {RUNS})", h.median(pideck) * 1000, "ms",
            "bare App + Static", h.median(bare) * 1000),
        Row(f"PideckApp: construct -> first frame (best of {RUNS})", min(pideck) * 1000, "ms",
            "bare App + Static", min(bare) * 1000),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("startup", row) for row in run()))
