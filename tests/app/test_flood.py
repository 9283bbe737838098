"""A flood of deltas (pi streaming faster than anyone reads) is shown in few frames,
and whatever is not a delta (the end of the message above all) is shown at once."""

from __future__ import annotations

import json
from typing import Any
from pathlib import Path

import pytest

from app.pi import record_pump
from protocol import decode
from protocol.wire.events import MessageEnd, MessageUpdate
from protocol.state.session_model import MessageItem
from tests.pi_harness import STREAMS, Fake, transcript_text, wait_until
from widgets.transcript.message_views import TextBlock

RECORDED = STREAMS / "long_3000.jsonl"  # a real pi streaming a 3,000-delta reply


def recorded_reply() -> tuple[list[object], object]:
    """The assistant message of the recording: its start and deltas, and its end."""
    records, end = [], None
    for line in RECORDED.read_bytes().splitlines():
        data = json.loads(line)
        if data.get("type") in ("message_start", "message_end") and data["message"]["role"] != "assistant":
            continue
        record = decode(line)
        if data.get("type") == "message_start" or isinstance(record, MessageUpdate):
            records.append(record)
        elif isinstance(record, MessageEnd):
            end = record
            break
    assert end is not None and len(records) > 2000
    return records, end


async def test_a_flood_waits_for_its_frame_and_the_end_of_the_message_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(record_pump, "FLOOD_FRAME", 3600.0)  # however slow the machine, deltas wait
    records, end = recorded_reply()
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        pump = app.desk.current.pi.pump
        applied: list[int] = []
        apply_now = app.desk.current.show_changes

        async def counting(changes: Any) -> None:
            applied.append(pump.pending)
            await apply_now(changes)

        app.desk.current.show_changes = counting  # type: ignore[method-assign]
        first, rest = records[: record_pump.FLOOD + 1], records[record_pump.FLOOD + 1 :]
        for record in first:  # all at once, as a reader catching up would hand them over
            pump.feed(record)
        await wait_until(pilot, lambda: applied and not pump.flushing, what="the first flush")
        assert pump.flooding, "more than FLOOD records in one flush is a flood"

        flushes = len(applied)
        for record in rest[:50]:
            pump.feed(record)
        await wait_until(pilot, lambda: not pump.pending, what="the deltas folded ahead")
        assert len(applied) == flushes, "folded into the model, not yet shown"
        item = app.desk.current.pi.model.items[-1]
        block = app.query(TextBlock).last()
        assert isinstance(item, MessageItem) and len(item.blocks[0].text) > len(block.text)

        for record in rest[50:]:
            pump.feed(record)
        pump.feed(end)  # the end of the message is shown at once
        await wait_until(pilot, lambda: block.text == end.message.content[0].text, what="the whole reply")
        assert len(applied) - flushes <= 3, f"the rest of the flood took {len(applied) - flushes} flushes"
        assert transcript_text(app).rstrip().endswith(end.message.content[0].text.split()[-1])


async def test_a_message_whose_start_and_end_are_shown_apart_keeps_what_its_plain_blocks_show(tmp_path: Path) -> None:
    """Records other than deltas are shown at once, so a message's start and its end are
    often two flushes: the end must not wipe an image's name or an unknown block's notice."""
    content = [
        {"type": "text", "text": "Look at this"},
        {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
        {"type": "hologram", "beam": 1},
    ]
    message = {"role": "user", "content": content, "timestamp": 1}
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        app.desk.current.pi.pump.feed(decode(json.dumps({"type": "message_start", "message": message}).encode()))
        await wait_until(pilot, lambda: "Look at this" in transcript_text(app), what="the message")
        app.desk.current.pi.pump.feed(decode(json.dumps({"type": "message_end", "message": message}).encode()))
        await wait_until(pilot, lambda: app.desk.current.pi.pump.idle, what="the end shown")
        await pilot.pause()
        text = transcript_text(app)
        assert "[image: png 5 B]" in text and "[unknown block pideck does not show]" in text, text
