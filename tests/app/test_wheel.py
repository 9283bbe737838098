"""The mouse wheel over the transcript: two lines a step, up to six as a spin speeds up,
or the lines pi's `fullscreenWheelScrollLines` sets; five times as far with Alt (as pi's
wheel); up stops following the stream, back at the end follows it again. pi's
`fullscreenScrollbar` shows the scrollbar always, when the transcript overflows, or never."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, start_run, wait_until
from textual import events

import widgets.transcript.transcript as transcript_module
from app.pi.settings import wheel_lines
from widgets.transcript.message_views import TextBlock
from widgets.transcript.transcript import Transcript


def wheel(transcript: Transcript, up: bool, alt: bool = False) -> None:
    kind = events.MouseScrollUp if up else events.MouseScrollDown
    transcript.post_message(kind(transcript, 5, 5, 0, 1 if up else -1, 0, False, alt, False))


async def long_transcript(pilot: Any, fake: Fake, turns: int) -> Transcript:
    """`turns` answers in a 20-line terminal, and the transcript at its end."""
    app = pilot.app
    for turn in range(turns):
        await start_run(pilot, fake, f"Question {turn}", running=False)
        await wait_until(pilot, lambda t=turn: not app.desk.current.pi.model.running and len(app.query(TextBlock)) == t + 1, what="answer")
    transcript = app.query_one(Transcript)
    await wait_until(pilot, lambda: transcript.max_scroll_y > 20 * turns and transcript.scroll_y == transcript.max_scroll_y,
                     what="a long transcript, at its end")
    return transcript


async def test_wheel_steps_speed_up_and_alt_goes_further(tmp_path: Path, monkeypatch: object) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=(100, 20)) as pilot:
        transcript = await long_transcript(pilot, fake, 3)
        bottom = transcript.scroll_y

        def moved() -> float:
            return bottom - transcript.scroll_y

        monkeypatch.setattr(transcript_module, "WHEEL_QUICK", 0.0)  # type: ignore[attr-defined]
        for expected in (2, 4):  # slow steps: two lines each
            wheel(transcript, up=True)
            await wait_until(pilot, lambda e=expected: moved() == e, what=f"{expected} lines up, not {moved()}")
        assert transcript._anchor_released, "scrolling up stops following the stream"

        monkeypatch.setattr(transcript_module, "WHEEL_QUICK", 3600.0)  # every step is quick now
        for expected in (4 + 3, 4 + 3 + 4, 4 + 3 + 4 + 5, 4 + 3 + 4 + 5 + 6, 4 + 3 + 4 + 5 + 6 + 6):
            wheel(transcript, up=True)
            await wait_until(pilot, lambda e=expected: moved() == e, what=f"{expected} lines up, not {moved()}")
        monkeypatch.setattr(transcript_module, "WHEEL_QUICK", 0.0)
        wheel(transcript, up=False, alt=True)  # ten lines back down
        await wait_until(pilot, lambda: moved() == 28 - 10, what=f"Alt: five times as far, not {moved()}")

        for _ in range(6):
            wheel(transcript, up=False, alt=True)
        await wait_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, what="back at the end")
        await wait_until(pilot, lambda: not transcript._anchor_released, what="following the stream again")
        wheel(transcript, up=False)  # at the end: nothing to scroll, and it keeps following
        await pilot.pause(0.1)
        assert not transcript._anchor_released and transcript.scroll_y == transcript.max_scroll_y


def test_pis_wheel_setting_is_read_from_the_project_over_the_agent_dir(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    (agent).mkdir()
    (project / ".pi").mkdir(parents=True)
    config = Fake(project).config({"PI_CODING_AGENT_DIR": str(agent)})
    assert wheel_lines(config) is None, "no setting: auto"
    (agent / "settings.json").write_text(json.dumps({"fullscreenWheelScrollLines": 4}))
    assert wheel_lines(config) == 4
    for value, read in (("auto", None), (0, None), (101, None), (True, None), (1, 1), (100, 100)):
        (project / ".pi" / "settings.json").write_text(json.dumps({"fullscreenWheelScrollLines": value}))
        assert wheel_lines(config) == read, value


async def test_a_fixed_wheel_setting_scrolls_that_many_lines_a_step(tmp_path: Path, monkeypatch: object) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"fullscreenWheelScrollLines": 3}))
    fake = Fake(tmp_path)
    async with fake.run(size=(100, 20)) as pilot:
        transcript = await long_transcript(pilot, fake, 2)
        bottom = transcript.scroll_y
        monkeypatch.setattr(transcript_module, "WHEEL_QUICK", 3600.0)  # type: ignore[attr-defined]
        for expected in (3, 6, 9, 12):  # quick steps, but no speeding up
            wheel(transcript, up=True)
            await wait_until(pilot, lambda e=expected: bottom - transcript.scroll_y == e, what=f"{expected} lines up")
        wheel(transcript, up=True, alt=True)
        await wait_until(pilot, lambda: bottom - transcript.scroll_y == 27, what="Alt: five times as far")


@pytest.mark.parametrize(("setting", "width"), [(None, 1), ("always", 1), ("hidden", 0)])
async def test_pis_scrollbar_setting(tmp_path: Path, setting: str | None, width: int) -> None:
    if setting is not None:
        (tmp_path / ".pi").mkdir()
        (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"fullscreenScrollbar": setting}))
    fake = Fake(tmp_path)
    async with fake.run(size=(100, 20)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        assert transcript.max_scroll_y == 0, "nothing to scroll yet"
        assert transcript.show_vertical_scrollbar is (setting == "always"), "a bar only when it overflows"
        assert transcript.scrollbar_size_vertical == width, "its column kept from the start: nothing re-wraps"
        await long_transcript(pilot, fake, 2)
        assert transcript.scrollbar_size_vertical == width and (transcript.show_vertical_scrollbar or width == 0)
