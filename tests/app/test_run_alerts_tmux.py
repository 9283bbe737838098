"""The bell, the desktop notification and the title's running mark, as bytes pideck writes to
a real terminal (tmux's pipe-pane), with a tmux client attached from an outer tmux so that
focus moves as a user's does (tmux sends focus events to the pane with `focus-events on`),
and what the outer terminal receives through tmux."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

MARKED, PLAIN = "\x1b]2;● pideck\x07".encode(), b"\x1b]2;pideck\x07"
DONE = b"\x1b]9;pideck: pi is done\x07"
ASKS = b"\x1b]9;pideck: pi asks: Delete the branch?\x07"
AFTER = 1.0  # PIDECK_NOTIFY_AFTER: a run this long alerts in a focused terminal


class Outer:
    """A terminal for the tmux client: a pane of another private tmux server, recorded."""

    def __init__(self, term: TmuxPideck, output: Path) -> None:
        self.socket = term.socket + "-outer"
        started = self._tmux("new-session", "-d", "-s", "o", "-x", "120", "-y", "36",
                             f"env -u TMUX tmux -L {term.socket} attach -t t")  # fmt: skip
        assert started.returncode == 0, started.stderr
        self._tmux("pipe-pane", "-t", "o", f"cat >> {output}")

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)

    def close(self) -> None:
        self._tmux("kill-server")


OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bPtmux;(?:[^\x1b]|\x1b\x1b)*\x1b\\")


def bells(written: bytes) -> int:
    """Bells rung: BELs that do not end an escape sequence."""
    return OSC.sub(b"", written).count(b"\a")


def read(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def run_once(term: TmuxPideck, output: Path, lasting: float = 0.0) -> bytes:
    """A run pi starts and ends `lasting` seconds later; what pideck wrote meanwhile."""
    before = len(read(output))
    term.fake.inject({"type": "agent_start"})
    term.wait(lambda: MARKED in read(output)[before:], "the title marked running")
    started = time.monotonic()
    term.wait(lambda: time.monotonic() - started >= lasting, f"a run of {lasting} s", timeout=lasting + 5)
    term.fake.inject({"type": "agent_end"}, {"type": "agent_settled"})
    term.wait(lambda: PLAIN in read(output)[before:], "the title without the mark")
    return read(output)[before:]


def pideck(tmp_path: Path, *settings: str) -> TmuxPideck:
    env = ("env", "-u", "VTE_VERSION", "-u", "GHOSTTY_RESOURCES_DIR", f"PIDECK_NOTIFY_AFTER={AFTER}", *settings)
    term = TmuxPideck(Fake(tmp_path, "--stop-after", "10"), wrapper=env)
    term._tmux("set", "-s", "focus-events", "on")
    return term


def focus_away(term: TmuxPideck) -> None:
    term._tmux("new-window", "-t", "t")  # the client shows another window: pideck's pane loses the focus
    term.wait(lambda: term._tmux("display-message", "-p", "-t", "t:0", "#{window_active}").stdout.strip() == "0",
              "another window shown")


def test_bell_and_notification_when_unfocused_or_after_a_long_run(tmp_path: Path) -> None:
    output, outer_output = tmp_path / "pideck.out", tmp_path / "outer.out"
    with pideck(tmp_path) as term:
        outer = Outer(term, outer_output)
        try:
            term.pipe_output(output)
            term.wait_started()
            written = run_once(term, output)
            assert bells(written) == 0 and b"\x1b]9;" not in written, "a short run in the focused terminal: quiet"

            focus_away(term)
            written = run_once(term, output)
            assert written.count(b"\a" + DONE) == 1 and bells(written) == 1, written
            before = len(read(output))
            term.fake.inject({"type": "extension_ui_request", "id": "d1", "method": "confirm",
                              "title": "Delete the branch?", "message": "It is merged."})  # fmt: skip
            term.wait(lambda: b"\a" + ASKS in read(output)[before:], "the dialog's alert")
            assert DONE not in read(outer_output), "tmux drops the escape without allow-passthrough"

            term._tmux("select-window", "-t", "t:0")  # back: focused again, a long run alerts
            term.keys("Escape")  # the dialog goes
            term._tmux("set", "-g", "allow-passthrough", "on")
            written = run_once(term, output, lasting=AFTER + 0.5)
            assert written.count(b"\a\x1bPtmux;" + DONE.replace(b"\x1b", b"\x1b\x1b") + b"\x1b\\") == 1, written
            term.wait(lambda: DONE in read(outer_output), "the notification passed to the outer terminal")
        finally:
            outer.close()


def test_notify_off_sends_neither(tmp_path: Path) -> None:
    output, outer_output = tmp_path / "pideck.out", tmp_path / "outer.out"
    with pideck(tmp_path, "PIDECK_NOTIFY=off") as term:
        outer = Outer(term, outer_output)
        try:
            term.pipe_output(output)
            term.wait_started()
            focus_away(term)
            written = run_once(term, output, lasting=AFTER + 0.5)
            assert bells(written) == 0 and b"\x1b]9;" not in written and b"Ptmux" not in written, written
        finally:
            outer.close()
