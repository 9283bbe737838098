"""A reply's flushes share one long-lived worker: a worker each was a task and three state
messages to the app per frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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
        fold = app.current.pi.fold

        async def counted(records: list[Any]) -> None:
            nonlocal flushes
            flushes += 1
            await fold(records)

        app.current.pi.pump._apply = counted  # (the pump's apply step: one call a flush)
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.session.items) > 1 and not app.session.running and app.pump.idle,
                         what="the reply")
        assert flushes > 10, "the reply came in many frames"
        assert started.count("flush") + started.count("flushes") <= 1, "a worker per flush"


async def test_a_reply_s_flushes_are_not_textual_callbacks(tmp_path: Path) -> None:
    """Textual's call_next wrapped each flush's callback in a new partial, counted its
    parameters with inspect.signature and posted an Idle message: for every delta."""
    fake = Fake(tmp_path, "--rate", "1/60")
    async with fake.run() as pilot:
        app = pilot.app
        called: list[object] = []
        call_next = app.call_next

        def counting(callback: Any, *args: Any, **kwargs: Any) -> None:
            called.append(callback)
            call_next(callback, *args, **kwargs)

        app.call_next = counting  # type: ignore[method-assign]
        flushes = 0
        fold = app.current.pi.fold

        async def counted(records: list[Any]) -> None:
            nonlocal flushes
            flushes += 1
            await fold(records)

        app.current.pi.pump._apply = counted
        await send(pilot, "Show me some markdown.")
        await wait_until(pilot, lambda: len(app.session.items) > 1 and not app.session.running and app.pump.idle,
                         what="the reply")
        assert flushes > 10, "the reply came in many frames"
        assert len(called) < flushes / 2, f"{len(called)} Textual callbacks for {flushes} flushes"


async def test_a_flush_callback_that_fails_is_reported_as_textual_reports_one(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    app = fake.app()
    with pytest.raises(RuntimeError, match="the pump broke"):
        async with fake.run(app) as pilot:

            def broken() -> None:
                raise RuntimeError("the pump broke")

            app.current.call_next(broken)
            await wait_until(pilot, lambda: app.return_code == 1, what="the app to stop on the error")
