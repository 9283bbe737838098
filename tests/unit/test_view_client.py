"""The client of `pideck view` (protocol/files/view_client.py): a stream and a growing file are
read alike, each line bounded."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from protocol.files import view_client
from protocol.files.view_client import StreamEnded, ViewClient
from protocol.wire.codec import ProtocolError
from protocol.wire.events import AgentSettled, AgentStart

CAP = 4096  # MAX_LINE for these tests (512 MiB would take too long to write)


async def until(check: Any, what: str) -> None:
    async with asyncio.timeout(10):
        while not check():
            await asyncio.sleep(0.01)
    assert check(), what


def records_of(client: ViewClient) -> list[Any]:
    seen: list[Any] = []
    client.add_listener(seen.append)
    return seen


async def feed_an_over_long_line(client: ViewClient, write: Any, seen: list[Any]) -> None:
    """A line of 3 caps then an agent_settled: the long one dropped and counted once, its rest
    let go as it comes (never held), the next line read."""
    framer = client._stdout_framer
    most = 0
    write(b'{"type":"agent_start"}\n' + b'{"type":"message_update","x":"')
    for _ in range(12):
        write(b"y" * (CAP // 4))
        await asyncio.sleep(0.02)
        most = max(most, framer.pending)
    await until(lambda: client.bad_records == 1, "the long line counted")
    for _ in range(4):
        write(b"y" * (CAP // 2))
        await asyncio.sleep(0.02)
        most = max(most, framer.pending)
    write(b'"}\n{"type":"agent_settled","aborted":false}\n')
    await until(lambda: any(isinstance(record, AgentSettled) for record in seen), "the line after it")
    errors = [record for record in seen if isinstance(record, ProtocolError)]
    assert len(errors) == 1 and "dropped" in errors[0].error and client.bad_records == 1
    assert isinstance(seen[0], AgentStart) and most <= CAP + view_client.READ_CHUNK


async def test_a_followed_file_drops_a_line_over_the_cap_as_a_pipe_does(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view_client, "MAX_LINE", CAP)
    monkeypatch.setattr(view_client, "FILE_POLL", 0.01)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"x","cwd":"/"}\n')
    client = ViewClient(str(path))
    seen = records_of(client)
    client.follow_file(str(path), path.stat().st_size)
    with path.open("ab", buffering=0) as out:
        await feed_an_over_long_line(client, out.write, seen)
    await until(lambda: client.ended is not None, "the run settled")
    assert client.ended == StreamEnded(settled=True)
    await client.close()


async def test_a_pipe_drops_a_line_over_the_cap_and_lets_its_rest_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view_client, "MAX_LINE", CAP)
    read_end, write_end = os.pipe()
    client = ViewClient("stdin", fd=read_end)
    seen = records_of(client)
    await client.start()
    await feed_an_over_long_line(client, lambda data: os.write(write_end, data), seen)
    os.close(write_end)
    await until(lambda: client.ended is not None, "the end of the stream")
    await client.close()
