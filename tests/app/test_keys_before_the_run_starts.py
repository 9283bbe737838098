"""Messages typed in the burst of keys that sends a prompt, before pi's `agent_start` is read,
go as a steer and a follow-up: sent as new prompts, pi refused them (its run had started),
and of two refused the second was lost (only one was given back, to an empty prompt)."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, burst, quiesce, wait_until
from widgets.prompt.editor import PromptEditor


async def test_a_steer_and_a_follow_up_typed_with_the_prompt_are_queued(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--rate", "1/300")
    async with fake.run() as pilot:
        app = pilot.app
        burst(app, *"first prompt", "enter", *"steer me", "enter", *"later please", "alt+enter")  # one read, as tmux sends it
        prompts = await wait_until(pilot, lambda: len(fake.commands("prompt")) == 3 and fake.commands("prompt"),
                                   what="three prompts sent")
        assert [(p["message"], p.get("streamingBehavior")) for p in prompts] == [
            ("first prompt", None), ("steer me", "steer"), ("later please", "followUp")]
        await wait_until(pilot, lambda: (app.desk.current.pi.model.steering, app.desk.current.pi.model.follow_up) == (["steer me"], ["later please"]),
                         what="both queued")
        assert not any("refused" in str(n.message) for n in app._notifications)
        assert app.query_one(PromptEditor).text == ""
        await quiesce(pilot)


async def test_a_refused_message_goes_back_before_what_was_typed_since(tmp_path: Path) -> None:
    """A refusal gave the message back only to an empty prompt: with a draft there, it was lost."""
    from protocol.wire.commands import Prompt

    fake = Fake(tmp_path, "--rate", "1/300")
    async with fake.run() as pilot:
        app = pilot.app
        burst(app, *"first prompt", "enter")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running, what="the run")
        editor = app.query_one(PromptEditor)
        editor.load("a draft")
        app.desk.current.main.send_command(Prompt(message="refused one"), restore="refused one")  # (pi refuses it: running)
        await wait_until(pilot, lambda: "refused one" in editor.text, what="the message given back")
        assert editor.text == "refused one\n\na draft"
        await quiesce(pilot)
