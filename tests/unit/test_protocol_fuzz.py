"""Fuzzing LineFramer + decode + SessionModel with random bytes and mutated real-pi streams.

Properties: no exception escapes; the framer splits exactly like a reference LF-only
split (dropping one CR before each LF); every line yields exactly one record, and a
ProtocolError keeps the line's bytes; the session model folds every record (and pi's
exit at the end) and stays consistent.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import LineFramer, ProtocolError, decode
from protocol.wire.client import ChildExited
from protocol.state.session_model import MessageItem, SessionModel
from tests.fixtures.record_streams import stream_lines, stream_paths


def _load() -> list[bytes]:
    lines: list[bytes] = []
    for path in stream_paths():
        recorded = stream_lines(path)
        lines += recorded if len(recorded) < 500 else recorded[:40] + recorded[-20:]
    return lines


LINES = _load()
SMALL_LINES = [line for line in LINES if len(line) <= 2_000]

FUZZ = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TAGS = [
    "text", "image", "thinking", "toolCall", "user", "assistant", "toolResult", "system", "bashExecution", "custom",
    "message", "compaction", "response", "message_update", "message_end", "text_delta", "toolcall_end", "done", "error",
    "extension_ui_request", "select", "setWidget", "get_state", "get_tree", "get_entries", "\u2028", "",
]  # fmt: skip

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(TAGS),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6) | st.sampled_from(TAGS), children, max_size=3),
    max_leaves=8,
)


def reference_split(data: bytes) -> list[bytes]:
    """What strict JSONL framing must produce: LF-only split, one CR before each LF dropped."""
    *lines, rest = data.split(b"\n")
    out = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if rest:
        out.append(rest[:-1] if rest.endswith(b"\r") else rest)
    return out


def frame(data: bytes, cuts: list[int]) -> list[bytes]:
    framer = LineFramer()
    lines: list[bytes] = []
    start = 0
    for cut in sorted(set(cuts)) + [len(data)]:
        lines += framer.feed(data[start:cut])
        start = cut
    rest = framer.flush()
    if rest is not None:
        lines.append(rest)
    return lines


def check_stream(data: bytes, cuts: list[int]) -> None:
    lines = frame(data, cuts)
    assert lines == reference_split(data)
    model = SessionModel()
    for line in lines:
        record = decode(line)  # must not raise
        assert isinstance(record, msgspec.Struct), type(record)
        if isinstance(record, ProtocolError):
            assert record.raw == line and record.error
        model.apply(record)  # must not raise either
    check_model(model)
    model.apply(ChildExited(returncode=-9, stderr_tail="killed"))
    check_model(model)
    assert not model.running


def check_model(model: SessionModel) -> None:
    """The model's items, index and changes agree with each other."""
    changes = model.take_changes()
    keys = [item.key for item in model.items]
    assert len(keys) == len(set(keys)) and all(model.item(key) is item for key, item in zip(keys, model.items))
    assert set(changes.added) <= set(keys)
    for item in model.items:
        if isinstance(item, MessageItem):
            assert all(isinstance(index, int) for index in item.blocks)
            item.ordered_blocks()


def cuts_for(draw: Any, data: bytes) -> list[int]:
    return draw(st.lists(st.integers(0, len(data)), max_size=12))


@FUZZ
@given(st.data())
def test_random_bytes(data: st.DataObject) -> None:
    alphabet = st.sampled_from([b"\n", b"\r", b"{", b"}", b'"', b"\\", b":", b",", b"\xe2\x80\xa8", b"\xff", b"\xc3", b"type", b"response", b"[]", b"0"])
    chunks = data.draw(st.lists(st.binary(max_size=40) | alphabet, max_size=40))
    blob = b"".join(chunks)
    check_stream(blob, cuts_for(data.draw, blob))


def splice(obj: Any, value: Any, rng: random.Random) -> Any:
    """`obj` with one randomly chosen value somewhere inside it replaced by `value`."""
    slots: list[tuple[Any, Any]] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                slots.append((node, key))
                collect(child)
        elif isinstance(node, list):
            for index, child in enumerate(node):
                slots.append((node, index))
                collect(child)

    collect(obj)
    if not slots:
        return value
    container, key = rng.choice(slots)
    container[key] = value
    return obj


def dump(obj: Any, ascii_only: bool) -> bytes:
    text = json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")  # lone surrogates become invalid UTF-8


@st.composite
def mutated_line(draw: Any) -> bytes:
    line = draw(st.sampled_from(SMALL_LINES if draw(st.booleans()) else LINES))
    kind = draw(st.sampled_from(["keep", "truncate", "flip", "splice", "splice", "retag", "insert", "drop_key"]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    if kind == "truncate":
        return line[: draw(st.integers(0, len(line)))]
    if kind == "flip":
        data = bytearray(line)
        for _ in range(draw(st.integers(1, 4))):
            position = rng.randrange(len(data))
            data[position] ^= draw(st.integers(1, 255))
        return bytes(data)
    if kind == "insert":
        position = draw(st.integers(0, len(line)))
        return line[:position] + draw(st.binary(min_size=1, max_size=8)) + line[position:]
    if kind in ("splice", "retag", "drop_key"):
        obj = json.loads(line)
        if kind == "splice":
            obj = splice(obj, draw(JSON_VALUES), rng)
        elif kind == "retag":  # a known tag where another was: the wrong shape for the new kind
            dicts = [node for node in iter_dicts(obj) if {"type", "role", "method"} & node.keys()]
            node = rng.choice(dicts)
            field = rng.choice(sorted({"type", "role", "method"} & node.keys()))
            node[field] = draw(st.sampled_from(TAGS))
        else:
            dicts = [node for node in iter_dicts(obj) if node]
            node = rng.choice(dicts)
            del node[rng.choice(sorted(node))]
        return dump(obj, draw(st.booleans()))
    return line


def iter_dicts(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for child in node.values():
            found += iter_dicts(child)
    elif isinstance(node, list):
        for child in node:
            found += iter_dicts(child)
    return found


@FUZZ
@given(st.data())
def test_mutated_recorded_streams(data: st.DataObject) -> None:
    # dropped, duplicated and reordered lines: any sequence of (mutated) recorded lines
    lines = data.draw(st.lists(mutated_line(), min_size=1, max_size=8))
    ending = data.draw(st.sampled_from([b"\n", b"\r\n"]))
    blob = b"".join(line + ending for line in lines)
    if data.draw(st.booleans()):
        blob = blob[: data.draw(st.integers(0, len(blob)))]  # a stream cut off mid-record
    check_stream(blob, cuts_for(data.draw, blob))


@FUZZ
@given(st.data())
def test_spliced_values_decode_to_one_record_each(data: st.DataObject) -> None:
    line = data.draw(st.sampled_from(SMALL_LINES))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    obj = json.loads(line)
    for _ in range(data.draw(st.integers(1, 3))):
        obj = splice(obj, data.draw(JSON_VALUES), rng)
    raw = dump(obj, data.draw(st.booleans()))
    if b"\n" in raw:  # only an unescaped LF could split it; json.dumps never writes one
        return
    record = decode(raw)
    assert isinstance(record, msgspec.Struct)
    if isinstance(record, ProtocolError):
        assert record.raw == raw


def test_every_recorded_line_survives_every_truncation_point() -> None:
    """Cheap exhaustive check on a few small lines: each prefix decodes to one record."""
    for line in sorted(SMALL_LINES, key=len)[:5] + [line for line in SMALL_LINES if b'"text_delta"' in line][:2]:
        for end in range(len(line) + 1):
            record = decode(line[:end])
            assert isinstance(record, msgspec.Struct)
