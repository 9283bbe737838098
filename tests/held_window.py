"""pideck over a held real pi in a process of its own, for a test that stops and resumes
that process (SIGSTOP, SIGCONT) as a terminal's Ctrl+Z or a blocked ssh link stops pideck.

`python -m tests.held_window CONFIG RESULT`: CONFIG is a pickled LaunchConfig (held); pideck
starts, sends "flood", prints `mid` on its stdout once DELTAS text deltas have been read,
waits for the flood's end (its last word shown, pi settled) or for pi's exit, then writes RESULT (JSON): its
transcript without clock times, pi's pid as it started and at the end, the records that
drew it again from a cut, and any exit of pi it saw. Then it quits, which stops the pi.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import re
import sys
from pathlib import Path
from typing import Any

DELTAS = 300


async def main(config_path: str, result_path: str) -> None:
    from tests.pi_harness import SIZE, send, started, transcript_text, wait_until

    from app.pideck_app import PideckApp
    from protocol.wire.client import ChildExited
    from protocol.wire.events import MessageUpdate
    from protocol.wire.extension_ui import CaughtUp

    config = pickle.loads(Path(config_path).read_bytes())
    app = PideckApp(config)
    seen: dict[str, Any] = {"deltas": 0, "caught_up": 0, "exited": []}

    def count(record: Any) -> None:
        if isinstance(record, MessageUpdate):
            seen["deltas"] += 1
            if seen["deltas"] == DELTAS:
                print("mid", flush=True)
        elif isinstance(record, CaughtUp):
            seen["caught_up"] += 1
        elif isinstance(record, ChildExited):
            seen["exited"].append(repr(record))

    async with app.run_test(size=SIZE, headless=True) as pilot:
        await started(pilot)
        pid = app.desk.current.pi.client.hello.pid
        app.desk.current.pi.client.add_listener(count)
        await send(pilot, "flood")
        await wait_until(pilot, lambda: seen["exited"] or ("word2999" in transcript_text(app) and not app.desk.current.pi.model.running),
                         timeout=90, what="the whole flood, or pi's exit")
        text = re.sub(r"\b\d\d:\d\d(:\d\d)?\b", "hh:mm", transcript_text(app))
        Path(result_path).write_text(json.dumps({"transcript": text, "pid": pid, "pid_at_end": app.desk.current.pi.client.hello.pid,
                                                 **seen}))
        app.exit()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
