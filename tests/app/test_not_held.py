"""pideck where pi cannot be held (no way to tell a socket's peer: protocol/hold/place.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.pideck_app import PideckApp
from tests.pi_harness import Fake, notes, ready


async def test_pi_not_held_says_why_once(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    why = "pi runs as pideck's own child here (as with --no-hold): this system offers no way to tell"
    app = PideckApp(replace(fake.config(), unheld=why))
    async with app.run_test() as pilot:
        await ready(pilot, fake)
        assert [note for note in notes(app) if note.startswith(why)] == [why]
