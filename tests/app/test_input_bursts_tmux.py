"""What is typed in a real terminal reaches pi as typed: each Enter / Alt+Enter sends exactly
the text typed before it, however tmux (or an ssh link) bunches the keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TRIES = 12


def test_steer_and_follow_up_sent_back_to_back_stay_two_messages(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "3")  # the run streams on until an abort
    with TmuxPideck(fake) as term:
        term.wait_started()
        term.send("Write a long answer slowly.")
        term.wait(lambda: fake.commands("prompt"), "the prompt sent")
        expected: list[tuple[str, str | None]] = []
        for n in range(TRIES):
            if n % 2:  # one send-keys a key or text, no pause
                term.keys("-l", f"steer {n}: be brief")
                term.keys("Enter")
                term.keys("-l", f"followup {n}: then greet")
                term.keys("M-Enter")
            else:  # all of it in one write to the terminal
                term.keys(*f"steer {n}: be brief", "Enter", *f"followup {n}: then greet", "M-Enter")
            expected += [(f"steer {n}: be brief", "steer"), (f"followup {n}: then greet", "followUp")]
        assert sent_after(term, fake, len(expected)) == expected


def sent_after(term: TmuxPideck, fake: Fake, count: int) -> list[tuple[str, str | None]]:
    """The prompts sent after the first, once `count` of them came or the prompt emptied and
    nothing more came for a while (a lost message never comes)."""

    def sent() -> list[tuple[str, str | None]]:
        return [(c["message"], c.get("streamingBehavior")) for c in fake.commands("prompt")[1:]]

    seen: list[object] = []

    def settled() -> bool:
        now = sent()
        seen.append(len(now))
        return len(now) >= count or (len(seen) > 30 and len(set(seen[-30:])) == 1)  # 3 s without a new one

    term.wait(settled, "the messages sent", timeout=60)
    return sent()
