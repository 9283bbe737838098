"""A page's pideck never outlives its page: the page's close closes pideck's stdin (a
hang-up, never textual-serve's quit), pideck's own watch ends it when it is too busy to leave
in order, and the server kills it when neither worked."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_page_pideck_too_busy_to_leave_ends_soon_after_its_stdin_closes() -> None:
    """A loop that never lets the app see the hang-up (here: one that never yields) does not
    keep the process: it ends `leave_within` s after its stdin went."""
    busy = "from app.cli.served_page import watch_page; watch_page(0, leave_within=0.5); print('up', flush=True)\nwhile True: pass"
    child = subprocess.Popen([sys.executable, "-c", busy], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"up\n"
        time.sleep(1.0)
        assert child.poll() is None, "it runs on while its page is there"
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(30) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()


def test_the_server_ends_a_page_pideck_by_closing_its_stdin_and_kills_one_that_stays() -> None:
    """stop() sends no quit (a held pi would end with it): it closes the page's stdin, which
    a pideck takes for a hang-up; one that does not end within `end_within` s is killed."""
    from textual_serve.download_manager import DownloadManager

    from widgets.engine.served import EngineAppService

    async def nothing(*_: object) -> None:
        return None

    async def run(program: str, end_within: float) -> int:
        service = EngineAppService("exec " + shlex.join([sys.executable, "-c", program]), write_bytes=nothing,
                                   write_str=nothing, close=nothing, download_manager=DownloadManager())
        await service.start(80, 24)
        started = time.monotonic()
        await service.stop(end_within=end_within)
        assert time.monotonic() - started < end_within + 10
        assert service.process is not None
        return await service.process.wait()

    reads_to_the_end = ("import sys; print('__GANGLION__', flush=True); data = sys.stdin.buffer.read(); "
                        "sys.exit(7 if b'quit' in data else 3)")
    assert asyncio.run(run(reads_to_the_end, end_within=30.0)) == 3, "its stdin closed, and no quit sent"
    stays = "import time; print('__GANGLION__', flush=True); time.sleep(600)"
    assert asyncio.run(run(stays, end_within=0.5)) == -signal.SIGKILL, "killed"


def test_a_page_pideck_starts_at_its_pages_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """textual-serve gives the page's size in COLUMNS and ROWS, where Textual's web driver
    reads it: a page's pideck keeps them (without, it started 80 wide, the page told it its
    own size a step later, and a page's screen laid out for one, then the other, for ever,
    drawing nothing). A terminal's pideck drops a COLUMNS a shell exported."""
    from app.cli.pideck import main
    from app.cli.served_page import WEB_DRIVER

    monkeypatch.setenv("COLUMNS", "43")
    monkeypatch.setenv("ROWS", "46")
    monkeypatch.setenv("TEXTUAL_DRIVER", WEB_DRIVER)
    assert main(["--version"]) == 0
    assert os.environ.get("COLUMNS") == "43" and os.environ.get("ROWS") == "46"
    monkeypatch.delenv("TEXTUAL_DRIVER")
    assert main(["--version"]) == 0
    assert "COLUMNS" not in os.environ
