"""Recordings of a pideck session (`--record FILE`), for bug reports and demos, and reading
them back (`pideck replay`).

A recording is JSONL: a header `{"pideck_recording": 1, "started": ..., "cwd": ..., "argv": [...]}`,
then one line per line pi wrote on stdout (`{"t": seconds, "in": line}`) and per command
pideck wrote to pi (`{"t": seconds, "out": line}`), and `{"t": ..., "exit": code}` when pi
exited; `t` counts from the start of the recording. A line that is not UTF-8 is kept as
base64 (`"in64"`). Secrets are redacted as in the protocol log (protocol.wire.redact) before
anything is written. The file is created with mode 0600 and never replaces another: an
existing FILE leaves it alone and records to FILE-2 (-3, ...) instead.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from protocol.numbers import parse_float, parse_int
from protocol.regular_file import open_regular
from protocol.wire.redact import Redactor

HEADER_KEY = "pideck_recording"
VERSION = 1
MAX_TRIES = 1000
MAX_AT = 10 * 366 * 24 * 3600.0  # seconds: a step's time `t` past this is not a recording's
MAX_STEP = 2 * 512 * 1024 * 1024  # bytes of a step's line: pi's longest line (512 MiB), JSON-escaped or base64
SHOWN = 65536  # bytes of a skipped line kept to say what it was


class Recorder:
    def __init__(self, handle: BinaryIO, path: Path, redactor: Redactor, clock: Any = time.monotonic) -> None:
        self.path = path
        self._handle = handle
        self._redactor = redactor
        self._clock = clock
        self._start = clock()
        self.failure: str | None = None  # why writing stopped, if it did

    @classmethod
    def create(cls, path: Path, argv: Sequence[str], redactor: Redactor, cwd: str = "") -> Recorder:
        """Create the recording at `path` (or the first free `path-N`), its header written.
        OSError when it cannot be created."""
        for attempt in range(1, MAX_TRIES + 1):
            target = path if attempt == 1 else path.with_name(f"{path.stem}-{attempt}{path.suffix}")
            try:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            recorder = cls(os.fdopen(fd, "wb"), target, redactor)
            recorder._write({HEADER_KEY: VERSION, "started": datetime.now(UTC).isoformat(timespec="milliseconds"),
                             "cwd": cwd, "argv": [redactor.text(arg) for arg in argv]})
            return recorder
        raise FileExistsError(f"{path} and {MAX_TRIES - 1} numbered names after it exist")

    def _write(self, entry: dict[str, Any]) -> None:
        if self.failure is not None:
            return
        try:
            self._handle.write(msgspec.json.encode(entry) + b"\n")
            self._handle.flush()  # a crash keeps what came before it: that is what a bug report needs
        except (OSError, ValueError) as exc:
            self.failure = str(exc)

    def _line(self, key: str, line: bytes) -> None:
        line = self._redactor.bytes(line)
        stamp = round(self._clock() - self._start, 4)
        try:
            self._write({"t": stamp, key: line.decode("utf-8")})
        except UnicodeDecodeError:
            self._write({"t": stamp, f"{key}64": base64.b64encode(line).decode("ascii")})

    def read(self, line: bytes) -> None:
        """A line pi wrote on stdout (without its LF)."""
        self._line("in", line)

    def sent(self, data: bytes) -> None:
        """A record pideck wrote to pi's stdin."""
        self._line("out", data.rstrip(b"\n"))

    def exited(self, code: int | None) -> None:
        self._write({"t": round(self._clock() - self._start, 4), "exit": code})

    def close(self) -> None:
        try:
            self._handle.close()
        except OSError:
            pass


@dataclass(frozen=True)
class Step:
    """One recorded line: `at` seconds from the start, pi's line (`read`) or pideck's (`sent`)."""

    at: float
    read: bytes | None = None
    sent: bytes | None = None
    exit: int | None = None
    exited: bool = False


@dataclass(frozen=True)
class Skipped:
    """A line of the recording that is no step pideck can play (its start, and why): passed over."""

    line: bytes
    reason: str


class NotARecording(Exception):
    pass


class _Entry(msgspec.Struct):
    """A step's line; its numbers kept as written, for protocol.numbers to read."""

    t: msgspec.Raw = msgspec.Raw(b"0")
    read: str | None = msgspec.field(default=None, name="in")
    read64: str | None = msgspec.field(default=None, name="in64")
    out: str | None = None
    exit: msgspec.Raw = msgspec.Raw(b"")  # b"": no exit; b"null": pi exited with no code


_entry = msgspec.json.Decoder(_Entry)


def read_recording(path: Path) -> tuple[dict[str, Any], Iterator[Step | Skipped]]:
    """The header and the steps of a recording, read as they are iterated. NotARecording when the
    file does not start with a recording's header; a line after it that is no step (not JSON, a
    time or an exit code out of range, longer than MAX_STEP) comes as a `Skipped`."""
    handle = open_regular(path)
    first = handle.readline(1 << 20)
    try:
        header = msgspec.json.decode(first)
    except msgspec.DecodeError:
        header = None
    if not isinstance(header, dict) or HEADER_KEY not in header:
        handle.close()
        raise NotARecording(f"{path} is not a pideck recording (made with --record FILE)")
    return header, _steps(handle)


def _steps(handle: BinaryIO) -> Iterator[Step | Skipped]:
    with handle:
        while raw := handle.readline(MAX_STEP + 1):
            if len(raw) > MAX_STEP:
                while (rest := handle.readline(MAX_STEP)) and not rest.endswith(b"\n"):
                    pass  # the rest of a line too long to play, read and let go a piece at a time
                yield Skipped(raw[:SHOWN], f"a line longer than {MAX_STEP:,} bytes")
            elif raw.strip():
                yield _step(raw.rstrip(b"\r\n"))


def _step(raw: bytes) -> Step | Skipped:
    try:
        entry = _entry.decode(raw)
    except (msgspec.DecodeError, RecursionError) as exc:
        return Skipped(raw[:SHOWN], f"not a step: {exc}")
    at = parse_float(bytes(entry.t).decode("utf-8", "replace"), low=0.0, high=MAX_AT, exponent=True)
    if at is None:
        return Skipped(raw[:SHOWN], f"its time `t` is not a number of seconds from 0 to {MAX_AT:,.0f}")
    if entry.read is not None:
        return Step(at, read=entry.read.encode())
    if entry.read64 is not None:
        try:
            return Step(at, read=base64.b64decode(entry.read64, validate=True))
        except ValueError:
            return Skipped(raw[:SHOWN], "its `in64` is not base64")
    if entry.out is not None:
        return Step(at, sent=entry.out.encode())
    if entry.exit:
        code = bytes(entry.exit).decode("utf-8", "replace")
        exit_code = None if code == "null" else parse_int(code, low=-255, high=255, signed=True)
        if exit_code is None and code != "null":
            return Skipped(raw[:SHOWN], "its exit code is not a number from -255 to 255")
        return Step(at, exit=exit_code, exited=True)
    return Skipped(raw[:SHOWN], "no `in`, `in64`, `out` or `exit`: not a step of this version")
