"""What a short reply waits on: the prompt goes to pi before any frame is drawn for its
Enter, and the stats a run's end makes stale are asked for once its end is on screen (pi's
answers, read and shown before that frame, held it back)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, send, wait_until
from widgets.prompt.editor import PromptEditor


def watch(app: Any) -> list[tuple[str, Any]]:
    """Frames drawn (with whether pi was still running, and the items shown) and lines written to pi, in order."""
    screen, client = app.desk.current.main, app.desk.current.pi.client
    events: list[tuple[str, Any]] = []
    stdin = client.link.child.stdin
    refresh, write = screen._compositor_refresh, stdin.write

    def drawing() -> None:
        events.append(("frame", (app.desk.current.pi.model.running, len(app.desk.current.pi.model.items))))
        refresh()

    def writing(data: bytes) -> None:
        events.append(("write", json.loads(data)["type"]))
        write(data)

    screen._compositor_refresh = drawing
    stdin.write = writing
    return events


async def first_reply(pilot: Any) -> Any:
    """The app, once a first reply is in and its run over."""
    app = pilot.app
    await send(pilot, "First.")
    await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) > 1 and not app.desk.current.pi.model.running, what="a first reply")
    return app


async def test_the_prompt_is_written_before_the_frame_of_its_enter(tmp_path: Path) -> None:
    async with Fake(tmp_path).run() as pilot:
        app = await first_reply(pilot)
        app.desk.current.main.query_one(PromptEditor).load("Second.")
        await app.desk.current.main.wait_for_refresh()  # (the frame with the text typed)
        events = watch(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: ("write", "prompt") in events, what="the prompt sent")
        assert events[0] == ("write", "prompt"), events[:4]


async def test_the_stats_are_asked_for_after_the_frame_of_the_run_s_end(tmp_path: Path) -> None:
    async with Fake(tmp_path).run() as pilot:
        app = await first_reply(pilot)
        await pilot.pause()
        events = watch(app)
        await send(pilot, "Second.")
        await wait_until(pilot, lambda: ("write", "get_session_stats") in events, what="the stats asked for")
        asked = events.index(("write", "get_session_stats"))
        ended = ("frame", (False, len(app.desk.current.pi.model.items)))  # (the reply in, the run over)
        assert ended in events[:asked], events
