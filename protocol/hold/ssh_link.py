"""The way to a holder on another host: the user's own `ssh` (their config, keys, agent,
ProxyJump, ControlMaster; no port opened anywhere) running the bridge there (bridge.py),
whose stdin and stdout are then the window's connection to that holder. A HeldLink takes
it as its opener (`HeldLink(..., opener=SshOpener(...))`): the held link is the same,
only the way to its holder differs.

ssh runs without a shell (`ssh [the user's options] OPTIONS HOST -- WORDS`, each word of the
remote command shell-quoted once for the host's shell, as app/pi/remote.py quotes `--pi
'ssh ...'`), in a session of its own (no terminal to ask on: BatchMode), and keeps the
link checked (ServerAlive: a network gone ends it, and the held link comes back with a new
one). Nothing from the host is trusted: the hello is looked for in a bounded read, in
bounded time, and a bridge of another pideck is refused with what to do; ssh's stderr is
kept (its bounded tail, cleaned) for the message when the host cannot be reached.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.control_codes import one_row
from protocol.hold import frames
from protocol.hold.bridge import ATTACH, HELLO_KEY, version
from protocol.hold.early import HoldError
from protocol.hold.held_link import Unreachable

SSH_OPTIONS = ("-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "ServerAliveInterval=10",
               "-o", "ServerAliveCountMax=3")  # fmt: skip
HELLO_WAIT = 25.0  # seconds ssh may take to log in and the bridge to answer (under held_link.REATTACH_WAIT)
BEFORE_HELLO = 1 << 16  # bytes the host may print before the hello (a login script's words) before it is refused
STDERR_KEPT = 2048  # bytes of ssh's stderr kept for the message
END_WAIT = 10.0  # seconds ssh has to end once its stdin is closed, before it is killed
STREAM_LIMIT = 1 << 20

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class SshOpener:
    """`await opener(env, start)`: a connection to the holder on `host` through `ssh` (the
    command and the user's options before the host), the bridge started on it by `command`
    (the remote command's words); with `start` false the bridge starts no holder. `env` is
    the local holder's and not used: the host's own environment places its holder."""

    def __init__(self, ssh: Sequence[str], host: str, command: Sequence[str]) -> None:
        self.ssh = list(ssh)
        self.host = host
        self.command = list(command)
        self._reaping: set[asyncio.Task[None]] = set()

    def argv(self, start: bool = True) -> list[str]:
        words = [*self.command, *([] if start else [ATTACH])]
        return [*self.ssh, *SSH_OPTIONS, self.host, "--", *map(shlex.quote, words)]

    async def __call__(self, env: Mapping[str, str], start: bool = True) -> Streams:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv(start), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, limit=STREAM_LIMIT, start_new_session=True)
        except OSError as exc:
            raise HoldError(f"cannot run {self.ssh[0]}: {exc.strerror or exc}") from None
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        tail = bytearray()
        keeping = asyncio.create_task(_keep_tail(process.stderr, tail))
        try:
            said = await asyncio.wait_for(_hello(process.stdout), HELLO_WAIT)
        except TimeoutError:
            await self._stop(process, keeping)
            raise Unreachable(f"ssh to {self.host} did not answer within {HELLO_WAIT:g} s") from None
        except BaseException:
            await self._stop(process, keeping)
            raise
        if said is None:
            code = await self._stop(process, keeping)
            why = one_row(tail.decode("utf-8", "replace")).strip()[-300:] or f"ssh ended ({code})"
            if code == 255:  # (ssh's own failure: the host was not reached)
                raise Unreachable(f"cannot reach {self.host}: {why}")
            raise HoldError(f"no pideck answered on {self.host} ({why}); pideck {version()} must be installed there")
        refused = _refusal(said, self.host)
        if refused is not None:
            await self._stop(process, keeping)
            raise HoldError(refused)
        self._reap(process, keeping)
        return process.stdout, process.stdin

    async def _stop(self, process: asyncio.subprocess.Process, keeping: asyncio.Task[None]) -> int:
        """End ssh now; its exit status."""
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        code = await process.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(keeping, END_WAIT)  # (a child of ssh's may keep its stderr)
        return code

    def _reap(self, process: asyncio.subprocess.Process, keeping: asyncio.Task[None]) -> None:
        """Once the link closes ssh's stdin, ssh ends (the bridge there ends with it); killed if it lingers."""

        async def reap() -> None:
            assert process.stdin is not None
            with contextlib.suppress(ConnectionError, OSError):
                await process.stdin.wait_closed()
            try:
                await asyncio.wait_for(process.wait(), END_WAIT)
            except TimeoutError:
                await self._stop(process, keeping)
            keeping.cancel()

        task = asyncio.create_task(reap())
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)


async def _keep_tail(stream: asyncio.StreamReader, tail: bytearray) -> None:
    while chunk := await stream.read(1 << 14):
        tail += chunk
        del tail[:-STDERR_KEPT]


async def _hello(stream: asyncio.StreamReader) -> dict[str, Any] | None:
    """The bridge's hello, past what the host printed before it (bounded); None at the end
    of the stream (ssh ended before it); HoldError where too much came without one."""
    seen = 0
    while seen < BEFORE_HELLO:
        try:
            line = await stream.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None
        except asyncio.LimitOverrunError:
            break
        seen += len(line)
        with contextlib.suppress(ValueError):
            said = json.loads(line)
            if isinstance(said, dict) and HELLO_KEY in said:
                return said
    raise HoldError("the host sent no pideck hello")


def _refusal(said: dict[str, Any], host: str) -> str | None:
    """Why the bridge's hello is refused (None: it is taken)."""
    theirs = one_row(str(said.get("pideck")))[:40]
    if said.get("protocol") != frames.PROTOCOL or theirs != version():
        return (f"{host} runs pideck {theirs}, this is {version()}: install pideck {version()} there "
                f"(or pi runs there as pideck's own child: --pi 'ssh {host} pi')")
    if (error := said.get("error")) is not None:
        return f"on {host}: {one_row(str(error))[:300]}"
    return None
