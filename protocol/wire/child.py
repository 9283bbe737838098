"""pi's child as the RPC client reads it: the pipes of a process spawned before the loop ran
(protocol/wire/spawn.py) as asyncio streams, and a future that resolves as soon as it exits.

`asyncio`'s own subprocesses cannot adopt a process spawned without it, and their
`wait()` waits for every pipe to close as well, which a grandchild that inherited them can
put off for as long as it lives: here the exit is the process's own, read by a thread that
waits for it (as asyncio's default child watcher does).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import threading
from typing import Any, Protocol

READ_LIMIT = 1 << 16  # bytes a stream holds before it stops reading its pipe


class Ending(Protocol):
    """What `end` needs of what it ends (a held pi's link is one too: held_link.HeldLink)."""

    exited: asyncio.Future[None]

    @property
    def returncode(self) -> int | None: ...

    def close_stdin(self) -> None: ...

    def send_signal(self, sig: int) -> None: ...


class Child:
    """A spawned process read through asyncio: `stdin`, `stdout`, `stderr` and `exited`."""

    __slots__ = ("exited", "popen", "stderr", "stdin", "stdout", "_transports")

    def __init__(self, popen: subprocess.Popen[bytes], stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader,
                 stderr: asyncio.StreamReader, transports: list[asyncio.BaseTransport], exited: asyncio.Future[None]) -> None:
        self.popen = popen
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.exited = exited
        self._transports = transports

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """None while it runs; its exit status (or -signal) once it ended."""
        return self.popen.returncode

    def send_signal(self, sig: int) -> None:
        """Nothing once it has ended (its pid may be another process's by then)."""
        self.popen.send_signal(sig)

    def kill(self) -> None:
        self.popen.kill()

    def close_stdin(self) -> None:
        self.stdin.close()

    def close_pipes(self) -> None:
        """Stop reading and writing it (a process it started holds the pipes open)."""
        for transport in self._transports:
            transport.close()


async def end(child: Ending, grace: float, term_grace: float = 2.0) -> None:
    """End `child` in order: close its stdin and wait `grace` s; then SIGTERM and wait
    `term_grace` s; then SIGKILL."""
    if child.returncode is None:
        with contextlib.suppress(OSError, RuntimeError):
            child.close_stdin()
    for sig, wait in ((None, grace), (signal.SIGTERM, term_grace), (signal.SIGKILL, 5.0)):
        if child.returncode is not None:
            break
        if sig is not None:
            try:
                child.send_signal(sig)
            except ProcessLookupError:
                break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(child.exited), wait)


async def connect(popen: subprocess.Popen[bytes]) -> Child:
    """`popen`'s pipes as streams of the running loop, and its exit watched."""
    loop = asyncio.get_running_loop()
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    transports: list[asyncio.BaseTransport] = []
    readers = []
    for pipe in (popen.stdout, popen.stderr):
        reader = asyncio.StreamReader(limit=READ_LIMIT)
        transport, _ = await loop.connect_read_pipe(lambda reader=reader: asyncio.StreamReaderProtocol(reader), pipe)
        transports.append(transport)
        readers.append(reader)
    write_transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), popen.stdin)
    transports.append(write_transport)
    stdin = asyncio.StreamWriter(write_transport, protocol, None, loop)
    exited: asyncio.Future[None] = loop.create_future()
    threading.Thread(target=_wait, args=(popen, loop, exited), name=f"pi-{popen.pid}-exit", daemon=True).start()
    return Child(popen, stdin, readers[0], readers[1], transports, exited)


def _wait(popen: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop, exited: asyncio.Future[None]) -> None:
    popen.wait()
    try:
        loop.call_soon_threadsafe(_resolve, exited)
    except RuntimeError:
        pass  # the loop is closed: nobody waits any more


def _resolve(exited: asyncio.Future[Any]) -> None:
    if not exited.done():
        exited.set_result(None)
