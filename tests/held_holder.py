"""A holder (protocol/hold/holder.py) served in the test's own loop, in a holder folder of the
test's own: windows (`HeldClient`s with `env` as their `holder_env`) reach it as they reach
the user's, and a test can look into it (its pis, its log) or patch what it runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

from protocol.hold.holder import Holder
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
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(os.fspath(folder / SOCKET_NAME))
    sock.listen(64)
    log: list[str] = []
    holder = Holder(folder, log.append, linger=3600.0)
    serving = asyncio.create_task(holder.serve(sock))
    try:
        yield InLoopHolder(env, holder, log)
    finally:
        await asyncio.gather(*(pi.close(grace=0.2) for pi in list(holder.pis.values())), return_exceptions=True)
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
