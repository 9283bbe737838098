"""The link to a pi of the window's own (`--no-hold`): its child, spawned with three pipes
(protocol/wire/spawn.py; before the loop ran, at pideck's start), read through asyncio
(protocol/wire/child.py). pi's stdout is split on LF here, once; a line that grows past
MAX_LINE is dropped (its head handed on as a ProtocolError) and the rest of it let go as
it comes: memory stays bounded whatever pi writes. It cannot outlive the window: a detach
is refused.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Sequence
from typing import Any

from protocol.wire.child import Child, connect, end
from protocol.wire.client import RpcClient
from protocol.wire.codec import ProtocolError
from protocol.wire.framing import LineFramer
from protocol.wire.link import LOGGED, MAX_LINE, LinkError, Start
from protocol.wire.redact import Redactor
from protocol.wire.spawn import spawn

READ_CHUNK = 1 << 20
STDERR_CHUNK = 1 << 16


class LocalLink:
    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None,
                 cwd: str | os.PathLike[str] | None = None, spawned: subprocess.Popen[bytes] | None = None) -> None:
        """`spawned`: the child `protocol.wire.spawn.spawn` started already (not read yet)."""
        self.argv = list(argv)
        self.env = env
        self.cwd = cwd
        self.child: Child | None = None
        self._spawned = spawned
        self._framer = LineFramer()
        self._ended = False

    def spawn(self) -> None:
        """Spawn pi, not reading it yet: what it writes waits in the pipe until `start`.
        OSError if it cannot be spawned."""
        self._spawned = spawn(self.argv, self.env, self.cwd)

    async def start(self) -> Start:
        if self._spawned is None and self.child is None:
            try:
                self.spawn()
            except (OSError, ValueError) as exc:  # (ValueError: an argument no process can be given)
                reason = getattr(exc, "strerror", None) or exc
                raise LinkError(f"cannot start {self.argv[0]!r}: {reason}") from None
        if self._spawned is not None:
            spawned, self._spawned = self._spawned, None
            self.child = await connect(spawned)
        return Start()

    @property
    def spawned(self) -> bool:
        return self.child is not None or self._spawned is not None

    # --- reading ------------------------------------------------------------------------

    async def read(self) -> list[Any]:
        assert self.child is not None
        framer = self._framer
        while not self._ended:
            try:
                chunk = await self.child.stdout.read(READ_CHUNK)
            except (ConnectionError, OSError):
                chunk = b""
            if not chunk:
                self._ended = True
                rest = framer.flush()
                return [rest] if rest else []
            lines: list[Any] = framer.feed(chunk)
            chunk = b""  # not kept while the next chunk is awaited: it may be hundreds of MB
            if framer.pending > MAX_LINE:
                size = framer.pending
                head = framer.cut(LOGGED)
                lines.append(ProtocolError(raw=head, error=f"line longer than {size:,} bytes; dropped"))
            if lines:
                return lines
        return []

    @property
    def pending(self) -> int:
        return self._framer.pending

    async def read_stderr(self) -> bytes:
        assert self.child is not None
        try:
            return await self.child.stderr.read(STDERR_CHUNK)
        except (ConnectionError, OSError):
            return b""

    @property
    def exited(self) -> asyncio.Future[None]:
        assert self.child is not None
        return self.child.exited

    @property
    def returncode(self) -> int | None:
        return self.child.returncode if self.child is not None else None

    exit_error: str | None = None
    stopped_by: str | None = None

    # --- writing and ending ---------------------------------------------------------------

    def write(self, data: bytes) -> None:
        assert self.child is not None
        self.child.stdin.write(data)

    async def drain(self) -> None:
        assert self.child is not None
        await self.child.stdin.drain()

    def write_idle(self) -> bool:
        return self.child is not None and not self.child.stdin.transport.get_write_buffer_size()

    async def end(self, grace: float, term_grace: float) -> None:
        if self.child is not None:
            await end(self.child, grace, term_grace)

    def kill(self) -> None:
        if self._spawned is not None:
            self._spawned.kill()
        elif self.child is not None and self.child.returncode is None:
            self.child.kill()

    def close_pipes(self) -> None:
        if self.child is not None:
            self.child.close_pipes()

    @property
    def pid(self) -> int | None:
        if self._spawned is not None:
            return self._spawned.pid
        return self.child.pid if self.child is not None else None

    # --- what only a held pi does -----------------------------------------------------------

    id_prefix = "pideck-"
    held: int | None = None
    holder_claims = False
    taken: dict[str, Any] | None = None
    kept = False

    def detach(self, draft: str | None) -> None:
        raise LinkError("pi is this window's own (--no-hold): it cannot go on without it")

    def report_draft(self, draft: str) -> None:
        """(Nothing keeps it: the window's prompt is all there is.)"""

    async def written(self, timeout: float) -> None:
        """(Nothing waits: what was written went to pi's pipe.)"""


def local_client(argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
                 spawned: subprocess.Popen[bytes] | None = None, **options: Any) -> RpcClient:
    """The client of a pi of the window's own (see LocalLink; `options`: RpcClient's), its
    stderr redacted of `env`'s credentials unless a redactor is given."""
    options.setdefault("redactor", Redactor.from_env(env if env is not None else os.environ))
    return RpcClient(LocalLink(argv, env=env, cwd=cwd, spawned=spawned), **options)
