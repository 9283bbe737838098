"""A pideck that runs for a page of `pideck serve` (app/serve.py): how it knows, and what it
tells the server's terminal as it ends. Apart from the server, whose imports (asyncio
among them) a pideck run in a terminal does without until pi is started."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol.wire.responses import SessionState

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # what textual-serve sets in TEXTUAL_DRIVER


def served_in_browser() -> bool:
    """This pideck runs for a page of `pideck serve` (its stdin and stdout are textual-serve's)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def tell_server_how_to_resume(args: argparse.Namespace, state: SessionState | None) -> None:
    """A page's pideck has ended: the command that resumes its session (if saved) goes to
    stderr, which textual-serve prints in the server's terminal."""
    from app.resume_commands import resume_command
    from app.terminal.say import say

    command = resume_command(args, state)
    try:
        if command is not None:
            say(f"pideck: the page's session is saved; to resume it: {command}", flush=True)
    except OSError:
        pass  # the server is gone
