"""A session of TOOLS tool calls, half `edit`s with pi's display diffs and half `read`s of
Python files, against the same session of 300 calls, in one run.

Measured in PideckApp headless at 120x40 on a client that runs nothing, each variant in
a fresh interpreter: from loading the session (as /resume does) to the answer on screen;
Ctrl+Home twice (to the top of what is shown, then to the session's start) to the first
question on screen; Ctrl+O there (every tool block expanded) to the frame that shows the
first block's expanded rows; once the blocks off screen are highlighted too (in idle
slices), Page Down at the foot of what is shown to the first frame with the next messages;
Ctrl+End back to the answer; the RSS after them.

TOOLS is 10,000; `PIDECK_BENCH_TOOLS` sets it.

Run: `python -m benchmarks long_tool_session`.
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

TOOLS = int(os.environ.get("PIDECK_BENCH_TOOLS", "10000"))
SMALL = 300
DIFF_LINES = 60
READ_LINES = 200
EXPANDED = "value_0_24 ="  # a row of the first edit's diff that only its expanded block shows


def _line(number: int, file: int) -> str:
    return f"    value_{file}_{number} = compute(items[{number}], limit={(number + file) % 17})  # step {number}"


def messages(count: int) -> list[Any]:
    tools: list[b.Tool] = []
    for index in range(count):
        if index % 2 == 0:
            diff, patch = [], ["@@ -1,3 +1,3 @@"]
            for number in range(1, DIFF_LINES + 1):
                code = _line(number, index)
                if number == 30:
                    diff += [f"-{number:>3} {code}", f"+{number:>3} {code.replace('compute', 'measure')}"]
                    patch += [f"-{code}", f"+{code.replace('compute', 'measure')}"]
                else:
                    diff.append(f" {number:>3} {code}")
            tools.append(b.edit_tool(f"src/module_{index}.py", diff, patch))
        else:
            text = "\n".join(_line(number, index) for number in range(1, READ_LINES + 1))
            tools.append(("read", {"path": f"src/file_{index}.py"}, None, text))
    return b.session_messages(tools)


async def measure(count: int) -> dict[str, float]:
    async with b.app_running() as (app, pilot):
        transcript = app.desk.current.main.transcript
        loaded = await b.load(app, messages(count), timeout=900)
        await pilot.pause()

        async def home() -> None:
            await pilot.press("ctrl+home")
            await pilot.press("ctrl+home")

        top = await b.until_painted(app, b.FIRST, home, timeout=900)
        await pilot.pause()
        expand = await b.until_painted(app, EXPANDED, lambda: pilot.press("ctrl+o"), timeout=900)
        await h.wait_until(lambda: not transcript._unhighlighted, timeout=900)  # the blocks off screen, in idle slices
        await pilot.pause()
        transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        below = transcript.hidden_after
        page = await b.next_frame(app, lambda: pilot.press("pagedown"), when=lambda: transcript.hidden_after < below)
        await pilot.pause()
        end = await b.until_painted(app, b.LAST, lambda: pilot.press("ctrl+end"), timeout=900)
        await pilot.pause()
        return {"load": loaded, "top": top, "expand": expand, "page": page, "end": end, "rss": h.rss_mb(),
                "views": len(transcript.views)}


def run() -> list[Row]:
    big, small = b.in_subprocess("long_tool_session", str(TOOLS)), b.in_subprocess("long_tool_session", str(SMALL))
    size = f"{TOOLS:,} tool calls"
    reference = f"{SMALL} tool calls"
    nan = float("nan")
    return [
        Row(f"session of {size}: answer on screen", big.get("load", big.get("timeout", nan)), "s", reference, small["load"]),
        Row(f"ctrl+home twice: its first message on screen ({size})", big.get("top", nan), "s", reference, small["top"]),
        Row(f"ctrl+o there ({size})", big.get("expand", nan), "s", reference, small["expand"]),
        Row(f"page down at the foot of what is shown ({size})", big.get("page", nan), "s", reference, small["page"]),
        Row(f"ctrl+end back to the answer ({size})", big.get("end", nan), "s", reference, small["end"]),
        Row(f"RSS after them ({size})", big.get("rss", nan), "MB", reference, small["rss"]),
    ]


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(asyncio.run(measure(int(sys.argv[-1])))))
        raise SystemExit(0)
    from benchmarks.table import format_table

    print(format_table(("long_tool_session", row) for row in run()))
