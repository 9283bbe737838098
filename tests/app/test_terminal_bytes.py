"""Bytes on the wire: pideck writes nothing to the terminal while nothing changes (a steady
cursor, no redraw of what is on screen), as pi's own TUI; what it leaves out still moves the
terminal's own cursor."""

from __future__ import annotations

import json
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


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_terminals_own_cursor_follows_a_move_that_changes_nothing_else(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"showHardwareCursor": True}))  # no drawn cursor to redraw
    with TmuxPideck(Fake(tmp_path), wrapper=("env", f"PI_CODING_AGENT_DIR={agent}")) as term:
        term.wait_started()
        term.keys("-l", "abc")
        term.wait(lambda: "abc" in term.screen(), "the text typed")

        def cursor_x() -> int:
            return int(term._tmux("display-message", "-p", "-t", "t", "#{cursor_x}").stdout)

        line = next(row for row in term.screen().splitlines() if "abc" in row)
        term.wait(lambda: cursor_x() == line.index("abc") + 3, "the cursor after the text")
        term.keys("Left")
        term.wait(lambda: cursor_x() == line.index("abc") + 2, "the cursor one to the left")
