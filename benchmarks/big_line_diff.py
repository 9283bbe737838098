"""An edit that changes one token in a minified line: the line of SIZE KB against the same
edit in a line of 200 characters, in one run.

pi's display diff has the removed line and the added line (a lone pair, whose changed
words pideck emphasises, as pi's renderIntraLineDiff does). Measured in PideckApp
headless at 120x40 on a client that runs nothing, each variant in a fresh interpreter:
from loading the session (as /resume does) to the frame that shows the answer after the
edit, from a click on the edit to its full view on screen, and the RSS after both.

SIZE is 200 KB; `PIDECK_BENCH_LINE_KB` sets it.

Run: `python -m benchmarks big_line_diff`.
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

SIZE_KB = float(os.environ.get("PIDECK_BENCH_LINE_KB", "200"))
SMALL = 200  # characters of the reference line


def minified(length: int, changed: bool) -> str:
    """A minified JavaScript line of about `length` characters; `changed` renames one
    identifier in its middle."""
    parts, total, index = [], 0, 0
    while total < length:
        part = f"var v{index}=f(a{index % 7},\"s{index}\");"
        if changed and abs(total - length // 2) < len(part) and "renamed" not in "".join(parts[-1:]):
            part = part.replace(f"v{index}=", f"renamed{index}=")
        parts.append(part)
        total += len(part)
        index += 1
    return "".join(parts)


def messages(length: int) -> list[Any]:
    old, new = minified(length, False), minified(length, True)
    diff = [f"-1 {old}", f"+1 {new}"]
    return b.session_messages([b.edit_tool("dist/app.min.js", diff, ["@@ -1,1 +1,1 @@", f"-{old}", f"+{new}"])])


async def measure(length: int) -> dict[str, float]:
    async with b.app_running() as (app, pilot):
        loaded, full = await b.load_and_open_full(app, pilot, messages(length))
        return {"load": loaded, "full": full, "rss": h.rss_mb()}


def run() -> list[Row]:
    big, small = b.in_subprocess("big_line_diff", str(int(SIZE_KB * 1024))), b.in_subprocess("big_line_diff", str(SMALL))
    size = f"{SIZE_KB:,.0f} KB"
    return [
        Row(f"one token changed in a {size} line: answer on screen", big.get("load", big.get("timeout", 0)), "s",
            f"a {SMALL}-character line", small["load"]),
        Row(f"its full view on screen ({size} line)", big.get("full", float("nan")), "s", f"a {SMALL}-character line", small["full"]),
        Row(f"RSS after both ({size} line)", big.get("rss", float("nan")), "MB", f"a {SMALL}-character line", small["rss"]),
    ]


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure(int(sys.argv[-1])))))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("big_line_diff", row) for row in run()))
