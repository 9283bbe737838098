"""A `write` of a minified one-line file of SIZE MB against the same write of 5 KB, in one run.

Measured in PideckApp headless at 120x40 on a client that runs nothing, each variant in
a fresh interpreter: from loading the session (as /resume does) to the frame that shows
the answer after the write, from a click on the write to its full view on screen, a
page down in that view, and the RSS after them.

SIZE is 5 MB; `PIDECK_BENCH_WRITE_MB` sets it.

Run: `python -m benchmarks big_write`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from benchmarks import _big_code as b
from benchmarks import harness as h
from benchmarks.big_line_diff import minified
from benchmarks.table import Row

SIZE_MB = float(os.environ.get("PIDECK_BENCH_WRITE_MB", "5"))
SMALL = 5_000  # characters of the reference file


def messages(length: int) -> list[Any]:
    content = minified(length, False)
    return b.session_messages([("write", {"path": "dist/app.min.js", "content": content}, None,
                                f"Successfully wrote {len(content)} bytes to dist/app.min.js")])


async def measure(length: int) -> dict[str, float]:
    from widgets.tools.output import LargeTextView

    async with b.app_running() as (app, pilot):
        loaded, full = await b.load_and_open_full(app, pilot, messages(length))
        view = app.screen.query_one(LargeTextView)
        page = await b.next_frame(app, lambda: view.scroll_page_down(animate=False))
        return {"load": loaded, "full": full, "page": page, "rss": h.rss_mb()}


def run() -> list[Row]:
    big, small = b.in_subprocess("big_write", str(int(SIZE_MB * 1024 * 1024))), b.in_subprocess("big_write", str(SMALL))
    size = f"{SIZE_MB:,.0f} MB"
    reference = f"a {SMALL // 1000} KB line"
    nan = float("nan")
    return [
        Row(f"write of a {size} one-line file: answer on screen", big.get("load", big.get("timeout", nan)), "s", reference, small["load"]),
        Row(f"its full view on screen ({size})", big.get("full", nan), "s", reference, small["full"]),
        Row(f"a page down in it ({size})", big.get("page", nan), "s", reference, small["page"]),
        Row(f"RSS after them ({size})", big.get("rss", nan), "MB", reference, small["rss"]),
    ]


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure(int(sys.argv[-1])))))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("big_write", row) for row in run()))
