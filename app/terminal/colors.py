"""The terminal's default background and foreground colours, asked before Textual starts
(OSC 11 and OSC 10), so `light/dark` and `system` can follow a light terminal.

The questions are followed by a Device Attributes request (DA1), which every terminal
answers: once its answer is in, the terminal has said all it will, so a terminal that
does not know OSC 11 costs no wait. The answers are read here, with the terminal in raw
mode, and never reach Textual's key reader; whatever else was read (keys typed while pideck
started, even before it ran) is kept, for the app to take as typed (app/terminal/type_ahead.py),
with Enter typed before raw mode read as Enter (`typed_before`).
"""

from __future__ import annotations

import os
import re
import select
import termios
import time
import tty
from typing import Any, NamedTuple

from protocol.files.pi_colors import RGB

QUERY = b"\x1b]11;?\x1b\\\x1b]10;?\x1b\\\x1b[c"
LIMIT = 0.25  # seconds to wait for the answers (pi waits 100 ms before its first paint)
_COLOR = re.compile(rb"\x1b\](1[01]);rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)")
_DA1 = re.compile(rb"\x1b\[\?[\d;]*c")


def parse_answers(data: bytes) -> tuple[RGB | None, RGB | None]:
    """The background (OSC 11) and foreground (OSC 10) colours in the terminal's answers."""
    found: dict[bytes, RGB] = {}
    for match in _COLOR.finditer(data):
        r, g, b = (round(int(part, 16) / (16 ** len(part) - 1) * 255) for part in match.groups()[1:])
        found[match[1]] = (r, g, b)
    return found.get(b"11"), found.get(b"10")


class Answers(NamedTuple):
    background: RGB | None
    foreground: RGB | None
    typed: bytes  # what came besides the answers: keys typed meanwhile, in order


def typed_besides(data: bytes) -> bytes:
    """`data` without the terminal's answers."""
    return _DA1.sub(b"", _COLOR.sub(b"", data))


def typed_before(fd: int, saved: list[Any]) -> bytes:
    """What was typed before raw mode, as it was typed. The terminal's own line discipline
    read it in mode `saved`: where that maps CR to NL (ICRNL, the default), Enter came in as
    a line feed, which pideck reads as Ctrl+J, a new line in the prompt, not a message sent."""
    early = b""
    while select.select([fd], [], [], 0)[0] and (chunk := os.read(fd, 1024)):
        early += chunk
    if saved[0] & termios.ICRNL and not saved[0] & termios.IGNCR:
        early = early.replace(b"\n", b"\r")
    return early


def query_terminal_colors(fd: int, limit: float = LIMIT) -> Answers:
    """Ask the terminal on `fd` (read and written) for its colours; None for each it
    does not say within `limit` seconds or if it cannot be asked."""
    try:
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError):
        return Answers(None, None, b"")
    data = b""
    try:
        tty.setraw(fd, termios.TCSANOW)
        data = typed_before(fd, saved)
        os.write(fd, QUERY)
        deadline = time.monotonic() + limit
        while not _DA1.search(data) and (left := deadline - time.monotonic()) > 0:
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1024)
                if not chunk:
                    break
                data += chunk
    except OSError:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    return Answers(*parse_answers(data), typed_besides(data))
