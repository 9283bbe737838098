"""A control sequence that two streamed deltas cut (`"hello \\x1b"`, then `"[31mred"`)
shows neither half on screen while the reply streams, in the answer and in the thinking."""

from __future__ import annotations

from pathlib import Path

from tests.app.test_safe_text import screen_text
from tests.pi_harness import Fake, wait_until

START = {"type": "message_start", "message": {
    "role": "assistant", "content": [], "api": "openai-completions", "provider": "scripted", "model": "scripted-demo",
    "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
    "stopReason": "pending", "timestamp": 1795952823001}}


def delta(kind: str, index: int, text: str) -> dict:
    return {"type": "message_update", "assistantMessageEvent": {"type": kind, "contentIndex": index, "delta": text}}


async def test_an_escape_cut_between_two_deltas_never_shows(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(START, delta("thinking_delta", 0, "think \x1b"), delta("text_delta", 1, "hello \x1b"))
        await wait_until(pilot, lambda: "hello" in screen_text(app) and "think" in screen_text(app), what="the first deltas")
        fake.inject(delta("thinking_delta", 0, "]0;title\x07deep"), delta("text_delta", 1, "[31mred"))
        await wait_until(pilot, lambda: "red" in screen_text(app) and "deep" in screen_text(app), what="the second deltas")
        await pilot.pause()
        shown = screen_text(app)
        assert "hello red" in shown and "think deep" in shown
        assert "[31m" not in shown and "]0;" not in shown and "title" not in shown
