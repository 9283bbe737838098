"""The link to a pi the holder keeps (protocol/wire/link.py): a window's connection to the
holder's socket, where pi's stdin, stdout and stderr are frames (frames.py) and its exit
is what the holder says (or, if the holder itself goes, an exit whose error says so).

The holder splits pi's stdout on LF and sends whole lines, many to a frame: a frame's
payload is cut at its LFs here, and nothing else is split or joined on the way to the
client. Three things more come from it, in their place among pi's lines:
`DialogAnswered`, when another window answered a dialog of the pi they share; `CaughtUp`,
when the window is drawn again from a fresh cut (the holder caught it up, as it fell
behind); `Relinked` then `CaughtUp`, when its link to the holder broke and it attached
again. Only a holder that does not answer, or no longer holds its pi, ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from typing import Any, Protocol

import msgspec

from protocol.hold import frames
from protocol.hold.early import HoldError, holder_socket, spawn_request
from protocol.wire.child import end
from protocol.wire.client import RpcClient
from protocol.wire.codec import ProtocolError, decode
from protocol.wire.extension_ui import CaughtUp, DialogAnswered
from protocol.wire.link import Hello, LinkError, Relinked, Snapshot, Start
from protocol.wire.redact import Redactor
from protocol.wire.responses import MessageList, Response

OPEN_TRIES = 3  # connections to the holder tried before a window says why pi cannot start
QUEUED_FRAMES = 256  # frames of pi's stdout read ahead of the client: beyond, the socket waits
DRAFT_PIECE = 1 << 18  # characters of a draft per control frame (at most 6 bytes each in JSON: well under MAX_CONTROL)
REATTACH_WAIT = 30.0  # seconds a window may wait for the holder's answer when it attaches again
RETRY_FIRST, RETRY_MOST = 0.5, 30.0  # seconds between tries to reach a holder that did not answer (doubling)
HOLDER_GONE = "pideck's holder went away (killed?): pi's runs it held are lost; `pideck --restore` resumes the sessions from pi's files"

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter, frames.FrameReader]


class Opener(Protocol):
    """The way to the holder: a connection to it (`connect_holder` for the user's own here;
    ssh_link.py's for one on another host), started if none listens with `start`; HoldError
    says why not, its `Unreachable` when trying again later may reach it."""

    async def __call__(self, env: Mapping[str, str], start: bool = True) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]: ...


class HeldLink:
    """A held pi: `spawn` it (`argv`, `env`, `cwd`), or attach to the one numbered `number`,
    taking `drafts`. `window` is what windows attaching later are told of it; `resumes`, the
    number of a pi the holder closed idle, started again here. `opener` is the way to the
    holder (the user's own, on this host, by default)."""

    holder_claims = True

    def __init__(self, argv: list[str], *, holder_env: Mapping[str, str], env: Mapping[str, str] | None = None,
                 cwd: str | os.PathLike[str] | None = None, number: int | None = None,
                 window: dict[str, Any] | None = None, idle_close: float | None = None, drafts: tuple[str, ...] = (),
                 resumes: int | None = None, early: Any = None, opener: Opener | None = None) -> None:
        """`early`: a connection whose request was written before the loop ran (early.py's ask_early)."""
        self.opener: Opener = opener or connect_holder
        self.argv = list(argv)
        self.holder_env = holder_env
        self.env = env
        self.cwd = cwd
        self.number = number
        self.window = window or {}
        self.idle_close = idle_close
        self.drafts = drafts
        self.resumes = resumes
        self.hello: Hello | None = None
        self.returncode: int | None = None
        self.exit_error: str | None = None  # why the holder is gone, if it went
        self.stopped_by: str | None = None  # who ended pi from outside (`pideck stop`), as the holder said
        self.taken: dict[str, Any] | None = None  # who had pi's session file open first (pi is being closed)
        self.kept = False  # this window quit, and pi stays for another window that shows it
        self._early = early
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
        self._prefix = "pideck-"
        self._out: asyncio.Queue[list[Any]] = asyncio.Queue(QUEUED_FRAMES)
        self._err: asyncio.Queue[bytes] = asyncio.Queue(QUEUED_FRAMES)
        self._stdout_ended = False
        self._exited: asyncio.Future[None] | None = None
        self._rebuilt = 0  # what the cut under way said of the run's messages
        self._detached = False
        self._task: asyncio.Task[None] | None = None

    # --- reaching pi ------------------------------------------------------------------------

    async def start(self) -> Start:
        try:
            (reader, writer, framer), hello, snapshot, ahead = await self._open()
        except HoldError as exc:
            raise LinkError(str(exc)) from None
        self._reader, self._writer, self._framer = reader, writer, framer
        self._take_hello(hello)
        self._exited = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._demux(ahead), name=f"held-pi-{hello.number}")
        return Start(hello=hello, snapshot=snapshot)

    def holder_request(self) -> dict[str, Any]:
        """What this link asks of the holder: the spawn of its pi, or an attach."""
        if self.number is not None:
            return {"op": "attach", "protocol": frames.PROTOCOL, "number": self.number, "drafts": list(self.drafts)}
        request = spawn_request(self.argv, self.env or os.environ, os.fspath(self.cwd or os.getcwd()), self.window,
                                self.idle_close)
        if self.resumes is not None:
            request |= {"resumes": self.resumes, "drafts": list(self.drafts)}
        return request

    async def _open(self) -> tuple[Connection, Hello, Snapshot | None, list[tuple[bytes, bytes]]]:
        """The holder's hello to this link's request, and the cut for an attach. A holder that
        closed the connection before its hello, or said it is ending, is asked again: a new
        one is started (the one ending has taken its socket away)."""
        early, self._early = self._early, None
        for attempt in range(OPEN_TRIES):
            if early is not None:
                reader, writer = await asyncio.open_unix_connection(sock=early, limit=1 << 20)
                early = None
            else:
                reader, writer = await self.opener(self.holder_env)
                writer.write(frames.control(**self.holder_request()))
            framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
            pending: list[tuple[bytes, bytes]] = []
            try:
                message = await _next_control(reader, framer, pending)
            except NoHello:
                writer.close()
                if attempt + 1 < OPEN_TRIES:
                    continue
                raise
            if message.get("leaving") is True and self.number is None and attempt + 1 < OPEN_TRIES:
                writer.close()
                continue
            break
        try:
            self.hello = hello = _hello(message)  # (said at once: an attach's cut may wait on pi)
            snapshot = await _snapshot(reader, framer, pending) if self.number is not None else None
        except BaseException:
            writer.close()
            raise
        return (reader, writer, framer), hello, snapshot, pending

    def _take_hello(self, hello: Hello) -> None:
        self.hello = hello
        self._prefix = hello.prefix + "pideck-"

    async def _reattach(self) -> tuple[Connection, Hello, Snapshot, list[tuple[bytes, bytes]]]:
        """A new connection to this window's pi, where its link to the holder broke (no holder
        is started for it: HoldError where none answers, or it no longer holds that pi): the
        holder's hello, its cut, and the frames read after the cut."""
        assert self.hello is not None
        reader, writer = await self.opener(self.holder_env, start=False)
        try:
            writer.write(frames.control(op="attach", protocol=frames.PROTOCOL, number=self.hello.number))
            framer = frames.FrameReader(frames.FROM_HOLDER, frames.MAX_FROM_HOLDER)
            pending: list[tuple[bytes, bytes]] = []
            hello = _hello(await _next_control(reader, framer, pending))
            snapshot = await _snapshot(reader, framer, pending)
        except BaseException:
            writer.close()
            raise
        return (reader, writer, framer), hello, snapshot, pending

    @property
    def spawned(self) -> bool:
        return self._writer is not None

    # --- reading ------------------------------------------------------------------------

    async def read(self) -> list[Any]:
        if self._stdout_ended:
            return []
        items = await self._out.get()
        self._stdout_ended = not items
        return items

    @property
    def pending(self) -> int:
        return self._framer.pending

    async def read_stderr(self) -> bytes:
        return await self._err.get()

    @property
    def exited(self) -> asyncio.Future[None]:
        assert self._exited is not None
        return self._exited

    async def _demux(self, ahead: list[tuple[bytes, bytes]]) -> None:
        exited = self.exited
        try:
            await self._frames(ahead)
            while not exited.done():
                assert self._reader is not None
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
            if not exited.done() and not self._detached:
                self.exit_error = HOLDER_GONE
            await self._out.put([])
            await self._err.put(b"")
            if self._writer is not None:
                self._writer.close()
            if not exited.done():
                exited.set_result(None)

    async def _attach_again(self) -> bool:
        """The link to the holder broke: a new one to the same pi, drawn again from its cut;
        False where the holder does not answer or no longer holds this pi; where it cannot be
        reached now (`Unreachable`: a host over a link that is down), tried again with backoff
        until it answers or the window leaves. pi's answers still awaited went with the old
        link: those requests fail (`Relinked`)."""
        if self.exited.done() or self.exit_error is not None:  # (an error: the holder said it leaves)
            return False
        wait = RETRY_FIRST
        while True:
            try:
                connection, hello, snapshot, pending = await asyncio.wait_for(self._reattach(), REATTACH_WAIT)
                break
            except Unreachable:
                if self._detached:
                    return False
                await asyncio.sleep(wait)
                wait = min(wait * 2, RETRY_MOST)
            except (HoldError, OSError, TimeoutError):
                return False
        if self._writer is not None:
            self._writer.close()
        self._reader, self._writer, self._framer = connection
        self._take_hello(hello)
        await self._out.put([Relinked(), CaughtUp(history=snapshot.history)])
        await self._frames(pending)
        return True

    async def _frames(self, read: list[tuple[bytes, bytes]]) -> None:
        for kind, payload in read:
            if kind == frames.STDOUT:  # (whole lines pi wrote, each ending in LF)
                lines = payload.split(b"\n")
                if not lines[-1]:
                    lines.pop()
                if lines:
                    await self._out.put(lines)
            elif kind == frames.MESSAGES:  # a fresh cut: the holder caught this window up
                await self._out.put([CaughtUp(history=snapshot_of(payload, self._rebuilt).history)])
            elif kind == frames.STDERR:
                with contextlib.suppress(asyncio.QueueFull):  # (dropped when full: its tail is what matters)
                    self._err.put_nowait(payload)
            elif kind == frames.CONTROL:
                await self._control(frames.read_control(payload))

    async def _control(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "exited":
            code = message.get("code")
            self.returncode = code if isinstance(code, int) else -1
            self.exited.set_result(None)
        elif op == "leaving" and isinstance(message.get("why"), str):
            self.exit_error = message["why"][:300]  # (its pis are closed: their exits come next)
        elif op == "stopped" and isinstance(message.get("by"), str):
            self.stopped_by = message["by"][:100]
        elif op == "taken":
            self.taken = by if isinstance(by := message.get("by"), dict) else {}
        elif op == "snapshot":
            self._rebuilt = _rebuilt(message)
        elif op == "left":
            self.kept = True
            self.exited.set_result(None)
        elif op == "dropped" and isinstance(head := message.get("head"), str):  # (a line of pi's too long to keep)
            size = size if isinstance(size := message.get("size"), int) else 0
            raw = head.encode("utf-8", "replace")
            await self._out.put([ProtocolError(raw=raw, error=f"line longer than {size:,} bytes; dropped")])
        elif op == "answered" and isinstance(message.get("id"), str):
            await self._out.put([DialogAnswered(id=message["id"])])

    # --- writing and ending ---------------------------------------------------------------

    def write(self, data: bytes) -> None:
        assert self._writer is not None
        self._writer.write(frames.frame(frames.STDIN, data))

    async def drain(self) -> None:
        assert self._writer is not None
        await self._writer.drain()

    def write_idle(self) -> bool:
        return self._writer is not None and not self._writer.transport.get_write_buffer_size()

    def _control_frame(self, frame: bytes) -> None:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(frame)

    def close_stdin(self) -> None:
        """pi is to end: the holder closes its stdin (then signals it if it lingers)."""
        self._control_frame(frames.control(op="close_stdin"))

    def send_signal(self, sig: int) -> None:
        self._control_frame(frames.control(op="signal", signal=int(sig)))

    async def end(self, grace: float, term_grace: float) -> None:
        if self._exited is not None:
            await end(self, grace, term_grace)

    def kill(self) -> None:
        self.send_signal(9)

    def close_pipes(self) -> None:
        if self._writer is not None:
            self._writer.close()

    @property
    def pid(self) -> int | None:
        return self.hello.pid if self.hello is not None else None

    @property
    def id_prefix(self) -> str:
        return self._prefix

    @property
    def held(self) -> int | None:
        return self.hello.number if self.hello is not None else None

    # --- leaving it to the holder -------------------------------------------------------------

    def report_draft(self, draft: str) -> None:
        """Tell the holder what is typed and not sent, whole, in pieces: what it keeps for the
        next window if this one goes (however it goes)."""
        if self._writer is None or self._writer.is_closing():
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

    def detach(self, draft: str | None) -> None:
        """Stop watching, leaving `draft` (what was typed and not sent) to the next window;
        pi goes on in the holder."""
        if self._writer is None:
            return
        if draft is not None:
            self.report_draft(draft)
        self._detached = True
        self._control_frame(frames.control(op="detach"))
        self._writer.close()

    async def written(self, timeout: float) -> None:
        """Wait (at most `timeout` s) until what was written to the holder is sent."""
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(TimeoutError, ConnectionError, OSError):
            if writer.is_closing():
                await asyncio.wait_for(writer.wait_closed(), timeout)
            else:
                await asyncio.wait_for(writer.drain(), timeout)


def held_client(argv: list[str], *, holder_env: Mapping[str, str], env: Mapping[str, str] | None = None,
                cwd: str | os.PathLike[str] | None = None, number: int | None = None,
                window: dict[str, Any] | None = None, idle_close: float | None = None, drafts: tuple[str, ...] = (),
                resumes: int | None = None, early: Any = None, opener: Opener | None = None, **options: Any) -> RpcClient:
    """The client of a held pi (see HeldLink; `options`: RpcClient's), its stderr redacted of
    `env`'s credentials unless a redactor is given."""
    link = HeldLink(argv, holder_env=holder_env, env=env, cwd=cwd, number=number, window=window,
                    idle_close=idle_close, drafts=drafts, resumes=resumes, early=early, opener=opener)
    options.setdefault("redactor", Redactor.from_env(env if env is not None else os.environ))
    return RpcClient(link, **options)


class Unreachable(HoldError):
    """The holder could not be reached now (its host, over a link that is down): worth another try."""


class NoHello(HoldError):
    """The holder closed the connection before it answered (it was leaving, or went)."""


def _hello(message: dict[str, Any]) -> Hello:
    """The holder's hello, typed; HoldError where it refused, or is another pideck's."""
    if message.get("error") or message.get("protocol") != frames.PROTOCOL:
        raise HoldError(str(message.get("error") or "the holder running is another pideck's, which this one cannot "
                            "talk to: `pideck stop --all` ends it and its pis (a new one starts on demand)"))
    try:
        return msgspec.convert(message, Hello)
    except msgspec.ValidationError as exc:
        raise HoldError(f"the holder's hello could not be read: {exc}") from None


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
