"""An edit whose diff has LINES lines against the same edit of 1,000 lines, in one run.

pi's display diff and patch of an edit that changed every tenth line of a file of
LINES lines. Measured in PideckApp headless at 120x40 on a client that runs nothing,
each variant in a fresh interpreter: from loading the session (as /resume does) to the
frame that shows the answer after the edit, Ctrl+O (every tool block expanded) to its
frame, F9 (the Changes view) to its frame, and the RSS after them.

LINES is 1,000,000; `PIDECK_BENCH_DIFF_LINES` sets it.

Run: `python -m benchmarks big_diff`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from benchmarks import _big_code as b
from benchmarks import harness as h
from benchmarks.table import Row

LINES = int(os.environ.get("PIDECK_BENCH_DIFF_LINES", "1000000"))
SMALL = 1_000


def _code(number: int) -> str:
    return f"    value_{number} = compute(items[{number}], limit={number % 17})"


def messages(lines: int) -> list[Any]:
    width = len(str(lines))
    diff, patch = [], [f"@@ -1,{lines} +1,{lines} @@"]
    for number in range(1, lines + 1):
        code = _code(number)
        if number % 10 == 5:
            diff += [f"-{number:>{width}} {code}", f"+{number:>{width}} {code.replace('compute', 'measure')}"]
            patch += [f"-{code}", f"+{code.replace('compute', 'measure')}"]
        else:
            diff.append(f" {number:>{width}} {code}")
            patch.append(f" {code}")
    return b.session_messages([b.edit_tool("src/values.py", diff, patch)])


async def measure(lines: int) -> dict[str, float]:
    async with b.app_running() as (app, pilot):
        loaded = await b.load(app, messages(lines), timeout=900)
        await pilot.pause()
        expand = await b.until_painted(app, "click to see all", lambda: pilot.press("ctrl+o"), timeout=900)
        await pilot.pause()
        changes = await b.until_painted(app, "1 file · 1 change", lambda: pilot.press("f9"), timeout=900)
        await pilot.pause()
        return {"load": loaded, "expand": expand, "changes": changes, "rss": h.rss_mb()}


def run() -> list[Row]:
    big, small = b.in_subprocess("big_diff", str(LINES)), b.in_subprocess("big_diff", str(SMALL))
    size = f"{LINES:,}-line diff"
    reference = f"a {SMALL:,}-line diff"
    nan = float("nan")
    return [
        Row(f"edit with a {size}: answer on screen", big.get("load", big.get("timeout", nan)), "s", reference, small["load"]),
        Row(f"ctrl+o expands it ({size})", big.get("expand", nan), "s", reference, small["expand"]),
        Row(f"F9 shows its changes ({size})", big.get("changes", nan), "s", reference, small["changes"]),
        Row(f"RSS after them ({size})", big.get("rss", nan), "MB", reference, small["rss"]),
    ]


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure(int(sys.argv[-1])))))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("big_diff", row) for row in run()))
