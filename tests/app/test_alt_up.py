"""Alt+Up restores the queue in a real terminal (tmux), in both encodings terminals use,
and never reads as Esc (which would abort the run). Fake pi child; the behaviour against
the real pi is in test_queue_images_real_pi.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck
from textual._xterm_parser import XTermParser

from widgets.engine.keys import install_key_reads


def keys(sequence: str) -> list[str]:
    parser = XTermParser()
    return [event.key for event in [*parser.feed(sequence), *parser.feed("")] if hasattr(event, "key")]


def test_xterm_parser_reads_both_alt_up_encodings() -> None:
    install_key_reads()
    assert keys("\x1b[1;3A") == ["alt+up"]  # xterm, tmux
    assert keys("\x1b\x1b[A") == ["alt+up"]  # ESC-prefixing terminals, which Textual read as Esc, Up
    assert keys("\x1b\x1bOB") == ["alt+down"]
    assert keys("a\x1b\x1b[Db") == ["a", "alt+left", "b"]
    assert keys("\x1b") == ["escape"]  # a lone Esc is still Esc


@pytest.mark.engine
def test_real_terminal_alt_up_restores_queue_without_abort(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")
    with TmuxPideck(fake) as term:
        term.wait_started()
        term.send("start the run")
        term.wait(lambda: "working" in term.screen(), "run to show")  # the fake queued two messages with the prompt
        term.keys("M-Up")  # tmux sends ESC [1;3A
        term.wait(lambda: fake.kinds().count("clear_queue") == 1, "clear_queue")
        term.wait(lambda: "Actually, be brief." in term.screen() and "Then summarize." in term.screen(),
                  "texts in the editor")
        term.keys("C-c")  # clear the editor
        term.send("steer again")
        term.wait(lambda: len(fake.commands("prompt")) == 2, "second steer queued")
        term.keys("-H", "1b", "1b", "5b", "41")  # ESC ESC [A
        term.wait(lambda: fake.kinds().count("clear_queue") == 2, "second clear_queue")
        term.wait(lambda: "steer again" in term.screen(), "second text in the editor")
        time.sleep(0.5)
        assert "abort" not in fake.kinds()
        assert "working" in term.screen()
