"""Bytes on the wire: pideck writes nothing to the terminal while nothing changes (a steady
cursor, no redraw of what is on screen), as pi's own TUI."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

SETTLED = 1.5  # seconds without output: the screen is drawn
IDLE = 3.0  # seconds watched for output once it is


def size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_an_idle_pideck_writes_nothing_to_the_terminal(tmp_path: Path) -> None:
    output = tmp_path / "terminal.out"
    with TmuxPideck(Fake(tmp_path)) as term:
        term.pipe_output(output)
        term.wait_started()
        term.keys("-l", "a prompt not sent")
        term.wait(lambda: "a prompt not sent" in term.screen(), "the text typed")
        last = (size(output), time.monotonic())

        def settled() -> bool:
            nonlocal last
            if size(output) != last[0]:
                last = (size(output), time.monotonic())
            return time.monotonic() - last[1] >= SETTLED

        term.wait(settled, f"{SETTLED} s without output (the cursor blinks?)", timeout=30)
        before, watched = size(output), time.monotonic()
        while time.monotonic() - watched < IDLE:
            assert size(output) == before, f"{size(output) - before} bytes written while idle"
            time.sleep(0.1)
