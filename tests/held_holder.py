"""A holder (protocol/hold/holder.py) served in the test's own loop, in a holder folder of the
test's own: windows (held clients with `env` as their `holder_env`) reach it as they reach
the user's, and a test can look into it (its pis, its log) or patch what it runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from protocol.hold import frames
from protocol.hold.holder import Holder
from protocol.hold.listen import take
from protocol.hold.place import SOCKET_NAME, hold_dir


class InLoopHolder:
    def __init__(self, env: dict[str, str], holder: Holder, log: list[str]) -> None:
        self.env = env
        self.holder = holder
        self.log = log


@contextlib.asynccontextmanager
async def holder_in_loop(runtime: Path) -> AsyncIterator[InLoopHolder]:
    """Serve a holder on `runtime`'s holder folder until the block ends; its pis closed then."""
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    listening = take(folder)
    assert listening is not None
    log: list[str] = []
    holder = Holder(folder, log.append, linger=3600.0)
    serving = asyncio.create_task(holder.serve(listening))
    try:
        yield InLoopHolder(env, holder, log)
    finally:
        await asyncio.gather(*(pi.close(grace=0.2) for pi in list(holder.pis.values())), return_exceptions=True)
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving


def flood_stream(path: Path, records: int, pad: int = 100) -> Path:
    """A recorded run for tests/fake_pi.py's --stream: agent_start, `records` numbered
    bash_execution_update records of about `pad` bytes each, agent_settled."""
    filler = "x" * pad
    lines = ['{"type":"agent_start"}',
             *(f'{{"type":"bash_execution_update","delta":"{index:08d}{filler}"}}' for index in range(records)),
             '{"type":"agent_settled"}']
    path.write_text("\n".join(lines) + "\n")
    return path


class RawWindow:
    """A window on the holder's socket that reads only when told to: its frames as they came."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
        self.frames: list[tuple[bytes, bytes]] = []
        self.ended = False

    @classmethod
    async def attach(cls, env: dict[str, str], number: int) -> RawWindow:
        reader, writer = await asyncio.open_unix_connection(os.fspath(hold_dir(env) / SOCKET_NAME), limit=1 << 20)
        writer.write(frames.control(op="attach", protocol=frames.PROTOCOL, number=number))
        return cls(reader, writer)

    def controls(self, op: str) -> list[dict[str, Any]]:
        return [control for kind, payload in self.frames if kind == frames.CONTROL
                and (control := frames.read_control(payload)).get("op") == op]

    async def read_until(self, done: Callable[[RawWindow], bool], timeout: float = 60.0) -> None:
        async with asyncio.timeout(timeout):
            while not done(self):
                chunk = await self.reader.read(1 << 20)
                if not chunk:
                    self.ended = True
                    return
                self.frames.extend(self.framer.feed(chunk))

    def lines_after_last_cut(self) -> list[bytes]:
        """pi's lines since the last cut's messages (the lines a window folds after it)."""
        last = max(index for index, (kind, _) in enumerate(self.frames) if kind == frames.MESSAGES)
        return [line for kind, payload in self.frames[last + 1 :] if kind == frames.STDOUT
                for line in payload.split(b"\n") if line]

    def close(self) -> None:
        self.writer.close()
