"""The client of `pideck view`: pi's records read from a file, a pipe or a FIFO instead of a
pi child, so the app shows them as it shows a live pi's.

`ViewClient` is an `RpcClient` without a child. A stream (`pideck view -`, a FIFO) is read
as pi's stdout is: LF-framed, decoded, counted and handed to the listeners a line at a time;
its header is kept (`header`), and when its writer closes it a `StreamEnded` record follows
the last line. Commands are answered from what the view holds (`get_state`,
`get_session_stats`, `get_last_assistant_text`, `get_commands`) through the `answers` the
app gives; every other one fails with `RpcError(read_only(...))`: no pi runs to take it.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from protocol.wire.client import RpcClient, RpcError
from protocol.wire.commands import Command, ExtensionUIResponse, command_name
from protocol.wire.entries import SessionHeader
from protocol.wire.events import AgentSettled, AgentStart
from protocol.wire.codec import ProtocolError
from protocol.wire.framing import LineFramer
from protocol.wire.local_link import LocalLink
from protocol.files.headless_files import MAX_LINE, NotPiOutput, kind_of, read_header
from protocol.regular_file import open_regular
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.recording import Skipped, Step
from protocol.wire.responses import Response

READ_CHUNK = 1 << 20
LOGGED = 65536  # bytes of a line too long to keep that the protocol log gets
FILE_POLL = 0.25  # seconds between looks at a file pi is still writing

Answer = Callable[[Command], Any]  # the command's data (or an awaitable of it)


class StreamEnded(msgspec.Struct, frozen=True):
    """The stream's writer closed it. `settled`: the run had settled (agent_settled) by then."""

    settled: bool


class NotPiStream(msgspec.Struct, frozen=True):
    """The stream's first line is not pi's: what it is instead (the rest is still read)."""

    reason: str


def read_only(what: str, source: str, program: str) -> str:
    return (f"{source} is a read-only view: {program} starts no pi, so {what} cannot run here. "
            f"To go on with a session, open its session file in pideck: pideck -- --session FILE")


def is_stream(fd: int) -> bool:
    """The fd is read as it comes (a pipe, a FIFO, a terminal or a socket), not loaded whole."""
    return not stat.S_ISREG(os.fstat(fd).st_mode)


class ViewClient(RpcClient):
    program = "pideck view"  # (for messages)

    def __init__(self, source: str, *, fd: int | None = None, protocol_log: ProtocolLog | None = None) -> None:
        """`source` names what is viewed (for messages); `fd` is the stream to follow, if any."""
        super().__init__(LocalLink(["pideck-view", source]), protocol_log=protocol_log)  # (never started: no pi)
        self.source = source
        self.fd = fd
        self.header: SessionHeader | None = None
        self.answers: dict[str, Answer] = {}  # command name -> its data, made by the app
        self.settled = False  # the run settled (agent_settled, and no agent_start since)
        self.ended: StreamEnded | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pipe: asyncio.ReadTransport | None = None
        self._stdout_framer = LineFramer()

    @property
    def receiving(self) -> int:
        return self._stdout_framer.pending

    @property
    def following(self) -> bool:
        """A stream is being read and its writer has not closed it yet."""
        return self._reader is not None and self.ended is None

    async def start(self) -> None:
        """Follow the stream, if there is one (a file is loaded by the app)."""
        if self.fd is None or self._reader is not None:
            return
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=READ_CHUNK, loop=loop)
        os.set_blocking(self.fd, False)
        pipe = os.fdopen(self.fd, "rb", buffering=0, closefd=True)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
        self._pipe = transport
        self._reader = asyncio.create_task(self._follow(reader), name="view-stream")

    def follow_file(self, path: str, offset: int) -> None:
        """Read what is written to the file `path` after `offset` (a run pi is still writing),
        as a stream is read, until its run settles; a file that shrinks ends it."""
        if self._reader is None:
            self._reader = asyncio.create_task(self._tail(path, offset), name="view-file")

    async def _tail(self, path: str, offset: int) -> None:
        handle = open_regular(path)  # (a FIFO put there since would block open() on the UI's loop)
        fd = handle.fileno()
        try:
            os.lseek(fd, offset, os.SEEK_SET)
            while not self.settled:
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    if os.fstat(fd).st_size < os.lseek(fd, 0, os.SEEK_CUR):
                        break  # truncated or rewritten: not the run that was shown
                    await asyncio.sleep(FILE_POLL)
                    continue
                self._take(chunk)
                await asyncio.sleep(0)  # a long stretch written at once: the keys still read
        finally:
            handle.close()
        self.ended = StreamEnded(settled=self.settled)
        self._emit(self.ended)

    async def _follow(self, stream: asyncio.StreamReader) -> None:
        framer = self._stdout_framer
        while True:
            try:
                chunk = await stream.read(READ_CHUNK)
            except (ConnectionError, OSError):
                chunk = b""
            if not chunk:
                rest = framer.flush()
                if rest:
                    self._handle_line(rest)  # a last line without its LF: drawn as far as it goes
                self.ended = StreamEnded(settled=self.settled)
                self._emit(self.ended)
                return
            self._take(chunk)

    def _take(self, chunk: bytes) -> None:
        """A chunk of the stream or the growing file: its complete lines handled. A line that
        grows past MAX_LINE is dropped and counted (a protocol error), and the rest of it, up
        to its LF, let go as it comes: memory stays bounded whatever the writer writes."""
        framer = self._stdout_framer
        for line in framer.feed(chunk):
            self._handle_line(line)
        if framer.pending > MAX_LINE:
            size = framer.pending
            head = framer.cut(LOGGED)
            self._handle_record(head, ProtocolError(raw=head, error=f"line longer than {size:,} bytes; dropped"))

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        if self.header is None and self.records_read == 0:
            if (header := read_header(line)) is not None:
                self.header = header
                self.records_read += 1
                return
            try:
                kind_of([line])
            except NotPiOutput as exc:
                self._emit(NotPiStream(str(exc)))
        super()._handle_line(line)

    def _emit(self, record: Any) -> None:
        if isinstance(record, AgentStart):
            self.settled = False
        elif isinstance(record, AgentSettled):
            self.settled = True
        super()._emit(record)

    async def close(self, *, grace: float = 3.0, term_grace: float = 2.0) -> None:  # type: ignore[override]
        if self._reader is not None:
            self._reader.cancel()
        if self._pipe is not None:
            self._pipe.close()
        return None

    async def send(self, record: Command | ExtensionUIResponse) -> None:
        name = command_name(record) if isinstance(record, Command) else "an extension's answer"
        raise RpcError(read_only(name, self.source, self.program))

    async def request(self, command: Command, timeout: float | None | bool = True) -> Response:
        name = command_name(command)
        answer = self.answers.get(name)
        if answer is None:
            raise RpcError(read_only(_WHAT.get(name, name), self.source, self.program))
        data = answer(command)
        if inspect.isawaitable(data):
            data = await data  # (an answer that takes a while: /export runs pi's exporter)
        return Response(command=name, success=True, id=command.id, data=data)


_WHAT = {
    "prompt": "a prompt", "steer": "a steering message", "follow_up": "a follow-up", "bash": "a shell command",
    "set_model": "/model", "cycle_model": "a model switch", "cycle_thinking_level": "a thinking level switch",
    "set_thinking_level": "/thinking", "compact": "/compact", "abort": "an abort", "new_session": "/new",
    "switch_session": "/resume", "fork": "/fork", "clone": "/clone", "export_html": "/export",
    "set_session_name": "/name", "get_available_models": "/model", "get_available_thinking_levels": "/thinking",
    "clear_queue": "the queue", "set_auto_compaction": "/auto-compact", "set_auto_retry": "/auto-retry",
    "get_fork_messages": "/fork", "get_entries": "/tree", "get_tree": "/tree",
}


class ReplayClient(ViewClient):
    """A recording (protocol/wire/recording.py) played back: pi's lines handed to the listeners at
    their recorded times divided by `speed` (0: as fast as they can be shown), as pi's stdout
    is read; pideck's own commands in it are counted, not sent. A line of the recording that is
    no step is counted (`skipped`), logged, handed on as its `Skipped` and passed over; one
    that cannot be read ends the replay (`failure` says why)."""

    program = "pideck replay"

    def __init__(self, source: str, steps: Iterator[Step | Skipped], *, speed: float = 1.0,
                 protocol_log: ProtocolLog | None = None) -> None:
        super().__init__(source, protocol_log=protocol_log)
        self.steps = steps
        self.speed = speed
        self.exit_code: int | None = None  # pi's, when the recording says it exited
        self.skipped = 0
        self.failure: str | None = None

    async def start(self) -> None:
        if self._reader is None:
            self._reader = asyncio.create_task(self._play(), name="replay")

    async def _play(self) -> None:
        loop = asyncio.get_running_loop()
        begun = loop.time()
        count = 0
        try:
            for step in self.steps:
                count += 1
                if isinstance(step, Skipped):
                    self.skipped += 1
                    self._log("bad-step", step.line, f"a line of the recording passed over: {step.reason}")
                    self._emit(step)
                    continue
                if self.speed > 0:
                    delay = begun + step.at / self.speed - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                elif count % 200 == 0:
                    await asyncio.sleep(0)  # as fast as possible, the keys still read
                if step.read is not None:
                    self._handle_line(step.read)
                elif step.exited:  # (pideck's own commands are not sent again: nothing would answer them)
                    self.exit_code = step.exit
        except OSError as exc:
            self.failure = f"the recording could not be read on: {exc.strerror or exc}"
        self.ended = StreamEnded(settled=self.settled)
        self._emit(self.ended)

    def _handle_record(self, line: bytes, record: Any) -> None:
        if isinstance(record, Response):  # an answer pi gave then: the app takes it in its place
            self.records_read += 1
            self._emit(record)
            return
        super()._handle_record(line, record)
