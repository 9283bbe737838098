"""A pideck that runs for a page of `pideck serve` (app/cli/serve.py): how it knows, that it
ends when its page goes, and what it tells the server's terminal as it ends. Apart from the
server, whose imports (asyncio among them) a pideck run in a terminal does without until pi
is started."""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.pi.launch import LaunchConfig
    from protocol.wire.responses import SessionState

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # what textual-serve sets in TEXTUAL_DRIVER
LEAVE_WITHIN = 10.0  # seconds this pideck has to end once its page is gone, before it is ended at once


def served_in_browser() -> bool:
    """This pideck runs for a page of `pideck serve` (its stdin and stdout are textual-serve's)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def watch_page(fd: int, leave_within: float = LEAVE_WITHIN) -> None:
    """End this process `leave_within` s after its page went (the server closed `fd`, its
    stdin), if it is still running then. The app leaves in order as soon as it sees the
    hang-up (app/terminal/hangup.py); this thread is for an app too busy to see it or to
    finish leaving: a page's pideck never outlives its page by more."""
    from app.terminal.hangup import CHECK_EVERY, terminal_gone

    def watch() -> None:
        while not terminal_gone(fd):
            time.sleep(CHECK_EVERY)
        time.sleep(leave_within)
        os.kill(os.getpid(), signal.SIGKILL)  # (held pis go on: the holder sees a window go)

    threading.Thread(target=watch, name="page-watch", daemon=True).start()


def tell_page(text: str) -> None:
    """Show `text` on the page, as its terminal's (Textual's web driver's framing, which
    textual-serve reads): a pideck that cannot start for it (no pi held for an attach...) says
    why there, where the page stayed black."""
    from protocol.control_codes import visible

    shown = f"\r\n  {visible(text)}\r\n".encode()
    try:
        os.write(1, b"__GANGLION__\n" + b"D" + len(shown).to_bytes(4, "big") + shown)
    except OSError:
        pass  # the page is gone


def tell_server_how_to_resume(args: argparse.Namespace, config: LaunchConfig, state: SessionState | None,
                              detached: int = 0, started: bool = True) -> None:
    """A page's pideck has ended: what goes on held (`detached` pis), else the command that
    resumes its session (if saved; `config`'s launch, `started` as
    app.cli.resume_commands.resume_line takes it), goes to stderr, which textual-serve prints in
    the server's terminal."""
    from app.cli.resume_commands import resume_line
    from app.terminal.say import say

    command = resume_line(args, config, state, started)
    try:
        if detached:
            it = "them" if detached > 1 else "it"
            say(f"pideck: the page's {detached} held pi{'s' * (detached > 1)} go{'es' * (detached == 1)} on; "
                f"pideck attach shows {it}, pideck ls lists {it}, pideck stop ends {it}", flush=True)
        elif command is not None:
            say(f"pideck: the page's session is saved; to resume it: {command}", flush=True)
    except OSError:
        pass  # the server is gone
