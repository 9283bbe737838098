"""The records of a held pi's run in progress, as the holder keeps them for windows that
attach or catch up mid-run (held_pi.py).

Lines are appended as pi writes them: in memory up to `memory` bytes, beyond in an unlinked
file in the holder's folder. Windows read it back from any offset while it grows, and after
the run ended, until the last of them is done (`hold`, `release`). A write the file refuses
(a full or read-only folder) costs nobody anything live: what follows is kept in memory up
to `fallback` bytes, and beyond that not kept; `failed` says why, logged once, and `lost` how
much a window attaching later will miss.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable


class Spool:
    def __init__(self, folder: str, memory: int, fallback: int, log: Callable[[str], None]) -> None:
        self.folder = folder
        self.memory = memory
        self.fallback = fallback
        self.log = log
        self.failed: str | None = None  # why the file could not be written
        self.lost = 0  # bytes of lines not kept
        self._head = bytearray()  # the first bytes, in memory
        self._fd: int | None = None
        self._file_size = 0  # bytes of whole lines in the file
        self._tail = bytearray()  # what came after the file failed
        self._readers = 0
        self._ended = False

    @property
    def size(self) -> int:
        """Bytes that can be read back (whole lines)."""
        return len(self._head) + self._file_size + len(self._tail)

    def append(self, line: bytes) -> None:
        """Keep `line` (ending in LF); never raises."""
        if self.lost:
            self.lost += len(line)
            return
        if self._fd is None and self.failed is None and len(self._head) + len(line) <= self.memory:
            self._head += line
            return
        if self.failed is None:
            try:
                self._write(line)
                return
            except OSError as exc:
                self.failed = exc.strerror or str(exc)
                self.log(f"a run's records could not be written to {self.folder} ({self.failed}); "
                         f"kept in memory up to {self.fallback:,} bytes from here")
        if len(self._tail) + len(line) <= self.fallback:
            self._tail += line
        else:
            self.lost += len(line)

    def _write(self, line: bytes) -> None:
        if self._fd is None:
            with tempfile.TemporaryFile(dir=self.folder) as file:  # (unlinked: nothing is left behind)
                self._fd = os.dup(file.fileno())
        view = memoryview(line)
        written = 0
        while written < len(line):
            written += os.pwrite(self._fd, view[written:], self._file_size + written)
        self._file_size += written

    def read(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes from `offset` (fewer at its end)."""
        parts = []
        head = len(self._head)
        end = min(self.size, offset + size)
        if offset < head:
            parts.append(bytes(self._head[offset : min(head, end)]))
            offset = min(head, end)
        file_end = head + self._file_size
        if offset < min(file_end, end) and self._fd is not None:
            part = os.pread(self._fd, min(file_end, end) - offset, offset - head)
            parts.append(part)
            offset += len(part)
        if file_end <= offset < end:
            parts.append(bytes(self._tail[offset - file_end : end - file_end]))
        return b"".join(parts)

    def hold(self) -> None:
        """A window reads it: it stays readable until `release`."""
        self._readers += 1

    def release(self) -> None:
        self._readers -= 1
        self._let_go()

    def end(self) -> None:
        """The run ended: let go once nobody reads it."""
        self._ended = True
        self._let_go()

    def _let_go(self) -> None:
        if self._ended and self._readers <= 0:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None
            self._head = bytearray()
            self._tail = bytearray()
