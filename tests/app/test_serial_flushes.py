"""A reply's flushes share one long-lived worker: a worker each was a task and three state
messages to the app per frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, send, wait_until


async def test_a_reply_s_flushes_start_no_worker_each(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--rate", "1/60")
    async with fake.run() as pilot:
        app = pilot.app
        started: list[str] = []
        run_worker = app.run_worker

        def counting(work: Any, *args: Any, **kwargs: Any) -> Any:
            started.append(kwargs.get("group", ""))
            return run_worker(work, *args, **kwargs)

        app.run_worker = counting  # type: ignore[method-assign]
        flushes = 0
        fold = app.desk.current.pi.fold

        async def counted(records: list[Any]) -> None:
            nonlocal flushes
            flushes += 1
            await fold(records)

        app.desk.current.pi.pump._apply = counted  # (the pump's apply step: one call a flush)
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle,
                         what="the reply")
        assert flushes > 10, "the reply came in many frames"
        assert started.count("flush") + started.count("flushes") <= 1, "a worker per flush"
