"""The queue editor, Alt+Up and image attachments, driven through pideck against the REAL pi.

The first model request is held on a gate (the scripted model's responder waits for
it), so pi stays "working" for exactly as long as a test needs its queue; no timing.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SIZE, PiHarness, make_app, quiesce, send, started, tiny_png, transcript_text, wait_until

from textual import events

from app.scripted_model.server import Reply
from widgets.prompt.attachments import AttachmentBar
from widgets.prompt.editor import PromptEditor
from widgets.screens.queue_editor import QueueEditor

pytestmark = pytest.mark.pi


@pytest.fixture
def gate(pi_harness: PiHarness) -> Iterator[threading.Event]:
    """Hold the next model request (one with no reply queued) until the test sets the gate."""
    event = threading.Event()
    pi_harness.reset_model()

    def held(_: dict[str, Any]) -> Reply:
        event.wait(60)
        return Reply(text="First answer.")

    pi_harness.model.responder = held
    try:
        yield event
    finally:
        event.set()
        pi_harness.reset_model()


def user_parts(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The content parts of each user message of a chat-completions request."""
    parts = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            parts.append([{"type": "text", "text": content}] if isinstance(content, str) else content)
    return parts


def user_texts(body: dict[str, Any]) -> list[str]:
    return ["".join(p.get("text", "") for p in message) for message in user_parts(body)]


async def queue_three(pilot: Any, harness: PiHarness) -> None:
    """Start a held run, then queue two steers and a follow-up (the first with an image)."""
    app = pilot.app
    await send(pilot, "Start.")
    await wait_until(pilot, lambda: app.desk.current.pi.model.running and harness.model.requests, what="held run")
    (harness.cwd / "red.png").write_bytes(tiny_png())
    app.query_one(PromptEditor).load("alpha one @red.png ")
    await wait_until(pilot, lambda: len(app.query_one(AttachmentBar).attachments) == 1, what="chip")
    await pilot.press("enter")
    await send(pilot, "beta two")
    await send(pilot, "gamma three", key="alt+enter")
    await wait_until(
        pilot, lambda: app.desk.current.pi.model.steering == ["alpha one ", "beta two"] and app.desk.current.pi.model.follow_up == ["gamma three"],
        what="three queued",
    )


async def test_queue_editor_edits_reorders_and_resends(pi_harness: PiHarness, gate: threading.Event) -> None:
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await queue_three(pilot, pi_harness)
        await pilot.press("f5")
        editor = await wait_until(pilot, lambda: isinstance(app.screen, QueueEditor) and app.screen, what="editor")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.steering and not app.desk.current.pi.model.follow_up, what="pi's queue cleared")
        assert [(i.kind, i.text) for i in editor.items] == [
            ("steer", "alpha one "), ("steer", "beta two"), ("follow_up", "gamma three"),
        ]
        assert len(editor.items[0].images) == 1  # the image came back with its message
        # edit the first text, delete the second, move the follow-up up, switch kinds
        await pilot.press("enter", "end", *"edited", "escape")
        await pilot.press("down", "d")
        await pilot.press("t", "shift+up", "down", "t")
        assert [(i.kind, i.text) for i in editor.items] == [("steer", "gamma three"), ("follow_up", "alpha one edited")]
        await pilot.press("ctrl+s")
        await wait_until(
            pilot, lambda: app.desk.current.pi.model.steering == ["gamma three"] and app.desk.current.pi.model.follow_up == ["alpha one edited"],
            what="pi's queue_update with the edited queue",
        )
        assert app.desk.current.pi.model.running  # nothing was aborted
        pi_harness.model.queue(Reply(text="Steered."), Reply(text="Followed up."))
        gate.set()
        await wait_until(pilot, lambda: "Followed up." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the queue delivered")
        last = pi_harness.model.requests[-1]
        assert user_texts(last) == ["Start.", "gamma three", "alpha one edited"]
        image_parts = [p for p in user_parts(last)[2] if p["type"] == "image_url"]
        assert image_parts[0]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(tiny_png()).decode()
        assert "beta two" not in str(pi_harness.model.requests)
        await quiesce(pilot)


async def test_queue_editor_cancel_requeues_and_run_ending_meanwhile_loses_nothing(
    pi_harness: PiHarness, gate: threading.Event
) -> None:
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "Start.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running and pi_harness.model.requests, what="held run")
        await send(pilot, "late steer")
        await send(pilot, "late follow-up", key="alt+enter")
        await wait_until(pilot, lambda: app.desk.current.pi.model.steering and app.desk.current.pi.model.follow_up, what="queued")
        # Esc in the editor puts the originals back, unchanged
        await pilot.press("f5")
        await wait_until(pilot, lambda: isinstance(app.screen, QueueEditor), what="editor")
        await pilot.press("down", "t", "escape")
        await wait_until(
            pilot, lambda: app.desk.current.pi.model.steering == ["late steer"] and app.desk.current.pi.model.follow_up == ["late follow-up"],
            what="originals re-queued",
        )
        # the run ends while the editor is open: saving still delivers everything, in order
        await pilot.press("f5")
        editor = await wait_until(pilot, lambda: isinstance(app.screen, QueueEditor) and app.screen, what="editor")
        pi_harness.model.queue(Reply(text="Answer one."), Reply(text="Answer two."))
        gate.set()
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "First answer." in transcript_text(app),
                         what="run to end with the editor open")
        await pilot.press("enter", "end", *" now", "escape", "ctrl+s")
        await wait_until(pilot, lambda: "Answer two." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="queued messages sent after the run")
        assert editor.items[0].text == "late steer now"
        assert user_texts(pi_harness.model.requests[-1]) == ["Start.", "late steer now", "late follow-up"]
        await quiesce(pilot)


async def test_alt_up_restores_queue_into_editor_without_abort(pi_harness: PiHarness, gate: threading.Event) -> None:
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await queue_three(pilot, pi_harness)
        await pilot.press("alt+up")
        editor = app.query_one(PromptEditor)
        await wait_until(pilot, lambda: editor.text == "alpha one \n\nbeta two\n\ngamma three", what="texts restored")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.steering and not app.desk.current.pi.model.follow_up, what="pi's queue empty")
        assert [a.name for a in app.query_one(AttachmentBar).attachments] == ["red.png"]
        assert app.desk.current.pi.model.running
        gate.set()
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="run to end")
        assert "First answer." in transcript_text(app)
        assert "aborted" not in transcript_text(app).lower()
        assert len(pi_harness.model.requests) == 1  # nothing queued was delivered
        await quiesce(pilot)


async def test_image_attached_by_path_and_paste_reaches_the_model(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="Two red squares."))
    (pi_harness.cwd / "shot.png").write_bytes(tiny_png())
    pasted = tmp_path / "pasted image.png"
    pasted.write_bytes(tiny_png(3, 1))
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        editor = app.query_one(PromptEditor)
        bar = app.query_one(AttachmentBar)
        editor.insert("Compare @shot.png with ")
        await wait_until(pilot, lambda: len(bar.attachments) == 1, what="chip from @path")
        assert editor.text == "Compare with "
        editor.post_message(events.Paste(f"'{pasted}'"))
        await wait_until(pilot, lambda: len(bar.attachments) == 2, what="chip from a pasted path")
        assert editor.text == "Compare with "
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Two red squares." in transcript_text(app) and not app.desk.current.pi.model.running,
                         what="answer")
        assert not bar.attachments and not bar.display
        parts = user_parts(pi_harness.model.requests[-1])[-1]
        urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        assert urls == [
            "data:image/png;base64," + base64.b64encode(tiny_png()).decode(),
            "data:image/png;base64," + base64.b64encode(tiny_png(3, 1)).decode(),
        ]
        text = transcript_text(app)
        assert f"[image: shot.png {len(tiny_png())} B]" in text
        assert f"[image: pasted image.png {len(tiny_png(3, 1))} B]" in text
        await quiesce(pilot)
