"""Alt+Up restores the queue in a real terminal (tmux), in both encodings terminals use,
and never reads as Esc (which would abort the run). Fake pi child; the behaviour against
the real pi is in test_queue_images_real_pi.py."""

from __future__ import annotations

import shlex
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_app import ROOT, Fake, _tmux
from textual._xterm_parser import XTermParser

from app.keys import install_alt_arrows


def keys(sequence: str) -> list[str]:
    parser = XTermParser()
    return [event.key for event in [*parser.feed(sequence), *parser.feed("")] if hasattr(event, "key")]


def test_xterm_parser_reads_both_alt_up_encodings() -> None:
    install_alt_arrows()
    assert keys("\x1b[1;3A") == ["alt+up"]  # xterm, tmux
    assert keys("\x1b\x1b[A") == ["alt+up"]  # ESC-prefixing terminals, which Textual read as Esc, Up
    assert keys("\x1b\x1bOB") == ["alt+down"]
    assert keys("a\x1b\x1b[Db") == ["a", "alt+left", "b"]
    assert keys("\x1b") == ["escape"]  # a lone Esc is still Esc


def test_real_terminal_alt_up_restores_queue_without_abort(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")
    socket = f"pideck-test-{uuid.uuid4().hex[:10]}"
    pideck = ROOT / ".venv" / "bin" / "pideck"
    command = shlex.join([str(pideck), "--pi", shlex.join(fake.argv), "--protocol-log", str(tmp_path / "p.log")])
    started = _tmux(socket, "new-session", "-d", "-s", "t", "-x", "120", "-y", "36", "-e", "TERM=xterm-256color",
                    "-c", str(ROOT), command)
    assert started.returncode == 0, started.stderr
    socket_path = _tmux(socket, "display-message", "-p", "#{socket_path}").stdout.strip()

    def screen() -> str:
        return _tmux(socket, "capture-pane", "-p", "-t", "t").stdout

    def wait(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{screen()}\nlog: {fake.kinds()}")
            time.sleep(0.1)

    try:
        wait(lambda: "get_commands" in fake.kinds(), "start-up")
        time.sleep(0.5)
        _tmux(socket, "send-keys", "-t", "t", "-l", "start the run")
        time.sleep(0.2)
        _tmux(socket, "send-keys", "-t", "t", "Enter")
        wait(lambda: "working" in screen(), "run to show")  # the fake queued two messages with the prompt
        _tmux(socket, "send-keys", "-t", "t", "M-Up")  # tmux sends ESC [1;3A
        wait(lambda: fake.kinds().count("clear_queue") == 1, "clear_queue")
        wait(lambda: "Actually, be brief." in screen() and "Then summarize." in screen(), "texts in the editor")
        _tmux(socket, "send-keys", "-t", "t", "C-c")  # clear the editor
        _tmux(socket, "send-keys", "-t", "t", "-l", "steer again")
        time.sleep(0.2)
        _tmux(socket, "send-keys", "-t", "t", "Enter")
        wait(lambda: len(fake.commands("prompt")) == 2, "second steer queued")
        _tmux(socket, "send-keys", "-t", "t", "-H", "1b", "1b", "5b", "41")  # ESC ESC [A
        wait(lambda: fake.kinds().count("clear_queue") == 2, "second clear_queue")
        wait(lambda: "steer again" in screen(), "second text in the editor")
        time.sleep(0.5)
        assert "abort" not in fake.kinds()
        assert "working" in screen()
    finally:
        _tmux(socket, "kill-server")  # only this test's private server
        if socket_path.endswith(socket):
            Path(socket_path).unlink(missing_ok=True)
