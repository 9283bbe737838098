"""Opening a long session: pi's get_messages answer (one line of many MB) is read with one
copy, decoded straight into typed messages without the collector walking them, and not
kept once read; the status line says how much of it has come while it loads, and Ctrl+C
still quits meanwhile."""

from __future__ import annotations

import asyncio
import gc
import json
import re
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from tests.load import out_of_time
from tests.pi_harness import SIZE, Fake, ready, wait_until

from protocol.wire.local_link import local_client
from protocol.wire.codec import BIG_LINE, ProtocolError, decode
from protocol.wire.framing import LineFramer
from protocol.wire.messages import AssistantMessage, ToolResultMessage, UserMessage
from protocol.wire.responses import MessageList, Response
from protocol.state.session_model import SessionModel
from widgets.panes.side import StatusLine

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def session_messages(turns: int, output: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for turn in range(turns):
        call = f"call_{turn}"
        messages += [
            {"role": "user", "content": [{"type": "text", "text": f"Question {turn} — why?"}], "timestamp": turn},
            {"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": "ls"}}],
             "usage": USAGE, "stopReason": "toolUse", "timestamp": turn},
            {"role": "toolResult", "toolCallId": call, "toolName": "bash", "isError": False, "timestamp": turn,
             "content": [{"type": "text", "text": f"output {turn} " + "x" * output}]},
        ]
    return messages


def answer_line(messages: list[dict[str, Any]]) -> bytes:
    response = {"id": "pideck-2", "type": "response", "command": "get_messages", "success": True,
                "data": {"messages": messages}}
    return json.dumps(response, ensure_ascii=False).encode()


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generations of the garbage collections that start while the test runs."""
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    yield started
    gc.callbacks.remove(note)


def test_a_long_answer_is_typed_as_it_is_read_with_the_collector_paused(
    collections: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    line = answer_line(session_messages(3000, 200))
    assert len(line) > BIG_LINE
    converted: list[Any] = []
    convert = msgspec.convert

    def spy(obj: Any, *args: Any, **kwargs: Any) -> Any:
        converted.append(obj)
        return convert(obj, *args, **kwargs)

    monkeypatch.setattr(msgspec, "convert", spy)
    gc.collect()
    collections.clear()
    record = decode(line)
    assert collections in ([], [0]), "no collection walks the answer (but the young one as the collector resumes)"
    assert not any(isinstance(obj, dict) and "messages" in obj for obj in converted), "not built as dicts first"
    assert isinstance(record, Response) and record.id == "pideck-2" and record.data_error is None
    assert isinstance(record.data, MessageList) and len(record.data.messages) == 9000
    user, call, result = record.data.messages[:3]
    assert isinstance(user, UserMessage) and user.content[0].text == "Question 0 — why?"
    assert isinstance(call, AssistantMessage) and call.content[0].arguments == {"command": "ls"}
    assert isinstance(result, ToolResultMessage) and result.content[0].text.startswith("output 0 x")
    assert gc.isenabled()

    model = SessionModel()
    collections.clear()
    model.load_messages(record.data.messages)
    assert collections in ([], [0]) and len(model.items) == 9000 and len(model.tools) == 3000
    assert gc.isenabled()


def test_a_long_answer_that_does_not_fit_is_decoded_as_before() -> None:
    messages = session_messages(2000, 600)
    messages[5] = {"role": "mystery", "content": "kept"}
    messages[7]["content"] = 42  # not a list of blocks
    record = decode(answer_line(messages))
    assert record.data_error is None and len(record.data.messages) == 6000
    assert [type(message).__name__ for message in record.data.messages[4:9]] == [
        "AssistantMessage", "UnknownMessage", "UserMessage", "UnknownMessage", "ToolResultMessage"]
    pad = "y" * BIG_LINE
    wrong = {"id": "x", "type": "response", "command": "get_messages", "success": True, "data": {"messages": 5, "pad": pad}}
    record = decode(json.dumps(wrong).encode())
    assert isinstance(record, Response) and record.data_error is not None and "messages" in record.data_error
    failed = {"type": "response", "command": "get_messages", "success": False, "error": "no", "data": {"pad": pad}}
    assert decode(json.dumps(failed).encode()).data == {"pad": pad}  # a failure's data is left as pi sent it


def test_a_long_line_is_checked_for_utf8_a_slice_at_a_time() -> None:
    line = answer_line(session_messages(1000, 5000))
    assert len(line) > 4 * BIG_LINE and not line.isascii()
    tracemalloc.start()
    try:
        record = decode(line)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(record, Response) and len(record.data.messages) == 3000
    assert peak < 2 * len(line), "no whole-line copy as text (which takes 2 bytes a character here)"
    bad = line[:-1] + b',"note":"\xff"}'  # in a field the decoder skips
    assert isinstance(decode(bad), ProtocolError) and "not UTF-8" in decode(bad).error


def test_a_long_line_is_copied_once() -> None:
    line = b'{"type":"agent_start","pad":"' + b"x" * (20 * 1024 * 1024) + b'"}'
    framer = LineFramer()
    framer.feed(line[: len(line) // 2])
    rest = line[len(line) // 2 :] + b"\n"
    tracemalloc.start()
    try:
        (read,) = framer.feed(rest)  # the buffer grows to the whole line, then the line is copied out
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read == line
    assert peak < 2.5 * len(line), f"peak {peak:,} for a line of {len(line):,} bytes"


async def test_the_status_line_says_how_much_of_the_session_has_come(tmp_path: Path) -> None:
    messages = session_messages(30, 100_000)  # 3 MB
    (tmp_path / "messages.json").write_text(json.dumps(messages))
    fake = Fake(tmp_path, "--messages", str(tmp_path / "messages.json"), "--hold-messages")
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        status = app.query_one(StatusLine)
        loading = re.compile(r"loading session… (\d+) MB")
        await wait_until(pilot, lambda: loading.search(str(status.render())), timeout=60, what="the loading note")
        assert int(loading.search(str(status.render())).group(1)) >= 1
        assert not app.desk.current.pi.ready and not app.desk.current.pi.model.items
        fake.inject("#fake:release-messages")
        await ready(pilot, fake)
        assert len(app.desk.current.pi.model.items) == 90
        await wait_until(pilot, lambda: "ready" in str(status.render()), what="ready")
        assert "loading" not in str(status.render())


async def test_the_reader_keeps_no_long_line_while_it_waits_for_the_next() -> None:
    child = ('import sys; sys.stdout.buffer.write(b\'{"type":"agent_start","pad":"\' + b"x" * 5_000_000 + b\'"}\\n\'); '
             "sys.stdout.flush(); sys.stdin.read()")
    client = local_client([sys.executable, "-c", child])
    await client.start()
    try:
        started = time.monotonic()
        while client.records_read < 1:
            assert not out_of_time(started, 60), "the long line was never read"
            await asyncio.sleep(0.01)
        reader = next(task for task in client._tasks if task.get_name() == "pi-stdout")
        frame = reader.get_coro().cr_frame
        held = [name for name, value in frame.f_locals.items() if isinstance(value, bytes) and len(value) > BIG_LINE]
        assert held == []
    finally:
        await client.close(grace=1.0)


async def test_ctrl_c_quits_while_a_session_loads(tmp_path: Path) -> None:
    (tmp_path / "messages.json").write_text(json.dumps(session_messages(30, 100_000)))
    fake = Fake(tmp_path, "--messages", str(tmp_path / "messages.json"), "--hold-messages")
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: "loading session" in str(status.render()), timeout=60, what="loading")
        await pilot.press("ctrl+c", "ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, timeout=30, what="the app quit")
