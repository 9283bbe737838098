"""A window's side of a held pi: an `RpcClient` whose child is the holder's.

`HeldChild` stands where `protocol.wire.child.Child` stands for a pi of the window's own:
pi's stdin, stdout and stderr are frames on the holder's socket, and its exit is what the
holder says (or, if the holder itself goes, an exit whose error says so). The client reads
it as it reads any pi, so everything above (the session, its model, the app) is the same
held or not; two records more come from it: `DialogAnswered`, when another window
answered a dialog of the pi they share, and `CaughtUp`, when the window is drawn again from
a fresh cut: the holder caught it up (it fell behind), or its link to the holder broke and
it attached again. Only a holder that does not answer, or no longer holds its pi, ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from protocol.hold import frames
from protocol.hold.early import HoldError, holder_socket, spawn_request
from protocol.wire.client import ChildExited, RpcClient
from protocol.wire.codec import decode
from protocol.wire.client import RpcError
from protocol.wire.extension_ui import CaughtUp, DialogAnswered
from protocol.wire.responses import MessageList, Response

OPEN_TRIES = 3  # connections to the holder tried before a window says why pi cannot start
QUEUED_FRAMES = 256  # frames of pi's stdout read ahead of the client: beyond, the socket waits
DRAFT_PIECE = 1 << 18  # characters of a draft per control frame (at most 6 bytes each in JSON: well under MAX_CONTROL)
REATTACH_WAIT = 30.0  # seconds a window may wait for the holder's answer when it attaches again
HOLDER_GONE = "pideck's holder went away (killed?): pi's runs it held are lost; `pideck --restore` resumes the sessions from pi's files"


class Snapshot:
    """Where an attach starts: pi's messages at the cut, the last `rebuilt` of them made
    again by the records of the run in progress that follow."""

    def __init__(self, messages: list[Any], rebuilt: int) -> None:
        self.messages = messages
        self.rebuilt = rebuilt

    @property
    def history(self) -> list[Any]:
        """The messages before the run in progress."""
        return self.messages[: max(0, len(self.messages) - self.rebuilt)]


class Chunks:
    """A stream the client reads (`read`) fed with frames' payloads, and calls to make in
    their place in it: once the client has handled every line before them (it handles what
    one `read` returns before it reads again)."""

    def __init__(self, maxsize: int) -> None:
        self._queue: asyncio.Queue[bytes | Callable[[], None] | None] = asyncio.Queue(maxsize)
        self._ended = False
        self._due: Callable[[], None] | None = None

    async def put(self, data: bytes | Callable[[], None] | None) -> None:
        await self._queue.put(data)

    def offer(self, data: bytes) -> None:
        """Put, or drop when it is full (stderr: its tail is what matters)."""
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(data)

    async def read(self, size: int) -> bytes:
        if self._due is not None:
            due, self._due = self._due, None
            due()
        parts: list[bytes] = []
        total = 0
        while not self._ended and total < size and (not parts or not self._queue.empty()):
            item = self._queue.get_nowait() if parts else await self._queue.get()
            if item is None:
                self._ended = True
            elif isinstance(item, bytes):
                parts.append(item)
                total += len(item)
            elif parts:
                self._due = item
                break
            else:
                item()
        return b"".join(parts)


class HeldStdin:
    """pi's stdin, as `i` frames."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer  # (a new one when the window attaches again)

    @property
    def transport(self) -> asyncio.WriteTransport:
        return self.writer.transport  # type: ignore[return-value]

    def write(self, data: bytes) -> None:
        self.writer.write(frames.frame(frames.STDIN, data))

    async def drain(self) -> None:
        await self.writer.drain()

    def close(self) -> None:
        """pi is to end: the holder closes its stdin (then signals it if it lingers)."""
        if not self.writer.is_closing():
            self.writer.write(frames.control(op="close_stdin"))


class HeldChild:
    """The holder's pi as the client reads a child: `stdin`, `stdout`, `stderr`, `exited`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framer: frames.FrameReader,
                 hello: dict[str, Any], ahead: list[tuple[bytes, bytes]]) -> None:
        self.number: int = hello.get("number", 0)
        self.pid: int = hello.get("pid") or 0
        self.stdin = HeldStdin(writer)
        self.stdout = Chunks(QUEUED_FRAMES)
        self.stderr = Chunks(QUEUED_FRAMES)
        self.exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.returncode: int | None = None
        self.lost: str | None = None  # why the holder is gone, if it went
        self.kept = False  # this window quit, and pi stays for another window that shows it
        self.stopped_by: str | None = None  # who ended pi from outside (`pideck stop`), as the holder said
        self.taken: dict[str, Any] | None = None  # who had pi's session file open first (pi is being closed)
        self.on_answered: Any = None  # called with the id of a dialog another window answered
        self.on_caught_up: Any = None  # called with the Snapshot of a fresh cut
        self.reattach: Any = None  # makes a new connection to the same pi (see HeldClient.reattach)
        self._reader = reader
        self._writer = writer
        self._framer = framer
        self._rebuilt = 0  # what the cut under way said of the run's messages
        self._detached = False
        self._task = asyncio.create_task(self._demux(ahead), name=f"held-pi-{self.number}")

    async def _demux(self, ahead: list[tuple[bytes, bytes]]) -> None:
        try:
            await self._frames(ahead)
            while not self.exited.done():
                try:
                    chunk = await self._reader.read(1 << 20)
                except (ConnectionError, OSError):
                    chunk = b""
                if chunk:
                    await self._frames(self._framer.feed(chunk))
                elif self._detached or not await self._attach_again():
                    break
        except (frames.BadFrame, HoldError):
            pass
        finally:
            if not self.exited.done() and not self._detached:
                self.lost = HOLDER_GONE
            await self.stdout.put(None)
            await self.stderr.put(None)
            self._writer.close()
            if not self.exited.done():
                self.exited.set_result(None)

    async def _attach_again(self) -> bool:
        """The link to the holder broke: a new one to the same pi, drawn again from its cut;
        False where the holder does not answer or no longer holds this pi."""
        if self.reattach is None or self.exited.done() or self.lost is not None:  # (lost: the holder said it leaves)
            return False
        try:
            reader, writer, framer, snapshot, pending = await asyncio.wait_for(self.reattach(), REATTACH_WAIT)
        except (HoldError, OSError, TimeoutError):
            return False
        self._writer.close()
        self._reader, self._writer, self._framer = reader, writer, framer
        self.stdin.writer = writer
        await self._caught_up(snapshot)
        await self._frames(pending)
        return True

    async def _caught_up(self, snapshot: Snapshot) -> None:
        if self.on_caught_up is not None:
            on_caught_up = self.on_caught_up
            await self.stdout.put(lambda: on_caught_up(snapshot))  # (after the lines read before it)

    async def _frames(self, read: list[tuple[bytes, bytes]]) -> None:
        for kind, payload in read:
            if kind == frames.STDOUT:  # (lines pi wrote, each ending in LF: the client splits them)
                await self.stdout.put(payload if payload.endswith(b"\n") else payload + b"\n")
            elif kind == frames.MESSAGES:  # a fresh cut: the holder caught this window up
                await self._caught_up(snapshot_of(payload, self._rebuilt))
            elif kind == frames.STDERR:
                self.stderr.offer(payload)
            elif kind == frames.CONTROL:
                await self._control(frames.read_control(payload))

    async def _control(self, message: dict[str, Any]) -> None:
        if message.get("op") == "exited":
            code = message.get("code")
            self.returncode = code if isinstance(code, int) else -1
            self.exited.set_result(None)
        elif message.get("op") == "leaving" and isinstance(message.get("why"), str):
            self.lost = message["why"][:300]  # (its pis are closed: their exits come next)
        elif message.get("op") == "stopped" and isinstance(message.get("by"), str):
            self.stopped_by = message["by"][:100]
        elif message.get("op") == "taken":
            self.taken = by if isinstance(by := message.get("by"), dict) else {}
        elif message.get("op") == "snapshot":
            self._rebuilt = _rebuilt(message)
        elif message.get("op") == "left":
            self.kept = True
            self.exited.set_result(None)
        elif message.get("op") == "answered" and isinstance(message.get("id"), str) and self.on_answered:
            answered, on_answered = message["id"], self.on_answered
            await self.stdout.put(lambda: on_answered(answered))  # (after the lines read before it)

    def send_signal(self, sig: int) -> None:
        if not self._writer.is_closing():
            self._writer.write(frames.control(op="signal", signal=int(sig)))

    def kill(self) -> None:
        self.send_signal(9)

    def close_pipes(self) -> None:
        self._writer.close()

    def report_draft(self, draft: str) -> None:
        """Tell the holder what is typed and not sent, whole, in pieces: what it keeps for the
        next window if this one goes (however it goes)."""
        if self._writer.is_closing():
            return
        pieces = range(0, len(draft), DRAFT_PIECE) if draft else range(1)
        for start in pieces:
            piece = draft[start : start + DRAFT_PIECE]
            try:
                frame = frames.control(op="draft", text=piece, more=start + DRAFT_PIECE < len(draft))
            except UnicodeEncodeError:  # (a lone surrogate, which JSON cannot carry)
                frame = frames.control(op="draft", text=piece.encode("utf-8", "replace").decode("utf-8"),
                                       more=start + DRAFT_PIECE < len(draft))
            self._writer.write(frame)

    def detach(self, draft: str | None = None) -> None:
        """Stop watching, leaving `draft` (what was typed and not sent) to the next window;
        pi goes on in the holder."""
        if draft is not None:
            self.report_draft(draft)
        self._detached = True
        if not self._writer.is_closing():
            self._writer.write(frames.control(op="detach"))
        self._writer.close()

    async def written(self, timeout: float) -> None:
        """Wait (at most `timeout` s) until what was written to the holder is sent."""
        with contextlib.suppress(TimeoutError, ConnectionError, OSError):
            if self._writer.is_closing():
                await asyncio.wait_for(self._writer.wait_closed(), timeout)
            else:
                await asyncio.wait_for(self._writer.drain(), timeout)


class HeldClient(RpcClient):
    """A client of a pi the holder keeps: `spawn` (the argv, env and cwd to start) or
    `number` (a held pi to attach to, taking `drafts`). `window` is what windows attaching
    later are told of it."""

    def __init__(self, argv: list[str], *, holder_env: Mapping[str, str], number: int | None = None,
                 window: dict[str, Any] | None = None, idle_close: float | None = None,
                 drafts: tuple[str, ...] = (), resumes: int | None = None, **kwargs: Any) -> None:
        super().__init__(argv, **kwargs)
        self.holder_env = holder_env
        self.number = number
        self.drafts = drafts  # the drafts windows left that this one puts in its prompt, at an attach
        self.resumes = resumes  # the number of a pi the holder closed idle, started again here
        self.window = window or {}
        self.idle_close = idle_close
        self.snapshot: Snapshot | None = None  # an attach's start, once start() returned
        self.hello: dict[str, Any] = {}
        self._prefix = "pideck-"
        self._early: Any = None  # a connection whose request was written before the loop ran (early.py)

    def adopt_socket(self, sock: Any) -> None:
        """`sock` (protocol.hold.early.ask_early's) carries this client's request already."""
        self._early = sock

    async def start(self) -> None:
        if self.process is None and self.exited is None:
            try:
                self.process = await self._open()  # type: ignore[assignment]
            except HoldError as exc:
                self._finish(ChildExited(returncode=None, stderr_tail="", error=str(exc)))
                return
        await super().start()

    def holder_request(self) -> dict[str, Any]:
        """What this client asks of the holder: the spawn of its pi, or an attach."""
        if self.number is not None:
            return {"op": "attach", "protocol": frames.PROTOCOL, "number": self.number, "drafts": list(self.drafts)}
        request = spawn_request(self.argv, self.env or os.environ, os.fspath(self.cwd or os.getcwd()), self.window,
                                self.idle_close)
        if self.resumes is not None:
            request |= {"resumes": self.resumes, "drafts": list(self.drafts)}
        return request

    def _finish(self, exited: ChildExited) -> None:
        if (by := getattr(self.process, "stopped_by", None)) is not None:
            exited = msgspec.structs.replace(exited, stopped_by=by)
        super()._finish(exited)

    def next_id(self) -> str:
        return f"{self._prefix}{next(self._ids)}"

    def exit_error(self) -> str | None:
        return getattr(self.process, "lost", None)

    @property
    def taken(self) -> dict[str, Any] | None:
        """Who had pi's session file open when this pi opened it (the holder closes this one)."""
        return getattr(self.process, "taken", None)

    @property
    def kept(self) -> bool:
        """This window quit, and pi goes on for another window that shows it."""
        return bool(getattr(self.process, "kept", False))

    def detach(self, draft: str | None = None) -> None:
        """Leave pi to the holder (and `draft` to the next window): no exit is reported for it."""
        process = self.process
        if isinstance(process, HeldChild):
            self._listeners.clear()
            process.detach(draft)

    def report_draft(self, draft: str) -> None:
        """What is typed and not sent, for the holder to keep if this window goes (HeldChild's)."""
        if isinstance(self.process, HeldChild):
            self.process.report_draft(draft)

    async def written(self, timeout: float) -> None:
        """Wait, at most `timeout` s, until what was written to the holder is sent."""
        if isinstance(self.process, HeldChild):
            await self.process.written(timeout)

    async def _open(self) -> HeldChild:
        """The holder's hello to this client's request, then its child. A holder that closed
        the connection before its hello, or said it is ending, is asked again: a new one is
        started (the one ending has taken its socket away)."""
        early, self._early = self._early, None
        for attempt in range(OPEN_TRIES):
            if early is not None:
                reader, writer = await asyncio.open_unix_connection(sock=early, limit=1 << 20)
                early = None
            else:
                reader, writer = await connect_holder(self.holder_env)
                writer.write(frames.control(**self.holder_request()))
            framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
            pending: list[tuple[bytes, bytes]] = []
            try:
                hello = await _next_control(reader, framer, pending)
            except NoHello:
                writer.close()
                if attempt + 1 < OPEN_TRIES:
                    continue
                raise
            if hello.get("leaving") is True and self.number is None and attempt + 1 < OPEN_TRIES:
                writer.close()
                continue
            break
        if hello.get("error") or hello.get("protocol") != frames.PROTOCOL:
            writer.close()
            raise HoldError(str(hello.get("error") or "the holder running is another pideck's, which this one cannot "
                                "talk to: `pideck stop --all` ends it and its pis (a new one starts on demand)"))
        self.hello = hello
        self._prefix = str(hello.get("prefix") or "") + "pideck-"
        if self.number is not None:
            self.snapshot = await _snapshot(reader, framer, pending)
        child = HeldChild(reader, writer, framer, hello, pending)
        child.on_answered = lambda request_id: self._emit(DialogAnswered(id=request_id))
        child.on_caught_up = lambda snapshot: self._emit(CaughtUp(history=snapshot.history))
        child.reattach = self.reattach
        return child

    async def reattach(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, frames.FrameReader, Snapshot,
                                      list[tuple[bytes, bytes]]]:
        """A new connection to this window's pi, where its link to the holder broke (no holder
        is started for it: HoldError where none answers, or it no longer holds that pi):
        its reader, writer and framer, its cut, and the frames read after the cut. pi's
        answers still awaited went with the old link: those requests fail."""
        number = self.hello.get("number")
        reader, writer = await connect_holder(self.holder_env, start=False)
        try:
            writer.write(frames.control(op="attach", protocol=frames.PROTOCOL, number=number))
            framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
            pending: list[tuple[bytes, bytes]] = []
            hello = await _next_control(reader, framer, pending)
            if hello.get("error") or hello.get("protocol") != frames.PROTOCOL:
                raise HoldError(str(hello.get("error") or "another holder"))
            snapshot = await _snapshot(reader, framer, pending)
        except BaseException:
            writer.close()
            raise
        self._prefix = str(hello.get("prefix") or "") + "pideck-"
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RpcError("the link to pideck's holder broke (made again): pi's answer went with it"))
        self._pending.clear()
        return reader, writer, framer, snapshot, pending


def held_number(client: RpcClient) -> int | None:
    """The number `pideck ls` gives the pi `client` reaches, while it runs held; else None."""
    if isinstance(client, HeldClient) and client.running:
        number = client.hello.get("number")
        return number if isinstance(number, int) else None
    return None


class NoHello(HoldError):
    """The holder closed the connection before it answered (it was leaving, or went)."""

async def _frames(reader: asyncio.StreamReader, framer: frames.FrameReader, pending: list[tuple[bytes, bytes]]) -> tuple[bytes, bytes]:
    """The next frame from the holder during a handshake."""
    while not pending:
        chunk = await reader.read(1 << 20)
        if not chunk:
            raise NoHello(HOLDER_GONE)
        try:
            pending.extend(framer.feed(chunk))
        except frames.BadFrame as exc:
            raise HoldError(f"the holder sent what pideck cannot read: {exc}") from None
    return pending.pop(0)


async def _next_control(reader: asyncio.StreamReader, framer: frames.FrameReader,
                        pending: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    kind, payload = await _frames(reader, framer, pending)
    if kind != frames.CONTROL:
        raise HoldError("the holder did not say hello")
    try:
        return frames.read_control(payload)
    except frames.BadFrame as exc:
        raise HoldError(str(exc)) from None


async def _snapshot(reader: asyncio.StreamReader, framer: frames.FrameReader,
                    pending: list[tuple[bytes, bytes]]) -> Snapshot:
    message = await _next_control(reader, framer, pending)
    if message.get("op") != "snapshot":
        raise HoldError("that pi has exited" if message.get("op") == "exited" else "the holder sent no cut")
    kind, payload = await _frames(reader, framer, pending)
    return snapshot_of(payload if kind == frames.MESSAGES else b"", _rebuilt(message))


def snapshot_of(payload: bytes, rebuilt: int) -> Snapshot:
    """A cut's `m` frame (pi's answer to get_messages) as a Snapshot; HoldError if it is not one."""
    response = decode(payload) if payload else None
    if not isinstance(response, Response) or not isinstance(response.data, MessageList):
        raise HoldError("pi's messages could not be read at the attach")
    return Snapshot(response.data.messages, rebuilt)


def _rebuilt(message: dict[str, Any]) -> int:
    rebuilt = message.get("rebuilt")
    return rebuilt if isinstance(rebuilt, int) and rebuilt >= 0 else 0


async def connect_holder(env: Mapping[str, str], start: bool = True) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the user's holder, started if none listens (with `start`; early.py's, in a thread)."""
    sock = await asyncio.to_thread(holder_socket, env, start)
    return await asyncio.open_unix_connection(sock=sock, limit=1 << 20)
