"""Every way out ends the same: Ctrl+C pressed many times, SIGINT or SIGTERM from outside,
at any moment of a run or of the exit itself. pi is closed in order, the resume command
is printed once, and no traceback reaches the terminal."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

# Runs pideck (its arguments) as a shell runs a job: the terminal's SIGINT reaches both, the
# wrapper ignores it. Writes pideck's pid, then its exit status, to OUT.pid and OUT.
WRAPPER = """
import signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
out, argv = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(argv, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
with open(out + ".pid", "w") as f:
    f.write(str(child.pid))
code = child.wait()
with open(out, "w") as f:
    f.write(str(code))
time.sleep(600)  # keeps the terminal's last screen
"""


class SlowToClose:
    """`fake`, taking a second to end after pideck closes its stdin, as a busy pi does."""

    def __init__(self, fake: Fake) -> None:
        self.fake, self.dir = fake, fake.dir
        self.argv = ("sh", "-c", f"{shlex.join(fake.argv)}; sleep 1")

    def kinds(self) -> list[str]:
        return self.fake.kinds()


def running_fake(tmp_path: Path) -> Fake:
    session = tmp_path / "saved.jsonl"
    session.write_text("{}\n")
    return Fake(tmp_path, "--stop-after", "10", "--session-file", str(session), stream="steer_abort.jsonl")


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


def pi_of(pideck: int) -> int:
    (pi,) = Path(f"/proc/{pideck}/task/{pideck}/children").read_text().split()
    return int(pi)


def orderly_exit(term: TmuxPideck, status: Path, pi: int) -> str:
    """pideck's exit status, once pi has gone and pideck has printed how to resume."""
    term.wait(status.exists, "pideck's exit", timeout=30)
    term.wait(lambda: "To resume this session:" in term.screen(), "the resume command")
    screen = term._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t").stdout
    assert screen.count("To resume this session:") == 1, screen
    assert "Traceback" not in screen and "Error" not in screen and "never awaited" not in screen, screen
    assert not alive(pi), "pi was left running"
    return status.read_text()


@contextmanager
def in_a_run(tmp_path: Path) -> Iterator[tuple[TmuxPideck, Path, int, int]]:
    """pideck in tmux over a pi slow to close, a run going: the terminal, the file its exit
    status goes to, pideck's pid and pi's."""
    status = tmp_path / "status"
    fake = SlowToClose(running_fake(tmp_path))
    with TmuxPideck(fake, wrapper=(sys.executable, "-c", WRAPPER, str(status))) as term:  # type: ignore[arg-type]
        term.wait_started()
        pideck = int(Path(f"{status}.pid").read_text())
        pi = pi_of(pideck)
        term.send("start the run")
        term.wait(lambda: "working" in term.screen(), "the run to show")
        yield term, status, pideck, pi


def test_ctrl_c_pressed_again_and_again_while_pi_closes(tmp_path: Path) -> None:
    with in_a_run(tmp_path) as (term, status, _, pi):
        for _ in range(8):  # two quit; the others come while pi takes its second to close
            term.keys("C-c")
            time.sleep(0.15)
        assert orderly_exit(term, status, pi) == "0"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signals_from_outside_again_and_again(tmp_path: Path, sig: signal.Signals) -> None:
    with in_a_run(tmp_path) as (term, status, pideck, pi):
        for _ in range(8):  # the first leaves; the others come while pi closes and pideck prints
            if not alive(pideck):
                break
            os.kill(pideck, sig)
            time.sleep(0.15)
        assert orderly_exit(term, status, pi) == str(128 + sig)
