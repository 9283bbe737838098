"""A FIFO where pideck reads a file (its saved desk, pi's settings, keybindings and themes, git's
HEAD, checkpoints, session files, recordings, images, the runtime's lock) is refused at once:
`open()` of a FIFO waits for a writer, and pideck would hang at start on a blank screen.

Each read runs in a thread; one still waiting after the timeout is let go by opening the
FIFO's other end, and the test fails instead of hanging."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.git_branch import branch_of
from app.runtime import ProvisionError, ensure_runtime
from protocol.files.config_files import ConfigFileError, read_json
from protocol.files.desk_file import DeskFileError, desks_dir, load_desk
from protocol.files.headless_files import load_file
from protocol.files.images import ImageError, is_image_file, load_image
from protocol.files.session_files import read_summary, session_cwd
from protocol.state.checkpoints import LocalFiles, prune
from protocol.wire.recording import read_recording

TIMEOUT = 10.0


def promptly(call: Callable[[], Any], fifo: Path) -> tuple[Any, BaseException | None]:
    """What `call` returns or raises, within TIMEOUT."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the reader waiting in open(): let it go
        thread.join(TIMEOUT)
        pytest.fail(f"reading the FIFO {fifo.name} waited for a writer")
    return outcome.get("value"), outcome.get("error")


def fifo_at(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def prune_over(fifo: Path) -> int:
    return prune(fifo.parent.parent)


READERS: dict[str, tuple[str, Callable[[Path], Any], tuple[type[BaseException], ...]]] = {
    "desk": ("state/pideck/desks/desk-1.json", load_desk, (DeskFileError,)),
    "settings": ("agent/settings.json", read_json, (ConfigFileError,)),
    "keybindings": ("agent/keybindings.json", read_json, (ConfigFileError,)),
    "theme": ("agent/themes/mine.json", read_json, (ConfigFileError,)),
    "git HEAD": ("repo/.git/HEAD", lambda fifo: branch_of(fifo, fifo.parent.parent), ()),
    "checkpoint record": ("checkpoints/s1/calls/c1.json", lambda fifo: LocalFiles.read(str(fifo), 1024), (OSError,)),
    "checkpoint session": ("checkpoints/s1/session.json", prune_over, ()),
    "session summary": ("sessions/s.jsonl", read_summary, ()),
    "session header": ("sessions/h.jsonl", lambda fifo: session_cwd(fifo, fifo.parent), ()),
    "headless run": ("run.jsonl", load_file, (OSError,)),
    "recording": ("bug.jsonl", read_recording, (OSError,)),
    "image": ("shot.png", load_image, (ImageError,)),
    "image sniff": ("sniff.png", is_image_file, ()),
}


@pytest.mark.parametrize("name", READERS)
def test_a_fifo_is_refused_at_once(tmp_path: Path, name: str) -> None:
    where, read, refusals = READERS[name]
    fifo = fifo_at(tmp_path / where)
    value, error = promptly(lambda: read(fifo), fifo)
    if refusals:
        assert isinstance(error, refusals), (value, error)
    else:
        assert error is None and value in (None, False, 0), (value, error)


def test_the_runtimes_lock_as_a_fifo_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path / "cache"))
    from app.runtime import runtime_dir

    fifo = fifo_at(runtime_dir() / ".lock")
    _, error = promptly(ensure_runtime, fifo)
    assert isinstance(error, ProvisionError) and ("not a regular file" in str(error) or "cannot open" in str(error)), error


def test_pideck_restore_with_its_desk_a_fifo_says_so_and_ends(tmp_path: Path) -> None:
    """The whole command, in a terminal: one line and a non-zero status, not a blank screen."""
    fifo = fifo_at(desks_dir(os.environ) / "desk-1.json")
    master, slave = pty.openpty()
    pideck = Path(sys.executable).parent / "pideck"
    try:
        done = subprocess.run([str(pideck), "--restore"], stdin=slave, stdout=slave, stderr=subprocess.PIPE,
                              text=True, timeout=TIMEOUT * 3)
    except subprocess.TimeoutExpired:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("pideck --restore waited on the FIFO")
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert "not a regular file" in done.stderr, done.stderr
