"""The status line's spinner turns at most every SPIN_EVERY seconds, on whatever frame comes:
while the transcript streams it rides on the stream's frames and the tick draws none of its
own, and a line that did not change is not drawn again."""

from __future__ import annotations

import time
from pathlib import Path

from tests.pi_harness import Fake, start_run

from widgets.panes.side import StatusLine


async def test_the_spinner_turns_on_the_streams_frames_and_an_unchanged_line_is_not_redrawn(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake)
        status = app.query_one(StatusLine)
        drawn: list[str] = []
        update = status.update
        status.update = lambda text, **kwargs: (drawn.append(str(text)), update(text, **kwargs))[1]  # type: ignore[method-assign]
        # synchronous from here: neither the tick nor pi's records come in between
        status.spun_at, frame = time.monotonic(), status.frame  # it just turned
        for _ in range(5):
            status.refresh_status()  # as each frame of a stream does
        assert status.frame == frame and drawn == [], "not turned again within SPIN_EVERY, nothing redrawn"
        status.spun_at = 0.0  # due to turn
        app.desk.current.main.status_at = time.monotonic()  # but the session's changes drew a frame just now
        app.desk.current.main.animate()
        assert status.frame == frame and drawn == [], "the tick leaves it to the stream's next frame"
        app.desk.current.main.status_at = 0.0  # nothing drew for a while
        app.desk.current.main.animate()
        assert status.frame == frame + 1 and len(drawn) == 1, "the tick turns it"
