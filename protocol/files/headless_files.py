"""pi's headless output read without pi, for `pideck view`: a JSON-mode stream
(`pi -p --mode json "task"`, pi docs/json.md) or a session file (docs/session-format.md).

Both start with a session header; what follows tells them apart: session events
(`agent_start`, `message_start`...) or session entries (`message`, `model_change`...,
each with an `id`). A file is read whole through a memory map, line by line (LF only,
as pi frames it), and bounded: a line longer than MAX_LINE is counted and passed over.

A finished JSON-mode file is folded as the live stream would be, less what later records
replace and are never looked at: the deltas of a message that ended (its `message_end`
holds it whole), all but the latest partial result of a tool (`tool_execution_update`
replaces it, and `tool_execution_end` all of them) and `turn_end`, whose copies of the
turn's messages nothing reads; `agent_end` is read for its `willRetry` only. Those lines
are skipped by their first bytes, without being parsed, so a file of hundreds of MB of
streamed output opens about as fast as a session file of its size. A message still open
at the end (a run cut short) keeps its deltas.

A session file's entries are read in two passes: each line's type, id and parent first,
then only the entries of the active branch are decoded (session_context).
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from protocol.wire.codec import KNOWN_TYPES, dec_hook, decode
from protocol.wire.collector import collector_paused
from protocol.wire.entries import EntryUnion, SessionHeader
from protocol.wire.events import AgentEnd, MessageEnd, ToolExecutionEnd
from protocol.files.config_files import json_kind
from protocol.regular_file import open_regular
from protocol.files.session_context import branch_ids, branch_messages, branch_settings, session_name

JSON_MODE = "json"
SESSION_FILE = "session"
MAX_LINE = 512 * 1024 * 1024  # as the RPC client's limit
RECORDING_KEY = b'"pideck_recording"'

ENTRY_TYPES = frozenset(cls.__struct_config__.tag for cls in EntryUnion.__args__)  # type: ignore[attr-defined]
EVENT_TYPES = KNOWN_TYPES - {"response", "extension_ui_request"}

_PREFIX_UPDATE = b'{"type":"message_update"'
_PREFIX_TOOL_UPDATE = b'{"type":"tool_execution_update"'
_PREFIX_TURN_END = b'{"type":"turn_end"'
_PREFIX_AGENT_END = b'{"type":"agent_end"'


class NotPiOutput(Exception):
    """The file is not a JSON-mode stream or session file of pi's; the message says what it is."""


class _Head(msgspec.Struct, rename="camel"):
    type: Any = None
    id: Any = None
    parent_id: Any = None


class _AgentEndHead(msgspec.Struct, rename="camel"):
    will_retry: bool = False


class _ToolHead(msgspec.Struct, rename="camel"):
    tool_call_id: Any = None


_head = msgspec.json.Decoder(_Head)
_agent_end = msgspec.json.Decoder(_AgentEndHead)
_tool_head = msgspec.json.Decoder(_ToolHead)
_header = msgspec.json.Decoder(SessionHeader)
_entry = msgspec.json.Decoder(EntryUnion, dec_hook=dec_hook)


def head_type(line: bytes) -> str | None:
    """The `type` of one JSON object line, or None when it is not an object with a string type."""
    try:
        value = _head.decode(line).type
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def read_header(line: bytes) -> SessionHeader | None:
    try:
        return _header.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def _not_a_record(line: bytes) -> str:
    """What a line that is not a record of pi's is instead."""
    try:
        value = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return "is not JSON"
    if not isinstance(value, dict):
        return f"is a JSON {json_kind(value)}, not an object"
    return 'is a JSON object without a string "type"'


def kind_of(lines: list[bytes]) -> str:
    """JSON_MODE or SESSION_FILE from a file's first few non-blank lines; NotPiOutput if neither."""
    if not lines:
        raise NotPiOutput("the file is empty: a pi JSON-mode run or session file starts with a session header")
    first = lines[0]
    if RECORDING_KEY in first[:200]:
        raise NotPiOutput("this is a pideck recording (--record): play it with `pideck replay FILE`")
    types = [head_type(line) for line in lines]
    if types[0] == "session":
        following = next((kind for kind in types[1:] if kind is not None), None)
        if following in ENTRY_TYPES:
            return SESSION_FILE
        return JSON_MODE  # events, or a header alone (a run that wrote nothing more)
    if types[0] in EVENT_TYPES:
        return JSON_MODE  # a stream whose header was cut off (or pi's RPC events)
    if types[0] is None:
        shown = first[:60].decode("utf-8", "replace")
        raise NotPiOutput(f"the first line {_not_a_record(first)} ({shown!r}): not pi's JSON-mode output or a session "
                          "file (both start with a session header)")
    raise NotPiOutput(f"the first record is of type {types[0]!r}: not pi's JSON-mode output or a session file "
                      "(both start with a session header)")


def lines_of(data: bytes | mmap.mmap, start: int = 0, *, cancelled: Callable[[], bool] = lambda: False,
             ) -> Iterator[tuple[int, bytes]]:
    """(offset after the line, line) for each LF-terminated or final line of `data`, without its
    line end (a CR before the LF is dropped); blank lines and lines longer than MAX_LINE are left
    out (the latter yielded as b"" so they can be counted)."""
    size = len(data)
    position = start
    while position < size and not cancelled():
        end = data.find(b"\n", position)
        stop = size if end < 0 else end
        after = size if end < 0 else end + 1
        if stop - position > MAX_LINE:
            yield after, b""
        else:
            line = data[position:stop]
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():
                yield after, line
        position = after


@dataclass
class Loaded:
    """What a file holds for the view."""

    kind: str
    header: SessionHeader | None
    records: list[Any] = field(default_factory=list)  # JSON mode: the records to fold, in order
    messages: list[Any] = field(default_factory=list)  # session file: the active branch's messages
    branch: list[Any] = field(default_factory=list)  # session file: the active branch's entries, root first
    provider: str | None = None  # session file: the model in force at the branch's end
    model: str | None = None
    thinking_level: str | None = None
    name: str | None = None
    size: int = 0
    end: int = 0  # offset after the last complete line read (a growing file is followed from there)
    partial: bool = False  # the last line had no LF (left out): perhaps still being written
    skipped: int = 0  # lines too long, or unreadable entries of the branch
    lines: int = 0


class Progress:
    """Bytes read so far of a file being loaded, for the status line; `cancel()` stops the load."""

    def __init__(self) -> None:
        self.read = 0
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def load_file(path: Path, progress: Progress | None = None) -> Loaded:
    """Read a whole JSON-mode file or session file (blocking: run it off the UI thread).
    OSError when it cannot be read, NotPiOutput when it is not pi's."""
    progress = progress or Progress()
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            raise NotPiOutput("the file is empty: a pi JSON-mode run or session file starts with a session header")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data, collector_paused():
            first: list[bytes] = []
            for _, line in lines_of(data):
                first.append(line)
                if len(first) >= 4:
                    break
            kind = kind_of(first)
            loaded = (_load_json if kind == JSON_MODE else _load_session)(data, progress)
    loaded.size = size
    return loaded


class RunFolder:
    """The records of a JSON-mode stream worth folding, for a stream read to its end (or as far
    as it goes): `add(line)` each line, then `records()`."""

    def __init__(self) -> None:
        self.header: SessionHeader | None = None
        self._records: list[Any] = []  # a record, a line to decode at the end, or None (dropped)
        self._deltas: list[int] = []  # indexes of the open message's deltas
        self._tool_updates: dict[Any, int] = {}  # toolCallId -> index of its latest partial result
        self.lines = 0

    def add(self, line: bytes) -> None:
        self.lines += 1
        records = self._records
        if line.startswith(_PREFIX_UPDATE):
            self._deltas.append(len(records))
            records.append(line)
            return
        if line.startswith(_PREFIX_TURN_END):
            return
        if line.startswith(_PREFIX_TOOL_UPDATE):
            try:
                call = _tool_head.decode(line).tool_call_id
            except (msgspec.DecodeError, RecursionError):
                call = None
            if call is not None:
                earlier = self._tool_updates.get(call)
                if earlier is not None:
                    records[earlier] = None
                self._tool_updates[call] = len(records)
            records.append(line)
            return
        if line.startswith(_PREFIX_AGENT_END):
            try:
                records.append(AgentEnd(will_retry=_agent_end.decode(line).will_retry))
            except (msgspec.DecodeError, RecursionError):
                records.append(decode(line))
            return
        if self.header is None and not records and (header := read_header(line)) is not None:
            self.header = header
            return
        record = decode(line)
        if isinstance(record, MessageEnd):
            for index in self._deltas:
                records[index] = None
            self._deltas.clear()
        elif isinstance(record, ToolExecutionEnd):
            earlier = self._tool_updates.pop(record.tool_call_id, None)
            if earlier is not None:
                records[earlier] = None
        records.append(record)

    def records(self) -> list[Any]:
        return [decode(item) if type(item) is bytes else item for item in self._records if item is not None]


def _load_json(data: mmap.mmap, progress: Progress) -> Loaded:
    """The records of a JSON-mode file up to its last LF: a last line without one is pi still
    writing it (it is read when it is complete), or a run cut short (then it is lost anyway)."""
    folder = RunFolder()
    size = len(data)
    partial = size > 0 and data[size - 1 : size] != b"\n"
    complete = data.rfind(b"\n") + 1 if partial else size
    end = skipped = 0
    for after, line in lines_of(data, cancelled=lambda: progress.cancelled):
        if after > complete:
            break
        end = progress.read = after
        if not line:
            skipped += 1
            continue
        folder.add(line)
    return Loaded(JSON_MODE, folder.header, records=folder.records(), end=end, partial=partial, skipped=skipped,
                  lines=folder.lines)


def _load_session(data: mmap.mmap, progress: Progress) -> Loaded:
    header: SessionHeader | None = None
    spans: dict[str, tuple[int, int]] = {}  # id -> where its (last) entry is
    parents: dict[str, str | None] = {}
    infos: list[tuple[int, int]] = []
    leaf: str | None = None
    skipped = lines = 0
    position = 0
    for end, line in lines_of(data, cancelled=lambda: progress.cancelled):
        start, position = position, end
        progress.read = end
        lines += 1
        if not line:
            skipped += 1
            continue
        if header is None:
            header = read_header(line)
            if header is not None:
                continue
        try:
            head = _head.decode(line)
        except (msgspec.DecodeError, RecursionError):
            skipped += 1  # not JSON (a last line still being written, as pi passes over it)
            continue
        if head.type == "session_info":
            infos.append((start, end))
        if not isinstance(head.id, str):
            continue
        spans[head.id] = (start, end)
        parents[head.id] = head.parent_id if isinstance(head.parent_id, str) else None
        leaf = head.id
    path: list[Any] = []
    for entry_id in branch_ids(parents, leaf):
        start, end = spans[entry_id]
        try:
            path.append(_entry.decode(data[start:end].rstrip(b"\r\n")))
        except (msgspec.DecodeError, RecursionError):
            skipped += 1
    named: list[Any] = []
    for start, end in infos[-1:]:
        try:
            named.append(_entry.decode(data[start:end].rstrip(b"\r\n")))
        except (msgspec.DecodeError, RecursionError):
            pass
    provider, model, thinking = branch_settings(path)
    return Loaded(SESSION_FILE, header, messages=branch_messages(path), branch=path, provider=provider, model=model,
                  thinking_level=thinking, name=session_name(named), end=position, skipped=skipped, lines=lines)
