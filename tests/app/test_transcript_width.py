"""The transcript's text keeps its width when it first overflows and its scrollbar shows up:
nothing on screen re-wraps, and the terminal is not sent the whole transcript again."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, send, wait_until


async def test_the_text_width_is_the_same_before_and_after_the_scrollbar_appears(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="long_3000.jsonl")
    async with fake.run() as pilot:
        transcript = pilot.app.desk.current.main.transcript
        before = transcript.scrollable_content_region.width
        assert transcript.max_scroll_y == 0, "short at first"
        await send(pilot, "A long answer, please.")
        await wait_until(pilot, lambda: transcript.max_scroll_y > 0 and not pilot.app.desk.current.pi.model.running,
                         timeout=30, what="the answer overflowing the transcript")
        assert transcript.scrollable_content_region.width == before
