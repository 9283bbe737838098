"""Strict JSONL framing: split on LF only.

U+2028 and U+2029 are legal inside JSON strings and are not boundaries; a CR
right before the LF is dropped. Lines of any length are buffered (no asyncio
StreamReader limit), and the buffer is scanned once, not again per chunk.
"""

from __future__ import annotations


class LineFramer:
    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0
        self._skipping = False  # the rest of a line let go (`cut`) is passed over, up to its LF

    @property
    def pending(self) -> int:
        """Bytes held of a line not yet terminated."""
        return len(self._buffer)

    def feed(self, chunk: bytes) -> list[bytes]:
        """Add `chunk`; return the complete lines it finished, without their line ends."""
        if self._skipping:
            end = chunk.find(b"\n")
            if end < 0:
                return []
            self._skipping = False
            chunk = chunk[end + 1 :]
        buffer = self._buffer
        buffer += chunk
        lines: list[bytes] = []
        start = 0
        search = self._scanned
        with memoryview(buffer) as view:  # one copy of each line (a slice of the bytearray would be two)
            while (end := buffer.find(b"\n", search)) != -1:
                stop = end - 1 if end > start and buffer[end - 1] == 0x0D else end
                lines.append(bytes(view[start:stop]))
                start = search = end + 1
        if start:
            del buffer[:start]
        self._scanned = len(buffer)
        return lines

    def flush(self) -> bytes | None:
        """At EOF: the unterminated rest, if any (a CR at its end is dropped)."""
        if not self._buffer:
            return None
        rest = bytes(self._buffer)
        self._buffer.clear()
        self._scanned = 0
        return rest[:-1] if rest.endswith(b"\r") else rest

    def drop(self, keep: int) -> bytes:
        """Let go of the unterminated line held (one too long to keep); its first `keep` bytes."""
        head = bytes(self._buffer[:keep])
        self._buffer.clear()
        self._scanned = 0
        return head

    def cut(self, keep: int) -> bytes:
        """Let go of the unterminated line held, and of the rest of it as it comes (up to its
        LF): one too long to keep. Its first `keep` bytes."""
        head = self.drop(keep)
        self._skipping = True
        return head
