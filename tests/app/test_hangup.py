"""pideck leaves with its terminal: on SIGHUP, and when no SIGHUP comes (the terminal
just hangs up under it), closing pi on the way out."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import pty
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from tests.load import out_of_time
from tests.pi_harness import Fake, TmuxPideck

from textual.drivers._writer_thread import WriterThread

from app.terminal.hangup import CHECK_EVERY, HANGUP_EXIT, terminal_gone, watch_hangup
from widgets.engine.driver import TolerantWriter

# Runs pideck (its arguments) and writes its exit status to OUT; on SIGHUP it forwards the
# signal to pideck (as a shell passes it to its jobs) or swallows it (as make does).
WRAPPER = """
import os, signal, subprocess, sys
out, mode, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
child = subprocess.Popen(argv)
forward = lambda *_: child.send_signal(signal.SIGHUP)
signal.signal(signal.SIGHUP, forward if mode == "forward" else (lambda *_: None))
def put(path, text):  # whole or not at all: the test reads it as soon as it is there
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)
put(out + ".pids", f"{os.getpid()} {os.getsid(0)} {child.pid}")
code = child.wait()
put(out, str(code))
"""


def test_a_closed_terminal_or_pipe_is_gone_and_an_open_one_is_not() -> None:
    master, slave = pty.openpty()
    try:
        assert not terminal_gone(slave)
        os.close(master)
        assert terminal_gone(slave), "the terminal hung up"
    finally:
        os.close(slave)
    read_end, write_end = os.pipe()
    assert not terminal_gone(read_end)
    os.close(write_end)
    assert terminal_gone(read_end)
    os.close(read_end)
    assert terminal_gone(read_end), "a closed descriptor"


def test_sighup_is_left_alone_when_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    handlers: list[int] = []
    intervals: list[float] = []
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        watch_hangup(lambda sig, _: handlers.append(sig), lambda delay, _: intervals.append(delay), 0, lambda: None)
        assert handlers == [] and intervals == [CHECK_EVERY], "no handler, but the terminal is still watched"
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as in a terminal (the suite may run under nohup)
        watch_hangup(lambda sig, _: handlers.append(sig), lambda delay, _: intervals.append(delay), 0, lambda: None)
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert handlers == [signal.SIGHUP]


class HungUpTerminal(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.EIO, "Input/output error")


def writes_finish(writer: WriterThread) -> bool:
    """Whether 100 frames and the stop after them get through `writer` within 2 s."""
    writer.start()
    done = threading.Event()

    def app_writes() -> None:
        for _ in range(100):
            writer.write("a frame")
        writer.stop()
        done.set()

    threading.Thread(target=app_writes, daemon=True).start()
    return done.wait(2)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # Textual's thread dying
def test_output_keeps_draining_once_the_terminal_has_hung_up() -> None:
    assert not writes_finish(WriterThread(HungUpTerminal())), "Textual's own thread: the app's writes block"
    assert writes_finish(TolerantWriter(HungUpTerminal()))


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def kill_terminal(term: TmuxPideck, pids: tuple[int, ...]) -> list[int]:
    """Kill the tmux server; the `pids` still alive 15 s later, stretched by the load (killed
    then, so that a failed run leaves no process spinning behind)."""
    term._tmux("kill-server")
    started = time.monotonic()
    while any(alive(pid) for pid in pids) and not out_of_time(started, 15):
        time.sleep(0.1)
    left = [pid for pid in pids if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("mode", ["forward", "swallow"])
def test_pideck_and_pi_end_when_the_terminal_is_killed(tmp_path: Path, mode: str) -> None:
    fake = Fake(tmp_path, stream="markdown.jsonl")
    status = tmp_path / "status"
    with TmuxPideck(fake, wrapper=(sys.executable, "-c", WRAPPER, str(status), mode)) as term:
        term.wait_started()
        wrapper_pid, session, pideck = map(int, Path(f"{status}.pids").read_text().split())
        assert session == wrapper_pid, "the wrapper leads the terminal's session, as make does"
        (pi,) = children(pideck)
        left = kill_terminal(term, (pideck, pi))
        assert pideck not in left, "pideck outlived its terminal"
        assert pi not in left, "pi outlived pideck"
        term.wait(status.exists, "the wrapper to see pideck's exit status")
        assert status.read_text() == str(HANGUP_EXIT), "pideck left on its own, not killed by the signal"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_pideck_leading_the_terminal_ends_with_it_in_the_middle_of_a_run(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    with TmuxPideck(fake) as term:
        term.wait_started()
        pideck = int(term._tmux("display-message", "-p", "#{pane_pid}").stdout)
        (pi,) = children(pideck)
        term.send("start the run")
        term.wait(lambda: "working" in term.screen(), "run to show")  # frames keep coming: the spinner
        assert not kill_terminal(term, (pideck, pi)), "pideck or pi outlived the terminal"


class NoPi:
    """A `--pi` command that exits at once, for TmuxPideck (which runs `--pi` with `argv`)."""

    def __init__(self, tmp_path: Path, *argv: str) -> None:
        self.dir, self.argv = tmp_path, argv

    def kinds(self) -> list[str]:
        return []


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("pi", [("false",), ("true",), (sys.executable, "/nonexistent/cli.py"),
                                ("38/python", "/nonexistent/cli.py")])
def test_pideck_whose_pi_could_not_start_ends_with_its_terminal(tmp_path: Path, pi: tuple[str, ...]) -> None:
    with contextlib.ExitStack() as stack:
        if pi[0] == "38/python":  # an interpreter path as long as a checkout's in /tmp/tmp.XXXXXXXXXX/p/
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(dir="/tmp")))
            python = folder / "p".ljust(38 - len(str(folder)) - len("//python"), "p") / "python"
            python.parent.mkdir()
            python.symlink_to(sys.executable)
            pi = (str(python), *pi[1:])
        _could_not_start(tmp_path, pi)


def _could_not_start(tmp_path: Path, pi: tuple[str, ...]) -> None:
    with TmuxPideck(NoPi(tmp_path, *pi)) as term:  # type: ignore[arg-type]
        term.wait(lambda: "pi could not start" in term.screen(), "the start-up error screen")
        if len(pi) > 1:  # (the rows break it where the interpreter's path puts it)
            term.wait(lambda: term.shows("No such file or directory"), "pi's stderr on it")
        pideck = int(term._tmux("display-message", "-p", "#{pane_pid}").stdout)
        assert not kill_terminal(term, (pideck,)), "pideck outlived its terminal"


def threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_sigcont_without_a_suspend_starts_no_second_terminal_mode(tmp_path: Path) -> None:
    """The kernel sends SIGCONT with the SIGHUP of a terminal that goes away: resuming on it
    started a second input thread, which kept a finished pideck spinning on the dead terminal."""
    fake = Fake(tmp_path, stream="markdown.jsonl")
    with TmuxPideck(fake) as term:
        term.wait_started()
        pideck = int(term._tmux("display-message", "-p", "#{pane_pid}").stdout)
        before = threads(pideck)
        os.kill(pideck, signal.SIGCONT)
        term.send("still here")  # handled after the signal, in the same thread
        term.wait(lambda: fake.commands("prompt"), "the prompt sent: keys still work")
        assert threads(pideck) == before, "a SIGCONT started the terminal's threads again"
