"""What is typed in a real terminal reaches pi as typed: each Enter / Alt+Enter sends exactly
the text typed before it, however tmux (or an ssh link) bunches the keys."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TRIES = 12


@pytest.mark.engine
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


@pytest.mark.parametrize("keys", [("Escape", "C-c"), ("Escape", "n"), ("Escape", "next"), ("Escape",), ("Escape", "then n")],
                         ids=["esc-ctrl+c", "esc-n", "esc-text", "esc", "esc-then-n"])
@pytest.mark.engine
def test_esc_with_a_key_right_after_it_still_aborts(tmp_path: Path, keys: tuple[str, ...]) -> None:
    """Textual reads ESC and a key within 100 ms (in one write, or the next read) as that key
    with Alt, or as the key alone: the abort was lost, and the letter too."""
    fake = Fake(tmp_path, "--stop-after", "3")  # the run streams on until an abort
    with TmuxPideck(fake) as term:
        term.wait_started()
        term.send("Write a long answer slowly.")
        term.wait(lambda: "working" in term.screen(), "the run shown")
        if keys[-1] == "then n":  # two writes: the ESC ends one read of the terminal, n begins the next
            term.keys("Escape")
            term.keys("n")
            typed = "n"
        else:
            term.keys(*keys)  # one write
            typed = {"n": "n", "next": "next"}.get(keys[-1], "")
        term.wait(lambda: "abort" in fake.kinds(), "the abort")
        assert fake.kinds().count("clear_queue") == 1
        if typed:
            term.wait(lambda: f"│ {typed} " in term.screen(), "the key after Esc typed in the prompt")
        if keys[-1] == "C-c":  # (on the empty prompt)
            term.wait(lambda: "Press ctrl+c again" in term.screen(), "Ctrl+C read too")


@pytest.mark.parametrize("keys", [("Escape", "next"), ("Escape", "-l", "next")], ids=["one write", "two writes"])
@pytest.mark.engine
def test_text_typed_right_after_esc_is_a_paragraph_of_its_own_after_the_queue_it_gives_back(
        tmp_path: Path, keys: tuple[str, ...]) -> None:
    """Esc waits for pi's answer to clear_queue before the keys after it are read: they went
    on the last line of what came back ("Then summarize.next")."""
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")
    with TmuxPideck(fake) as term:
        term.wait_started()
        term.send("start the run")
        term.wait(lambda: "working" in term.screen(), "the run shown")  # the fake queued two messages with the prompt
        if len(keys) == 2:
            term.keys(*keys)
        else:
            term.keys("Escape")
            term.keys(*keys[1:])
        term.wait(lambda: "abort" in fake.kinds(), "the abort")
        term.wait(lambda: "│ next " in term.screen(), "the text typed")
        rows = [row.strip("│ ▏") for row in term.screen().splitlines()]
        at = rows.index("next")
        assert rows[at - 4 : at + 1] == ["Actually, be brief.", "", "Then summarize.", "", "next"]
