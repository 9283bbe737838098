"""A large paste against the real pi: the prompt holds pi's marker, and pi, the model and
the transcript's user message get the whole text; a steer with a marker, cleared from pi's
queue by Esc, comes back as it was typed."""

from __future__ import annotations

import json

import pytest
from tests.pi_harness import SIZE, PiHarness, make_app, quiesce, started, transcript_text, wait_until
from textual import events

from app.scripted_model.server import Reply
from widgets.prompt.editor import PromptEditor

pytestmark = pytest.mark.pi

LINES = "".join(f"log line {n:03}\n" for n in range(200))


async def test_a_large_paste_reaches_pi_whole_and_comes_back_as_typed(pi_harness: PiHarness) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="Read it all."), Reply(text="word " * 400, chunk_chars=5, delay=0.03))
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        editor = app.query_one(PromptEditor)
        editor.load("Count these: ")
        app.post_message(events.Paste(LINES))
        await wait_until(pilot, lambda: editor.text == "Count these: [paste #1 +201 lines]", what="the marker")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Read it all." in transcript_text(app) and not app.desk.current.pi.model.running, what="answer")
        sent = json.dumps(pi_harness.model.requests[-1])
        assert "log line 000" in sent and "log line 199" in sent and "[paste #" not in sent
        assert "log line 199" in transcript_text(app), "the user message shows the whole paste"
        # a steer with a marker while pi works: Esc clears pi's queue back into the prompt
        editor.load("Again ")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running, what="the second run")
        app.post_message(events.Paste(LINES))
        await wait_until(pilot, lambda: editor.text == "[paste #1 +201 lines]", what="the marker again")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.desk.current.pi.model.steering, what="the steer queued")
        assert app.desk.current.pi.model.steering == [LINES]
        await pilot.press("escape")
        await wait_until(pilot, lambda: editor.text, what="the queue given back")
        assert editor.text == "[paste #1 +201 lines]"
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="aborted")
        await quiesce(pilot)
