"""LineFramer: strict LF-only JSONL framing (pi docs/rpc.md "Framing")."""

from __future__ import annotations

import json

import pytest

from protocol import LineFramer, decode
from protocol.wire.events import MessageUpdate, TextDelta

LS, PS = "\u2028", "\u2029"


def frame(*chunks: bytes) -> tuple[list[bytes], bytes | None]:
    framer = LineFramer()
    lines = [line for chunk in chunks for line in framer.feed(chunk)]
    return lines, framer.flush()


def byte_by_byte(data: bytes) -> tuple[list[bytes], bytes | None]:
    return frame(*(data[i : i + 1] for i in range(len(data))))


def test_splits_on_lf_only() -> None:
    lines, rest = frame(b'{"a":1}\n{"b":2}\n')
    assert lines == [b'{"a":1}', b'{"b":2}']
    assert rest is None


def test_unicode_separators_inside_strings_are_not_boundaries() -> None:
    record = json.dumps({"type": "x", "text": f"one{LS}two{PS}three\u0085four\x0bfive\x0csix"}, ensure_ascii=False)
    data = record.encode() + b"\n" + record.encode() + b"\n"
    assert LS.encode() in data and PS.encode() in data and b"\xc2\x85" in data
    lines, rest = frame(data)
    assert lines == [record.encode(), record.encode()]
    assert rest is None
    assert json.loads(lines[0])["text"] == f"one{LS}two{PS}three\u0085four\x0bfive\x0csix"


def test_crlf_is_stripped() -> None:
    lines, _ = frame(b'{"a":1}\r\n{"b":2}\r\n{"c":3}\n')
    assert lines == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


def test_crlf_split_across_chunks_is_stripped() -> None:
    lines, _ = frame(b'{"a":1}\r', b'\n{"b":2}\r', b"\n")
    assert lines == [b'{"a":1}', b'{"b":2}']


def test_lone_cr_inside_a_line_is_kept() -> None:
    lines, _ = frame(b'{"a":"x"}\r{"b":1}\n', b"tail\rmore\n")
    assert lines == [b'{"a":"x"}\r{"b":1}', b"tail\rmore"]


def test_only_one_cr_before_lf_is_stripped() -> None:
    lines, _ = frame(b"abc\r\r\n")
    assert lines == [b"abc\r"]


def test_empty_lines_are_returned_empty() -> None:
    lines, rest = frame(b"\n\n{}\n\r\n\n")
    assert lines == [b"", b"", b"{}", b"", b""]
    assert rest is None


def test_partial_chunks_are_buffered() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"type":"agent') == []
    assert framer.pending == len(b'{"type":"agent')
    assert framer.feed(b'_start"}') == []
    assert framer.feed(b'\n{"type":"turn_start"}\n{"par') == [b'{"type":"agent_start"}', b'{"type":"turn_start"}']
    assert framer.pending == len(b'{"par')
    assert framer.flush() == b'{"par'
    assert framer.pending == 0
    assert framer.flush() is None


def test_flush_of_unterminated_last_line() -> None:
    assert frame(b'{"a":1}\n{"b":2}') == ([b'{"a":1}'], b'{"b":2}')
    assert frame(b'{"b":2}\r') == ([], b'{"b":2}')  # a CR at the end of the rest is dropped
    assert frame(b"") == ([], None)
    assert frame(b"x\n") == ([b"x"], None)


def test_framer_is_reusable_after_flush() -> None:
    framer = LineFramer()
    framer.feed(b"abc")
    assert framer.flush() == b"abc"
    assert framer.feed(b"def\n") == [b"def"]


SAMPLE = (
    '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,'
    f'"delta":"h\u00e9llo {LS} w\u00f6rld {PS} \u4e2d\u6587 \U0001f680 caf\u00e9"}}}}\r\n'
    '{"type":"agent_start"}\n\n'
    '{"type":"x","s":"a\\rb\rc"}\n'
    "unterminated \U0001f680"
).encode()


def test_byte_by_byte_equals_one_feed() -> None:
    whole = frame(SAMPLE)
    assert byte_by_byte(SAMPLE) == whole
    assert whole[0][0].endswith(b"caf\xc3\xa9\"}}")
    assert whole[1] == "unterminated \U0001f680".encode()


@pytest.mark.parametrize("size", [2, 3, 5, 7, 64])
def test_any_chunk_size_equals_one_feed(size: int) -> None:
    chunks = [SAMPLE[i : i + size] for i in range(0, len(SAMPLE), size)]
    assert frame(*chunks) == frame(SAMPLE)


def test_multibyte_utf8_split_across_chunks() -> None:
    text = f"\u00e9{LS}\u4e2d\U0001f680{PS}"
    record = json.dumps({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": text}}, ensure_ascii=False).encode()
    data = record + b"\n"
    for cut in range(1, len(data)):  # every boundary, including inside each multibyte sequence
        lines, rest = frame(data[:cut], data[cut:])
        assert lines == [record], cut
        assert rest is None
        decoded = decode(lines[0])
        assert isinstance(decoded, MessageUpdate)
        assert isinstance(decoded.assistant_message_event, TextDelta)
        assert decoded.assistant_message_event.delta == text


# --- very long lines ------------------------------------------------------------------------

MiB = 1 << 20


class CountingBuffer(bytearray):
    """The framer's buffer, counting `find` calls and the bytes each one scans."""

    finds = 0
    scanned = 0

    def find(self, sub, start=0, end=None):  # type: ignore[no-untyped-def, override]
        found = super().find(sub, start) if end is None else super().find(sub, start, end)
        self.finds += 1
        self.scanned += (found + 1 if found != -1 else len(self)) - start
        return found


def counting_framer() -> tuple[LineFramer, CountingBuffer]:
    framer = LineFramer()
    if not isinstance(getattr(framer, "_buffer", None), bytearray):  # pragma: no cover - implementation changed
        pytest.skip("LineFramer no longer keeps a bytearray `_buffer` to instrument")
    buffer = CountingBuffer()
    framer._buffer = buffer  # type: ignore[attr-defined]
    return framer, buffer


HEAD = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"'
TAIL = b'"}}'


def feed_line(length: int, chunk_size: int) -> tuple[list[bytes], CountingBuffer, int]:
    """Feed one `length`-byte record plus LF (and a short record after it) in `chunk_size` chunks."""
    head, tail = HEAD, TAIL
    body = length - len(head) - len(tail)
    framer, buffer = counting_framer()
    lines: list[bytes] = []
    chunks = 0
    lines += framer.feed(head)
    block = b"x" * chunk_size
    remaining = body
    while remaining > 0:
        piece = block if remaining >= chunk_size else block[:remaining]
        lines += framer.feed(piece)
        remaining -= len(piece)
        chunks += 1
    lines += framer.feed(tail + b"\n" + b'{"type":"agent_start"}\n')
    assert framer.flush() is None
    return lines, buffer, chunks


@pytest.mark.parametrize("length", [64 * MiB, 100_000_000], ids=["64MiB", "100MB"])
def test_huge_line_in_1mib_chunks_arrives_whole_and_is_scanned_once(length: int) -> None:
    lines, buffer, chunks = feed_line(length, MiB)
    assert len(lines) == 2
    assert len(lines[0]) == length
    assert lines[0].startswith(b'{"type":"message_update"') and lines[0].endswith(b'xxx"}}')
    assert lines[0].count(b"x") >= length - 200
    assert lines[1] == b'{"type":"agent_start"}'
    # each byte is scanned for LF once, however many chunks the line came in
    assert buffer.scanned <= length + 64, (buffer.scanned, length)
    # one failed search per chunk, one hit per line, nothing more
    assert buffer.finds <= chunks + 2 + 3
    if length == 64 * MiB:
        record = decode(lines[0])
        assert isinstance(record, MessageUpdate)
        delta_length = len(record.assistant_message_event.delta)  # type: ignore[union-attr]
        assert delta_length == length - len(HEAD) - len(TAIL)


def test_work_per_byte_does_not_grow_with_the_number_of_chunks() -> None:
    """Scanning cost is linear: 4x the chunks (or 4x the line) costs ~1x per byte, not 4x."""
    per_byte = {}
    for length, chunk in [(4 * MiB, MiB), (4 * MiB, MiB // 4), (16 * MiB, MiB // 4), (16 * MiB, 4096)]:
        _, buffer, chunks = feed_line(length, chunk)
        per_byte[(length, chunks)] = buffer.scanned / length
    assert all(0.99 < ratio < 1.01 for ratio in per_byte.values()), per_byte


def test_many_small_lines_in_one_chunk_are_each_scanned_once() -> None:
    framer, buffer = counting_framer()
    data = b'{"type":"turn_start"}\n' * 10_000
    lines = framer.feed(data)
    assert len(lines) == 10_000
    assert buffer.scanned == len(data)
    assert buffer.finds == 10_001


def test_drop_lets_go_of_the_line_held_and_keeps_its_start() -> None:
    framer = LineFramer()
    assert framer.feed(b"done\nabcdefgh") == [b"done"]
    assert framer.drop(3) == b"abc" and framer.pending == 0
    assert framer.feed(b"next\n") == [b"next"]


def test_a_line_cut_is_let_go_up_to_its_lf_and_the_next_read_whole() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"big":"abcdef') == []
    assert framer.cut(4) == b'{"bi' and framer.pending == 0
    assert framer.feed(b"ghij") == [] and framer.pending == 0, "the rest of it is not kept"
    assert framer.feed(b'klm"}\n{"next":1}\n{"la') == [b'{"next":1}']
    assert framer.flush() == b'{"la'
