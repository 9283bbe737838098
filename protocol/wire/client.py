"""The asyncio client of one `pi --mode rpc`, over its link (protocol/wire/link.py: a pi of
the window's own, or one the holder keeps).

A reader task drains the link's lines whatever the listeners do (listeners are plain
callbacks that must not block), a second task drains stderr into a ring buffer,
requests get unique ids and futures with per-command timeouts, and pi's exit is
delivered to listeners as a `ChildExited` record.

What pi should not have sent (unreadable lines, lines too long to keep, unknown records,
responses nobody waits for) is counted and written to the protocol log; a response that
cannot be read fails its request at once. stderr lines are kept with credentials redacted.
Memory stays bounded whatever pi writes: stderr lines are cut, and the link drops a stdout
line longer than its limit.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

from protocol.wire.codec import ProtocolError, Unknown, decode, encode
from protocol.wire.commands import Command, ExtensionUIResponse, Prompt, command_name
from protocol.wire.events import AgentSettled, MessageUpdate, UnknownAssistantEvent
from protocol.wire.extension_ui import UnknownUIRequest
from protocol.wire.framing import LineFramer
from protocol.wire.link import Hello, Link, LinkError, Relinked, Snapshot
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.recording import Recorder
from protocol.wire.redact import Redactor
from protocol.wire.response_head import response_head
from protocol.wire.responses import Response

Listener = Callable[[Any], None]

# Seconds to wait for a response; None waits as long as the child lives.
DEFAULT_TIMEOUT = 30.0
TIMEOUTS: dict[str, float | None] = {
    "abort": 120.0,
    "compact": None,
    "bash": None,
    "new_session": 120.0,
    "switch_session": 120.0,
    "get_messages": 120.0,  # a session of hundreds of MB
    "fork": 120.0,
    "clone": 120.0,
    "export_html": 120.0,
    "prompt": 120.0,
}

# Seconds to keep reading the pipes after pi exited: a process pi started can hold them open.
EXIT_DRAIN_TIMEOUT = 2.0

# Seconds pi may live on after closing its stdout (an exiting pi closes it first) before it is ended.
STDOUT_CLOSED_GRACE = 1.0
STDOUT_CLOSED = "[pideck] pi closed its stdout but kept running; ending it"

STDERR_LINE = 2000  # characters of a stderr line kept


class ChildExited(msgspec.Struct, frozen=True):
    """pi exited (or could not be started). `stderr_tail` is its last stderr lines."""

    returncode: int | None
    stderr_tail: str
    error: str | None = None
    stopped_by: str | None = None  # what ended it on purpose from outside (a held pi: `pideck stop`)


class RpcError(Exception):
    """A command failed: pi answered success=false, timed out, or the child is gone."""

    def __init__(self, message: str, response: Response | None = None) -> None:
        super().__init__(message)
        self.response = response


class RpcDataError(RpcError):
    """pi said success, but its `data` is missing or not the shape pideck types it as;
    the message names the command and the field."""


class RpcClient:
    """The client of the pi `link` reaches (protocol/wire/link.py): a pi of the window's own,
    or one the holder keeps; read and written the same either way."""

    def __init__(
        self,
        link: Link,
        *,
        protocol_log: ProtocolLog | None = None,
        stderr_lines: int = 400,
        redactor: Redactor | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.link = link
        self.protocol_log = protocol_log
        self.redactor = redactor or Redactor.from_env(os.environ)
        self.recorder = recorder  # --record: every line read and written, with times
        self.stderr = deque[str](maxlen=stderr_lines)
        self.stderr_total = 0  # lines pi wrote to stderr, including those the ring dropped
        self.hello: Hello | None = None  # a held pi's, as the holder said it at the start
        self.snapshot: Snapshot | None = None  # an attach's start, once start() returned
        self.exited: ChildExited | None = None
        self.records_read = 0
        self.bad_records = 0
        self.unknown_records = 0
        self.unexpected_responses = 0  # responses whose id no request waits for (any more)
        self._listeners: list[Listener] = []
        self._pending: dict[str, asyncio.Future[Response]] = {}
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False
        self._exit_task: asyncio.Task[None] | None = None
        self._stdout_closed: asyncio.Task[None] | None = None
        self._write_lock = asyncio.Lock()
        self._done = asyncio.Event()

    # --- listeners --------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(record)` for every record read; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, record: Any) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(record)
            except Exception as exc:  # a broken listener must not stop the reader
                self.stderr.append(f"[pideck] listener error: {exc!r}")

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Reach pi (through its link) and read it. If it cannot be reached, a ChildExited
        record says why."""
        if self._started or self.exited is not None:
            return
        self._started = True
        try:
            start = await self.link.start()
        except LinkError as exc:
            self._finish(ChildExited(returncode=None, stderr_tail="", error=str(exc)))
            return
        self.hello, self.snapshot = start.hello, start.snapshot
        self._tasks = [
            asyncio.create_task(self._read_stdout(), name="pi-stdout"),
            asyncio.create_task(self._read_stderr(), name="pi-stderr"),
        ]
        self._exit_task = asyncio.create_task(self._watch_exit(), name="pi-exit")

    @property
    def running(self) -> bool:
        return self.link.spawned and self.exited is None

    @property
    def held(self) -> int | None:
        """The number `pideck ls` gives the pi while it runs held; else None."""
        return self.link.held if self.running else None

    @property
    def receiving(self) -> int:
        """Bytes read so far of a stdout line not yet complete (a long answer on its way)."""
        return self.link.pending

    @property
    def stderr_tail(self) -> str:
        return "\n".join(self.stderr)

    async def wait_closed(self) -> ChildExited:
        await self._done.wait()
        assert self.exited is not None
        return self.exited

    async def close(self, *, grace: float = 3.0, term_grace: float = 2.0) -> ChildExited | None:
        """Orderly shutdown: close stdin, wait; then SIGTERM, wait; then SIGKILL."""
        if not self._started and self.link.spawned:
            await self.start()  # spawned and never read: read it, so that its exit is seen as any
        if self._exit_task is None:
            return self.exited
        await self.link.end(grace, term_grace)
        try:
            await asyncio.wait_for(self._done.wait(), 5.0)
        except TimeoutError:
            pass
        return self.exited

    def kill(self) -> None:
        """SIGKILL the child at once (tests and crash simulation)."""
        self.link.kill()

    def detach(self, draft: str | None = None) -> None:
        """Leave pi running without this window (and `draft` to the next): no exit is
        reported for it. LinkError where it cannot outlive the window (a pi of its own)."""
        self.link.detach(draft)
        self._listeners.clear()

    # --- reading ------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        link = self.link
        while items := await link.read():
            for item in items:
                if type(item) is bytes:
                    self._handle_line(item)
                elif isinstance(item, ProtocolError):
                    self._handle_record(item.raw, item)
                elif isinstance(item, Relinked):
                    self._fail_pending("the link to pideck's holder broke (made again): pi's answer went with it",
                                       keep=link.id_prefix)
                else:
                    self._emit(item)
            del items, item  # not kept while the next lines are awaited: one may be hundreds of MB
        self._stdout_closed = asyncio.create_task(self._end_after_stdout_closed(), name="pi-stdout-closed")

    async def _end_after_stdout_closed(self) -> None:
        """pi closed its stdout: no answer or event can come any more, so it is as good as gone.
        One that does not exit on its own soon is ended; its exit is reported as usual."""
        try:
            await asyncio.wait_for(asyncio.shield(self.link.exited), STDOUT_CLOSED_GRACE)
        except TimeoutError:
            self.stderr.append(STDOUT_CLOSED)
            await self.close(grace=0.0)

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        if self.recorder is not None:
            self.recorder.read(line)
        self._handle_record(line, decode(line))

    def _handle_record(self, line: bytes, record: Any) -> None:
        self.records_read += 1
        if isinstance(record, ProtocolError):
            self.bad_records += 1
            self._log("bad-record", record.raw, record.error)
            self._fail_unreadable_response(record)
        elif isinstance(record, Response):
            future = self._pending.pop(record.id, None) if record.id is not None else None
            if future is not None and not future.done():
                future.set_result(record)
            else:
                self.unexpected_responses += 1
                self._log("unexpected-response", line, f"no request is waiting for id {record.id!r}")
        elif isinstance(record, (Unknown, UnknownUIRequest)) or (
            type(record) is MessageUpdate and isinstance(record.assistant_message_event, UnknownAssistantEvent)
        ):
            self.unknown_records += 1
            self._log("unknown-record", line, "a record pideck does not know")
        self._emit(record)

    def _fail_unreadable_response(self, error: ProtocolError) -> None:
        """A response that could not be decoded fails the request waiting for it at once."""
        head = response_head(error.raw)
        future = self._pending.pop(head.id, None) if head is not None else None
        if head is not None and future is not None and not future.done():
            future.set_exception(RpcError(f"{head.command or 'request'}: pi's answer could not be read ({error.error})"))

    def _fail_pending(self, reason: str, keep: str | None = None) -> None:
        """Fail the requests waiting (but those whose ids start with `keep`)."""
        for request_id, future in list(self._pending.items()):
            if keep is not None and request_id.startswith(keep):
                continue
            del self._pending[request_id]
            if not future.done():
                future.set_exception(RpcError(reason))

    def _log(self, kind: str, raw: bytes, detail: str) -> None:
        if self.protocol_log is not None:
            self.protocol_log.write(kind, raw, detail)

    async def _read_stderr(self) -> None:
        framer = LineFramer()
        while True:
            chunk = await self.link.read_stderr()
            lines = framer.feed(chunk) if chunk else [framer.flush() or b""]
            if framer.pending > STDERR_LINE * 4:  # a flood without newlines: keep its start as a line
                lines.append(framer.flush() or b"")
            for raw in lines:
                if raw:
                    self.stderr_total += 1
                    text = self.redactor.text(raw[: STDERR_LINE * 2].decode("utf-8", "replace"))
                    self.stderr.append(text[:STDERR_LINE])
            if not chunk:
                return

    async def _watch_exit(self) -> None:
        link = self.link
        await link.exited
        # Read what pi wrote before it exited, but a process that inherited the pipes
        # must not keep pi "running": close them after a while.
        _, lingering = await asyncio.wait(self._tasks, timeout=EXIT_DRAIN_TIMEOUT)
        if lingering:
            self.stderr.append("[pideck] pi exited but a process it started holds its pipes open; closing them")
            link.close_pipes()
            _, lingering = await asyncio.wait(lingering, timeout=1.0)
            for task in lingering:
                task.cancel()
        self._finish(ChildExited(returncode=link.returncode, stderr_tail=self.stderr_tail, error=link.exit_error,
                                 stopped_by=link.stopped_by))

    def _finish(self, exited: ChildExited) -> None:
        self.exited = exited
        if self.recorder is not None:
            self.recorder.exited(exited.returncode)
        self._fail_pending(f"pi exited (code {exited.returncode})")
        self._done.set()
        self._emit(exited)

    # --- writing ------------------------------------------------------------------------

    def next_id(self) -> str:
        return f"{self.link.id_prefix}{next(self._ids)}"

    def _writable(self) -> bool:
        """pi can be written to: reached, and not gone."""
        return self._exit_task is not None and self.exited is None

    async def send(self, record: Command | ExtensionUIResponse) -> None:
        """Write one record to pi's stdin, honouring backpressure."""
        if not self._writable():
            raise RpcError("pi is not running")
        async with self._write_lock:
            try:
                self._write(record)
                await self.link.drain()
            except (ConnectionError, OSError) as exc:
                raise RpcError(f"cannot write to pi: {exc}") from exc

    def _write(self, record: Command | ExtensionUIResponse) -> None:
        data = encode(record)
        if self.recorder is not None:
            self.recorder.sent(data)
        self.link.write(data)

    def _send_now(self, record: Command) -> bool:
        """Write `record` in the caller's step, when no write is under way and pi's pipe
        holds nothing back; False when it is to be written by `send`, in its turn."""
        if not self._writable() or self._write_lock.locked() or not self.link.write_idle():
            return False
        try:
            self._write(record)
        except (ConnectionError, OSError):
            return False  # (`send` tries again, and says why it cannot)
        return True

    async def request(self, command: Command, timeout: float | None | bool = True) -> Response:
        """Send `command` and wait for its response (success or not).

        `timeout=True` uses the command's default from TIMEOUTS.
        """
        if command.id is None:
            command.id = self.next_id()
        name = command_name(command)
        limit = TIMEOUTS.get(name, DEFAULT_TIMEOUT) if timeout is True else timeout
        future = self._pending.get(command.id)  # (already there: written by call_now)
        written = future is not None
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._pending[command.id] = future
        try:
            if not written:
                await self.send(command)
            return await asyncio.wait_for(future, limit) if limit else await future
        except TimeoutError:
            raise RpcError(f"{name}: no response from pi within {limit:g}s") from None
        finally:
            self._pending.pop(command.id, None)

    def call_now(self, command: Command, timeout: float | None | bool = True) -> Coroutine[Any, Any, Any]:
        """`call`, with `command` written before this returns where it can be (nothing else
        being written): a prompt sent on Enter leaves ahead of the frame that empties the
        editor and of the tasks that pass the key's messages on. Await what it returns."""
        if command.id is None:
            command.id = self.next_id()
        if self._send_now(command):
            future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
            self._pending[command.id] = future  # (its response is read later, in the loop; `request` takes it)
        return self.call(command, timeout)

    async def call(self, command: Command, timeout: float | None | bool = True) -> Any:
        """Like `request`, but returns `data` (typed, see responses.DATA_TYPES); raises RpcError
        when pi says success=false, RpcDataError when its data is missing or does not fit."""
        response = await self.request(command, timeout)
        if not response.success:
            raise RpcError(response.error or f"{response.command} failed", response)
        if response.data_error is not None:
            raise RpcDataError(f"{response.command}: pi's answer could not be read ({response.data_error})", response)
        return response.data

    async def prompt_and_wait(self, prompt: Prompt, timeout: float | None = None) -> list[Any]:
        """Send a prompt and collect every record until `agent_settled`.

        The listener is installed before the prompt is written, so a fast run is not
        missed. A "handled" disposition returns at once (no run started).
        """
        records: list[Any] = []
        settled = asyncio.Event()

        def collect(record: Any) -> None:
            records.append(record)
            if isinstance(record, (AgentSettled, ChildExited)):
                settled.set()

        remove = self.add_listener(collect)
        try:
            data = await self.call(prompt)
            if getattr(data, "disposition", None) == "handled":
                return records
            await asyncio.wait_for(settled.wait(), timeout)
            return records
        finally:
            remove()
