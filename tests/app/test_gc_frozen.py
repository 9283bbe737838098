"""What start-up made is left out of the app's garbage collections (app/gc_pause.py)."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.pi_harness import Fake, wait_until


async def test_start_up_objects_are_frozen_while_the_app_runs_and_given_back_at_close(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        await wait_until(pilot, lambda: gc.get_freeze_count() > 10_000, what="start-up frozen")
    assert gc.get_freeze_count() == 0


async def test_the_collector_start_up_turned_off_runs_again_once_the_app_has_drawn(tmp_path: Path) -> None:
    """pideck's start-up turns the collector off (app/cli/pideck.py): the app turns it on with what
    start-up made frozen, after its first frame."""
    fake = Fake(tmp_path)
    gc.disable()
    try:
        async with fake.run() as pilot:
            await wait_until(pilot, gc.isenabled, what="the collector on")
            assert gc.get_freeze_count() > 10_000
    finally:
        gc.enable()
