"""The message sent and the start of its reply reach the screen in one frame (the real pi,
the scripted model): the frames after pi's echo of a prompt wait for the reply's first
content, then are drawn again."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from tests.load import out_of_time
from tests.pi_harness import PiHarness, make_app, quiesce, send, started, transcript_text, wait_until

from app.pi import record_pump
from app.scripted_model.server import Reply
from widgets.transcript.message_views import MessageView

pytestmark = pytest.mark.pi


def frames_of_views(app: Any) -> list[list[str]]:
    """For each frame drawn from now: the roles of the transcript's messages then."""
    screen = app.desk.current.main
    frames: list[list[str]] = []
    refresh = screen._compositor_refresh

    def drawing() -> None:
        frames.append([view.item.role for view in screen.transcript.query(MessageView)])
        refresh()

    screen._compositor_refresh = drawing
    return frames


async def until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    """Wait for `condition` on the loop alone: a pilot's pause draws a frame of its own."""
    started = time.monotonic()
    while not condition():
        assert not out_of_time(started, timeout), f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def test_the_message_sent_is_drawn_in_the_frame_of_its_reply(
    pi_harness: PiHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hold longer than any wait here: the frames come again because the reply came, not
    # because the hold ran out (on a loaded machine the model can take longer than HOLD).
    monkeypatch.setattr(record_pump, "HOLD", 60.0)
    pi_harness.reset_model()
    # The second reply's first content 0.3 s after its stream begins (its role chunk): the
    # echo is in well before it.
    pi_harness.model.queue(Reply(text="First answer."), Reply(text="Second answer.", chunk_chars=100, delay=0.3))
    app = make_app(pi_harness)
    async with app.run_test(size=(120, 36)) as pilot:
        await started(pilot)
        await send(pilot, "First.")
        await wait_until(pilot, lambda: "First answer." in transcript_text(app) and not app.desk.current.pi.model.running,
                         what="the first reply")
        await quiesce(pilot)
        frames = frames_of_views(app)
        await send(pilot, "Second.")
        await until(lambda: "Second answer." in transcript_text(app) and not app.desk.current.pi.model.running, "the second reply")
        await until(lambda: frames and frames[-1][-2:] == ["user", "assistant"], "the reply drawn")
        shown = [roles[-1] for roles in frames]
        assert "user" not in shown, f"a frame showed the message sent without its reply: {shown}"
        await quiesce(pilot)
