"""A size-capped, rotated log of lines from pi that could not be read as records.

The file is created with mode 0600: it can hold anything pi printed. Credentials are
redacted before they are written (see protocol.wire.redact). A file that is there already
keeps its mode; a path that is not a regular file (`/dev/null`, a FIFO) turns the log
off. With a `fallback` (pideck's default log), `path` is the user's: its directory must
exist (a typo does not make directories), and when it cannot be written, entries go to
the fallback. `where` says where they went.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from protocol.state_home import state_dir
from protocol.wire.redact import Redactor


def default_log_path() -> Path:
    return state_dir() / "protocol.log"


class _Off(Exception):
    """The path is not a regular file: nothing is written to it."""


class ProtocolLog:
    def __init__(
        self,
        path: Path,
        max_bytes: int = 4 * 1024 * 1024,
        keep: int = 2,
        max_line: int = 64 * 1024,
        redactor: Redactor | None = None,
        fallback: Path | None = None,
    ) -> None:
        self.path = path
        self.fallback = fallback if fallback != path else None
        self.redactor = redactor or Redactor.from_env()
        self.max_bytes = max_bytes
        self.keep = keep
        self.max_line = max_line
        self.entries = 0
        self.failure: str | None = None  # why `path` could not be written, the last time it could not
        self.off = False  # `path` is not a regular file (e.g. /dev/null)
        self.written_to: Path | None = None  # where the last entry went

    @property
    def where(self) -> str:
        """Where problem lines go, for the user: the path, the fallback and why, or nowhere."""
        if self.off:
            return f"nowhere ({self.path} is not a regular file: the log is off)"
        if self.failure is None:
            return str(self.path)
        if self.written_to is not None and self.written_to == self.fallback:
            return f"{self.fallback} ({self.failure})"
        return f"nowhere ({self.failure})"

    def probe(self) -> None:
        """Open the log (creating it) without writing, so `where` is right before any entry."""
        self._write(b"")

    def write(self, kind: str, raw: bytes, detail: str = "") -> None:
        """Append one entry; a line longer than `max_line` is cut (its length is noted)."""
        shown = self.redactor.bytes(raw[: self.max_line])
        cut = f" (cut from {len(raw)} bytes)" if len(raw) > self.max_line else ""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        entry = f"{stamp} {kind}{cut}: {self.redactor.text(detail)}\n".encode() + shown + b"\n"
        if self._write(entry):
            self.entries += 1

    def _write(self, entry: bytes) -> bool:
        try:
            self._append(self.path, entry)
        except _Off:
            self.off = True
            return False
        except OSError as exc:  # a log that cannot be written must never break reading
            self.failure = f"{self.path} cannot be written: {exc.strerror or exc}"
        else:
            self.failure = None
            self.written_to = self.path
            return True
        try:
            if self.fallback is None:
                raise _Off
            self._append(self.fallback, entry)
        except (_Off, OSError):
            self.written_to = None
            return False
        self.written_to = self.fallback
        return True

    def _append(self, path: Path, entry: bytes) -> None:
        try:
            info = path.stat()
        except FileNotFoundError:
            if path == self.fallback or self.fallback is None:
                path.parent.mkdir(parents=True, exist_ok=True)
        else:
            if not stat.S_ISREG(info.st_mode):
                raise _Off
            if entry and info.st_size + len(entry) > self.max_bytes:
                self._rotate(path)
        # O_NONBLOCK: a FIFO put there since the check fails at once instead of blocking the reader
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o600)
        with os.fdopen(fd, "ab") as handle:
            handle.write(entry)

    def _rotate(self, path: Path) -> None:
        for index in range(self.keep - 1, 0, -1):
            older = path.with_name(f"{path.name}.{index}")
            if older.exists():
                older.replace(path.with_name(f"{path.name}.{index + 1}"))
        path.replace(path.with_name(f"{path.name}.1"))
