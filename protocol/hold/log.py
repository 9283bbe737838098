"""The holder's log, `holder.log` in its folder: a line with its time for each thing worth
knowing, bounded however much a peer makes it say.

It is the holder's stderr, so whatever else is written there (Python's own last words) is
in it too. Past LOG_CAP bytes it moves to `holder.log.1` (the one before is dropped) and a
new one starts: two files at most, checked at every line. A line said again and again (the
same words, numbers aside) is written BURST times in REPEAT_WINDOW s, then counted: the
count is written once that window has passed (`tick`, each second or so, or the next line).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

LOG_CAP = 1 << 20
BURST = 5
REPEAT_WINDOW = 10.0
MOST_WORDS = 1024  # kinds of line counted at once (beyond, lines are written as they come: the cap bounds them)
_NUMBERS = re.compile(rb"\d+")


class _Said:
    """How often lines of the same words were said since `start`, and the last of them."""

    __slots__ = ("counted", "last", "lines", "start")

    def __init__(self, start: float) -> None:
        self.start = start
        self.lines = 0
        self.counted = 0
        self.last = b""


class HolderLog:
    def __init__(self, path: Path, cap: int = LOG_CAP, fd: int = 2) -> None:
        self.path = path
        self.cap = cap
        self.fd = fd
        self._said: dict[bytes, _Said] = {}  # by their words, numbers aside
        self.reopen()

    def __call__(self, line: str) -> None:
        now = time.monotonic()
        self.tick(now)
        text = line.encode("utf-8", "backslashreplace")
        key = _NUMBERS.sub(b"#", text[:200])
        said = self._said.get(key)
        if said is None:
            if len(self._said) >= MOST_WORDS:
                self._write(text)
                return
            said = self._said[key] = _Said(now)
        said.lines += 1
        if said.lines > BURST:
            said.counted += 1
            said.last = text
            return
        self._write(text)

    def tick(self, now: float | None = None) -> None:
        """Write the counts of the lines said too often whose window has passed."""
        now = time.monotonic() if now is None else now
        for key, said in [(key, said) for key, said in self._said.items() if now - said.start >= REPEAT_WINDOW]:
            del self._said[key]
            if said.counted:
                self._write(b"(%d more like it in %d s, the last: %s)" % (said.counted, now - said.start, said.last))

    def reopen(self) -> None:
        """Write to `path` again (it was moved away, or its folder removed and made again);
        one over LOG_CAP is moved to `.1` first. Where `path` cannot be opened, the file
        written to is emptied once over LOG_CAP."""
        try:
            if os.lstat(self.path).st_size > self.cap:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        except OSError:
            pass
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        except OSError:  # (its folder is gone: the file written to is one nobody can read any more)
            with contextlib.suppress(OSError):
                if os.fstat(self.fd).st_size > self.cap:
                    os.ftruncate(self.fd, 0)
            return
        os.dup2(fd, self.fd)
        os.close(fd)

    def _write(self, text: bytes) -> None:
        try:
            if os.fstat(self.fd).st_size > self.cap:
                self.reopen()
            os.write(self.fd, time.strftime("%Y-%m-%d %H:%M:%S ").encode() + text + b"\n")
        except OSError:
            pass
