"""What windows and the holder send each other on the socket: frames of one kind byte and
a 4-byte big-endian length, then that many bytes.

Kinds: `c` a control object (JSON) both ways; window to holder `i`, one line for pi's
stdin; holder to window `o`, lines pi wrote on stdout (each ending in LF), `m` the
get_messages answer an attach starts from, `e` what pi wrote on stderr. A frame longer than the reader's limit,
or of an unknown kind, ends the connection: the stream can no longer be trusted.
"""

from __future__ import annotations

import struct
from typing import Any

import msgspec

PROTOCOL = 1  # said in every hello: a window and a holder of another pideck may not understand each other
HEADER = struct.Struct(">cI")
CONTROL, STDIN, STDOUT, MESSAGES, STDERR = b"c", b"i", b"o", b"m", b"e"
FROM_WINDOW = frozenset({CONTROL, STDIN})
FROM_HOLDER = frozenset({CONTROL, STDOUT, MESSAGES, STDERR})
MAX_CONTROL = 4 << 20  # a control object (a spawn's environment included: Linux's whole ARG_MAX is 2 MB)
MAX_FRAME = 256 << 20  # a window's line for pi: a prompt with its images
MAX_FROM_HOLDER = 600 << 20  # pi's longest line (the client's limit, 512 MB: a huge session's get_messages)


class BadFrame(Exception):
    """The peer sent what is not a frame this side takes; the connection is ended."""


def frame(kind: bytes, payload: bytes) -> bytes:
    return HEADER.pack(kind, len(payload)) + payload


def control(**fields: Any) -> bytes:
    return frame(CONTROL, msgspec.json.encode(fields))


def read_control(payload: bytes) -> dict[str, Any]:
    """A control frame's object; BadFrame when it is not a JSON object."""
    try:
        value = msgspec.json.decode(payload)
    except msgspec.DecodeError as exc:
        raise BadFrame(f"a control frame is not JSON: {str(exc)[:200]}") from None
    except RecursionError:
        raise BadFrame("a control frame nested too deep") from None
    if not isinstance(value, dict):
        raise BadFrame("a control frame is not an object")
    return value


class FrameReader:
    """Frames out of the bytes fed to it, checked against `kinds` and `limit` (a frame's
    header is checked as soon as it is read: one over the limit is refused before its bytes
    come; a control frame's against `control_limit`). `limit` may change between frames (`next`)."""

    def __init__(self, kinds: frozenset[bytes], limit: int = MAX_FRAME, control_limit: int = MAX_CONTROL) -> None:
        self.kinds = kinds
        self.limit = limit
        self.control_limit = control_limit
        self._buffer = bytearray()
        self._start = 0

    @property
    def pending(self) -> int:
        return len(self._buffer) - self._start

    def feed(self, chunk: bytes) -> list[tuple[bytes, bytes]]:
        """The frames `chunk` completes, as (kind, payload); BadFrame on a broken stream."""
        self.add(chunk)
        frames: list[tuple[bytes, bytes]] = []
        while (got := self.next()) is not None:
            frames.append(got)
        return frames

    def add(self, chunk: bytes) -> None:
        if self._start:
            del self._buffer[: self._start]
            self._start = 0
        self._buffer += chunk

    def next(self) -> tuple[bytes, bytes] | None:
        """The next whole frame of what was added (None: none yet); BadFrame on a broken stream."""
        buffer, start = self._buffer, self._start
        if len(buffer) - start < HEADER.size:
            return None
        kind, size = HEADER.unpack_from(buffer, start)
        if kind not in self.kinds:
            raise BadFrame(f"a frame of unknown kind {kind!r}")
        if size > (self.control_limit if kind == CONTROL else self.limit):
            raise BadFrame(f"a {kind.decode('latin-1')} frame of {size:,} bytes is over the limit")
        end = start + HEADER.size + size
        if len(buffer) < end:
            return None
        self._start = end
        return kind, bytes(buffer[start + HEADER.size : end])
