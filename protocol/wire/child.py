"""pi's child process: spawned with its three pipes, and a future that resolves as it exits.

Apart from the RPC client (protocol/wire/client.py), which adopts a child spawned here, so
that pideck starts pi before it imports the client and the records' types: pi boots (0.3 s)
while pideck imports the rest.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import Mapping, Sequence
from typing import Any

PIPE_SIZE = 1 << 20


class ExitProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Resolves `exited` as soon as the child ends. `Process.wait()` waits for every pipe
    to close as well, which a grandchild that inherited them can put off for as long as it lives."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class Child:
    """A spawned child: its process (pipes as streams), its transport, and `exited`."""

    __slots__ = ("exited", "process", "transport")

    def __init__(self, process: asyncio.subprocess.Process, transport: asyncio.SubprocessTransport,
                 exited: asyncio.Future[None]) -> None:
        self.process = process
        self.transport = transport
        self.exited = exited


async def spawn(argv: Sequence[str], env: Mapping[str, str] | None, cwd: str | os.PathLike[str] | None) -> Child:
    """Spawn `argv` in a session of its own, its stdin, stdout and stderr piped; OSError if
    it cannot be."""
    loop = asyncio.get_running_loop()
    protocol = ExitProtocol(limit=1 << 16, loop=loop)
    transport, _ = await loop.subprocess_exec(
        lambda: protocol,
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    _widen_pipe(transport.get_pipe_transport(1))
    return Child(asyncio.subprocess.Process(transport, protocol, loop), transport, protocol.exited)


def _widen_pipe(pipe: Any) -> None:
    """Give pi's stdout a 1 MB pipe (Linux; the default is 64 KB, about 14 ms of a
    streaming flood), so pi keeps writing while pideck's loop is busy drawing a frame."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    handle = pipe.get_extra_info("pipe") if pipe is not None else None
    if setter is None or handle is None:
        return
    try:
        fcntl.fcntl(handle.fileno(), setter, PIPE_SIZE)
    except OSError:
        pass  # above the system's pipe-max-size: keep the default
    except ValueError:
        pass  # pi exited at once and its pipe is closed already: its exit tells why
