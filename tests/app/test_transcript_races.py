"""Records that come while the transcript's views are being replaced or mounted (fake pi
child): the model moves on between the view's awaits, and a loaded machine makes that gap
long; a flush of the pump waits for views that another task's changes are mounting (a
session shown again)."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, transcript_text, type_text, wait_until

from protocol import decode
from widgets.transcript import transcript as transcript_module
from widgets.transcript.transcript import Transcript

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
COMMON = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}


def answer(text: str, stamp: int) -> dict[str, Any]:
    return {**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": stamp, "content": [{"type": "text", "text": text}]}


def session(tmp_path: Path, turns: int) -> Fake:
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        messages += [{"role": "user", "content": [{"type": "text", "text": f"Question {turn}"}], "timestamp": 1795952825000 + turn},
                     answer("\n\n".join(f"Answer {turn}, part {part}." for part in range(4)), 1795952825000 + turn)]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    return Fake(tmp_path, "--messages", str(path))


async def test_a_message_that_comes_while_the_transcript_is_rebuilt_is_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It was counted as left out below the window (and every later one with it), so the
    transcript stopped showing new output after a restart or session switch."""
    fake = session(tmp_path, 3)
    async with fake.run() as pilot:
        app = pilot.app
        transcript = app.query_one(Transcript)
        await wait_until(pilot, lambda: "Answer 2, part 3." in transcript_text(app), what="the session shown")
        meanwhile = decode(json.dumps({"type": "message_end", "message": answer("Came meanwhile.", 1795952999000)}).encode())
        removing = transcript.remove_children

        def a_record_comes_as_the_old_views_go(*args: Any, **kwargs: Any) -> Any:
            app.desk.current.pi.model.apply_all([meanwhile])  # as the pump folds a flush in
            return removing(*args, **kwargs)

        monkeypatch.setattr(transcript, "remove_children", a_record_comes_as_the_old_views_go)
        await transcript.rebuild()
        monkeypatch.undo()
        fake.inject({"type": "message_end", "message": answer("And one after.", 1795952999001)})
        await wait_until(pilot, lambda: "And one after." in transcript_text(app), what="new output shown")
        assert "Came meanwhile." in transcript_text(app) and transcript.hidden_after == 0


async def test_views_mounted_while_following_are_trimmed_before_the_scroll_catches_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trim asked whether the view was scrolled to the end; just after a mount the
    offset can lag behind the new end while the view follows it, and the views grew."""
    monkeypatch.setattr(transcript_module, "MAX_VIEWS", 6)
    fake = session(tmp_path, 5)
    async with fake.run(size=(80, 20)) as pilot:
        app = pilot.app
        transcript = app.query_one(Transcript)
        await wait_until(pilot, lambda: len(transcript.views) == 6 and transcript.max_scroll_y > 0, what="the newest 6 views")
        assert transcript.following
        mounting = transcript.mount_all

        async def mount_before_the_scroll_follows(*args: Any, **kwargs: Any) -> Any:
            mounted = await mounting(*args, **kwargs)
            transcript.scroll_y = 0  # the anchor has not scrolled to the new end yet
            return mounted

        monkeypatch.setattr(transcript, "mount_all", mount_before_the_scroll_follows)
        fake.inject({"type": "message_end", "message": answer("A new answer.", 1795952999000)})
        await wait_until(pilot, lambda: "A new answer." in transcript_text(app), what="the new answer")
        await wait_until(pilot, lambda: len(transcript.views) == 6 and transcript.hidden_before == 5,
                         what="trimmed back to the newest 6, the 5 before left out")  # (the trim's count comes as it ends)


def record(data: dict[str, Any]) -> Any:
    return decode(json.dumps(data).encode())


def text_delta(delta: str) -> Any:
    return record({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": delta}})


async def test_a_reply_begun_while_its_session_was_not_shown_is_drawn_once_when_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Showing a session drew what it kept in a task of its own, beside the pump's flushes:
    a flush folded the deltas that came meanwhile into the model while the reply's view
    was being mounted, the view was made of the model as it was then, and the flush gave
    it those deltas again ("Hello world world")."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    first, second = Fake(tmp_path / "one"), Fake(tmp_path / "two")
    async with first.run() as pilot:
        app = pilot.app
        await type_text(pilot, f"/open --pi {shlex.quote(shlex.join(second.argv))} {second.dir}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.slots[1].pi.ready and app.desk.current is app.desk.slots[1],
                         what="the second session shown")
        await pilot.press("alt+1")
        two = app.desk.slots[1]
        pump, model = two.pi.pump, two.pi.model

        def reply() -> str:
            blocks = [item.blocks for item in model.items if getattr(item, "role", "") == "assistant"]
            return blocks[-1][0].text if blocks and 0 in blocks[-1] else ""

        started = {**COMMON, "role": "assistant", "stopReason": "pending", "timestamp": 1795952999000, "content": []}
        for data in ({"type": "message_start", "message": started},
                     {"type": "message_update", "assistantMessageEvent": {"type": "text_start", "contentIndex": 0}}):
            pump.feed(record(data))
        pump.feed(text_delta("Hello"))
        await wait_until(pilot, lambda: pump.idle and reply() == "Hello", what="the reply begun, folded, not drawn")
        transcript = two.main.query_one(Transcript)
        mounting = transcript.mount_all

        async def a_delta_comes_as_the_reply_mounts(*args: Any, **kwargs: Any) -> Any:
            pump.feed(text_delta(" world"))
            pump.feed(record({"type": "queue_update", "steering": [], "followUp": []}))  # (shown at once)
            for _ in range(200):  # the pump's flush gets its turns (it folds at once, or waits for the views)
                if reply() != "Hello":
                    break
                await asyncio.sleep(0)
            return await mounting(*args, **kwargs)

        monkeypatch.setattr(transcript, "mount_all", a_delta_comes_as_the_reply_mounts)
        await pilot.press("alt+2")
        await wait_until(pilot, lambda: pump.idle and reply() == "Hello world" and "Hello" in transcript_text(app),
                         what="the reply shown")
        monkeypatch.undo()
        await pilot.pause()
        assert "Hello world" in transcript_text(app) and "world world" not in transcript_text(app)
