"""A size-capped, rotated log of lines from pi that could not be read as records.

The file is created with mode 0600: it can hold anything pi printed. Credentials are
redacted before they are written (see protocol.redact).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from protocol.redact import Redactor


def default_log_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "pideck" / "protocol.log"


class ProtocolLog:
    def __init__(
        self,
        path: Path,
        max_bytes: int = 4 * 1024 * 1024,
        keep: int = 2,
        max_line: int = 64 * 1024,
        redactor: Redactor | None = None,
    ) -> None:
        self.path = path
        self.redactor = redactor or Redactor.from_env()
        self.max_bytes = max_bytes
        self.keep = keep
        self.max_line = max_line
        self.entries = 0

    def write(self, kind: str, raw: bytes, detail: str = "") -> None:
        """Append one entry; a line longer than `max_line` is cut (its length is noted)."""
        shown = self.redactor.bytes(raw[: self.max_line])
        cut = f" (cut from {len(raw)} bytes)" if len(raw) > self.max_line else ""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        entry = f"{stamp} {kind}{cut}: {self.redactor.text(detail)}\n".encode() + shown + b"\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size + len(entry) > self.max_bytes:
                self._rotate()
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.fchmod(fd, 0o600)  # also when the file was there before, made by something else
            with os.fdopen(fd, "ab") as handle:
                handle.write(entry)
            self.entries += 1
        except OSError:
            pass  # a log that cannot be written must never break reading

    def _rotate(self) -> None:
        for index in range(self.keep - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
        self.path.replace(self.path.with_name(f"{self.path.name}.1"))
