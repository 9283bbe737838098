"""Re-queueing the queue editor's messages at the very end of a run, against the REAL pi: pi's
`steer` and `follow_up` only queue, even when pi has just gone idle, so a message sent so
would wait in pi's queue, never delivered. Sent as a `prompt` with `streamingBehavior`, pi
queues it into a run that is still going and runs it at once otherwise."""

from __future__ import annotations

import pytest
from tests.pi_harness import PiHarness, make_app, quiesce, send, started, transcript_text, wait_until

from app.commands.queue import requeue
from app.scripted_model.server import Reply
from protocol.wire.commands import GetState
from widgets.screens.queue_editor import QueueItem

pytestmark = pytest.mark.pi


async def test_requeue_as_the_run_ends_delivers_every_message(pi_harness: PiHarness) -> None:
    app = make_app(pi_harness)
    async with app.run_test() as pilot:
        await started(pilot)
        for round_ in range(4):
            pi_harness.reset_model()
            pi_harness.model.queue(Reply(text=f"Answer {round_}."))
            await send(pilot, f"Start {round_}.")
            if round_ % 2:
                # pi's last event of the run is on its way: pideck still believes pi runs
                await wait_until(pilot, lambda r=round_: f"Answer {r}." in transcript_text(app), what="last delta")
            else:
                # pi is idle, pideck has not read its agent_end yet
                await wait_until(pilot, lambda: not app.desk.current.pi.model.running and pi_harness.model.requests, what="run ended")
                app.desk.current.pi.model.running = True
            pi_harness.model.queue(Reply(text=f"Steered {round_}."), Reply(text=f"Followed {round_}."))
            items = [QueueItem("steer", f"steer {round_}"), QueueItem("follow_up", f"follow {round_}")]
            await requeue(app.desk.current.main.context, items)
            await wait_until(
                pilot, lambda r=round_: f"Followed {r}." in transcript_text(app) and not app.desk.current.pi.model.running,
                timeout=30, what=f"both messages of round {round_} delivered",
            )
            state = await app.desk.current.pi.client.call(GetState())
            assert state.pending_message_count == 0 and not app.desk.current.pi.model.steering and not app.desk.current.pi.model.follow_up
        await quiesce(pilot)
