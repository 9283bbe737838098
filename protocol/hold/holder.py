"""The holder's server: the socket, its connections, and the held pis.

A connection's first frame is a control object naming what it wants:
- `{"op": "spawn", "protocol": 1, "argv": [...], "env": {...}, "cwd": "...", "window": {...},
  "idle_close": s}`: pi started (its argv run as it is, never by a shell); the connection then
  watches it. With `"spawned": token`, the pi a holder forked by that window spawned before
  it served (early.py) is the one it watches.
- `{"op": "attach", "protocol": 1, "number": N}`: the connection watches pi N from a cut
  (held_pi.py).
A spawn or attach of another protocol is refused (a window of another pideck version).
- `{"op": "list"}`: the held pis, answered and closed.
- `{"op": "stop", "number": N}` or `{"op": "stop", "all": true}`: those pis closed in order,
  each window showing one told `{"op": "stopped", "by": "pideck stop"}` first; the answer
  says what each was doing then.
A hello says the pi's `state` (as `pideck ls` does) and how many other `windows` show it.
Numbers go on from the last holder's (kept in its folder).
A watching connection sends `i` frames (lines for pi) and controls `close_stdin` (pi is
closed; only the window leaves while another one watches, and is told `left`), `signal`,
`draft` (the text typed and not sent, in pieces: `text`, `more` while one follows; when the
window leaves it is kept for the next, which `list` gives with `drafts`, and an attach's
`drafts` names those the window took) and `detach`. A line of pi's too long to keep is
dropped, and each watching window told `{"op": "dropped", "head": ..., "size": N}` in its
place (a request it answered fails, as with a pi of the window's own). A pi closed idle is listed on (no pid,
its `session_file`) until a spawn that `resumes` its number starts it again on that file.
Peers of another uid are refused; what a peer sends that is not a frame, or a frame of the
wrong kind or size, or a control of the wrong types (controls.py), ends that connection and
nothing else. While pi does not read its stdin, the lines a window sends wait in the window
(the holder stops reading it).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.hold import controls, frames
from protocol.hold.held_pi import HeldPi, Watcher
from protocol.hold.listen import Listening, take
from protocol.hold.place import UnsafePlace, check_folder, peer_uid
from protocol.hold.stalls import watch_stalls
from protocol.numbers import parse_int

LINGER = 10.0  # seconds the holder stays with no pi and no window
FIRST_WAIT = 30.0  # seconds a holder just started waits for its first window at least
DEFAULT_IDLE_CLOSE = 300.0  # seconds a pi with no window, no run and no open dialog lives on (PIDECK_HOLD_IDLE)
RESTING_FOR = 24 * 3600.0  # seconds the holder lists a pi it closed idle, to bring it back on its session file
BOUND_CHECK = 1.0  # seconds between looks at whether the socket is still there
STDIN_BEHIND = 1 << 20  # bytes for pi's stdin kept while pi does not read them; beyond, the window's socket waits
NUMBER_NAME = "next-number"  # the number the next pi gets, so that a new holder's go on from the last one's
STOPPED_BY = "pideck stop"


class Holder:
    def __init__(self, folder: Path, log: Callable[[str], None], linger: float = LINGER,
                 first: tuple[str, subprocess.Popen[bytes]] | None = None) -> None:
        self.folder = folder
        self.log = log
        self.linger = linger
        self.pis: dict[int, HeldPi] = {}
        self.resting: dict[int, dict[str, Any]] = {}  # the pis closed idle, as listed (they come back on their session file)
        self.connections = 0
        self.leaving: str | None = None  # why the holder ends in order (a signal), once it does
        self._last_number = 0
        self._windows = itertools.count(1)
        self._quiet = asyncio.Event()
        self._served = False  # a window has come
        self._server: asyncio.AbstractServer | None = None
        self._listening: Listening | None = None
        self._first = first  # the pi spawned before the loop ran, for the window that started the holder
        self._unbound = False  # its socket was removed and could not be made again yet

    async def serve(self, listening: Listening) -> None:
        """Serve on `listening` until nothing has been held for `linger` s (at least
        FIRST_WAIT before the first window came: the one that started it, however loaded its
        machine, finds it listening), or SIGTERM, SIGINT or SIGHUP: then no window can connect
        any more, the windows are told, the pis closed in order, the socket and the lock
        removed. A socket removed under it (its folder with it, at a logout) is made again."""
        loop = asyncio.get_running_loop()
        self._listening = listening
        self._server = await asyncio.start_unix_server(self._connection, sock=listening.sock)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, self._leave, signal.Signals(sig).name)
        keeper = asyncio.create_task(self._keep_bound())
        probe = asyncio.create_task(watch_stalls(self.log)) if os.environ.get("PIDECK_HOLD_STALLS") == "1" else None
        unclaimed = loop.call_later(FIRST_WAIT, self._end_first, "nobody asked for it")
        try:
            while not self.leaving:
                self._quiet.clear()
                if not self.pis and not self.connections and not self.resting:
                    wait = self.linger if self._served else max(self.linger, FIRST_WAIT)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._quiet.wait(), wait)
                        continue
                    if not self.pis and not self.connections and not self.resting:
                        return
                await self._quiet.wait()
        finally:
            keeper.cancel()
            if probe is not None:
                probe.cancel()
            unclaimed.cancel()
            self._end_first("the holder ends")
            self._stop_listening()
            if self.leaving:
                notice = frames.control(op="leaving", why=f"pideck's holder was ended ({self.leaving}); it closed its pis")
                for pi in self.pis.values():
                    for watcher in pi.watchers:
                        watcher.send(notice)
            await asyncio.gather(*(pi.close() for pi in self.pis.values()), return_exceptions=True)
            self._listening.release(remove=True)

    def _end_first(self, why: str) -> None:
        """The pi spawned for the window that started the holder, never asked for: ended."""
        if self._first is not None:
            _token, popen = self._first
            self._first = None
            self.log(f"the pi spawned at the start (pid {popen.pid}) ended: {why}")
            with contextlib.suppress(OSError):
                popen.kill()
            popen.wait()

    def _leave(self, why: str) -> None:
        if self.leaving is None:
            self.leaving = why
            self.log(f"{why}: closing the pis, then leaving")
            self._stop_listening()  # (first: a window starting now starts a new holder)
            self._changed()

    def _stop_listening(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._listening is not None:
            self._listening.unlink_socket()

    async def _keep_bound(self) -> None:
        """Each BOUND_CHECK s: the socket made again if it was removed."""
        tick = getattr(self.log, "tick", None)  # (holder.log writes the counts of lines said too often)
        while True:
            await asyncio.sleep(BOUND_CHECK)
            if tick is not None:
                tick()
            if self._listening is not None and not self._listening.present():
                if not await self._bind_again():
                    return

    async def _bind_again(self) -> bool:
        """Make the folder, the lock and the socket again (the folder was removed: a logout);
        False once another holder serves there."""
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.folder, 0o700)
            check_folder(self.folder)
            listening = take(self.folder, wait=0)
        except (OSError, UnsafePlace) as exc:
            if not self._unbound:  # (said once: the runtime folder may be gone for days, till the next login)
                self.log(f"the socket was removed and cannot be made again yet: {exc}")
            self._unbound = True
            return True
        self._unbound = False
        reopen = getattr(self.log, "reopen", None)
        if reopen is not None:
            reopen()
        if listening is None:
            self.log(f"the socket was removed, and another holder serves {self.folder} now: this one serves the "
                     "windows it has until its pis end")
            return False
        assert self._listening is not None and self._server is not None
        self._server.close()
        self._listening.release(remove=False)
        self._listening = listening
        self._server = await asyncio.start_unix_server(self._connection, sock=listening.sock)
        self.log(f"the socket was removed (a logout removes the runtime folder); listening again on {listening.path}")
        return True

    def _changed(self) -> None:
        self._quiet.set()

    # --- connections --------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        if uid != os.getuid():
            self.log(f"refused a peer of uid {uid}")
            writer.close()
            return
        self.connections += 1
        self._served = True
        self._changed()
        connection = Connection(self, reader, writer)
        try:
            await connection.run()
        except frames.BadFrame as exc:
            self.log(f"a window sent what is not a frame: {exc}; its connection is closed")
        except (ConnectionError, OSError):
            pass
        except Exception as exc:  # noqa: BLE001 (one peer ends its own connection, whatever it sent)
            self.log(f"a window's connection failed ({exc!r:.200}); it is closed")
        finally:
            connection.close()
            self.connections -= 1
            self._changed()

    async def spawn(self, request: controls.Spawn) -> HeldPi:
        if not request.argv:
            raise ValueError("spawn: argv is empty")
        idle = request.idle_close
        idle_close = idle if idle is not None and 0 < idle < 1e9 else DEFAULT_IDLE_CLOSE
        cwd = request.cwd
        spawned = None
        if self._first is not None and request.spawned == self._first[0]:
            spawned, self._first = self._first[1], None
        resting = self.resting.pop(request.resumes, None) if request.resumes is not None else None
        pi = HeldPi(request.resumes if resting is not None else self._next_number(), request.argv,  # type: ignore[arg-type]
                    request.env, cwd, request.window, idle_close, str(self.folder), self.log, self._gone)
        if resting is not None:  # (a pi closed idle, back on its session file: as it was listed)
            pi.drafts, pi.started_at = resting.get("drafts") or [], resting.get("started_at") or pi.started_at
        try:
            await pi.start(spawned)
        except (OSError, ValueError):
            if resting is not None:
                self.resting[pi.number] = resting
            raise
        self.pis[pi.number] = pi
        self.log(f"pi {pi.number} started (pid {pi.pid}) in {cwd}")
        self._changed()
        return pi

    def _next_number(self) -> int:
        """A number no pi held since the holder's folder was made had (it goes at a reboot)."""
        path = self.folder / NUMBER_NAME
        try:
            with open(path, "rb") as file:
                kept = parse_int(file.read(24).decode("ascii", "replace").strip(), 1, low=1)
        except OSError:
            kept = 1
        number = max(kept, self._last_number + 1)
        self._last_number = number
        try:
            with open(os.open(f"{path}.new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600), "w") as file:
                file.write(f"{number + 1}\n")
            os.replace(f"{path}.new", path)
        except OSError as exc:
            self.log(f"the next pi's number could not be kept: {exc}")
        return number

    def _gone(self, pi: HeldPi) -> None:
        self.pis.pop(pi.number, None)
        if pi.session_file is not None:  # closed idle: listed as it was, brought back on its session file
            self.resting[pi.number] = {**pi.summary(drafts=True), "pid": None, "state": "idle", "windows": 0,
                                       "session_file": pi.session_file, "resting": True}
            asyncio.get_running_loop().call_later(RESTING_FOR, self._forget, pi.number, pi.started_at)
        self._changed()

    def _forget(self, number: int, started_at: float) -> None:
        if (resting := self.resting.get(number)) is not None and resting.get("started_at") == started_at:
            del self.resting[number]
            self._changed()

    def listed(self, drafts: bool) -> list[dict[str, Any]]:
        """The held pis and those closed idle, by number (drafts only when asked)."""
        resting = [record if drafts else {k: v for k, v in record.items() if k != "drafts"} for record in self.resting.values()]
        return sorted([*(pi.summary(drafts) for pi in self.pis.values()), *resting], key=lambda pi: pi["number"])

    def next_prefix(self) -> str:
        return f"w{next(self._windows)}-"


class Connection:
    """One peer: a window watching a pi, or a one-off question (list, stop)."""

    def __init__(self, holder: Holder, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.holder = holder
        self.reader = reader
        self.writer = writer
        self.frames = frames.FrameReader(frames.FROM_WINDOW, 0)  # (no line for pi before a spawn or attach)
        self.pi: HeldPi | None = None
        self.watcher: Watcher | None = None

    def send(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def close(self) -> None:
        if self.pi is not None and self.watcher is not None:
            self.pi.leave(self.watcher)
        self.writer.close()

    async def run(self) -> None:
        while chunk := await self.reader.read(1 << 20):
            self.frames.add(chunk)
            while (got := self.frames.next()) is not None:
                kind, payload = got
                if kind == frames.CONTROL:
                    if not await self.control(payload):
                        return
                elif self.pi is None or self.watcher is None:
                    raise frames.BadFrame("a line for pi before a spawn or attach")
                elif (why := self.pi.from_window(self.watcher, payload)) is not None:
                    self.holder.log(f"a line for pi {self.pi.number} refused: {why}")
            await self._room_for_pi()

    async def _room_for_pi(self) -> None:
        """Wait while pi's stdin holds more than STDIN_BEHIND bytes it has not read: this
        window's socket is not read meanwhile, so its lines wait in the window."""
        child = self.pi.child if self.pi is not None else None
        if child is None or child.returncode is not None:
            return
        if child.stdin.transport.get_write_buffer_size() > STDIN_BEHIND:
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                await child.stdin.drain()

    async def control(self, payload: bytes) -> bool:
        """Do what a control frame asks; False when the connection is done."""
        head = controls.read_op(payload)
        holder = self.holder
        if head.op in ("spawn", "attach") and head.protocol != frames.PROTOCOL:
            self.send(frames.control(op="hello", error="this pideck's holder is another version's: `pideck stop "
                                     "--all` ends it and its pis (a new one starts on demand)"))
            return False
        request = controls.read(payload)
        if holder.leaving and isinstance(request, (controls.Spawn, controls.Attach)):
            self.send(frames.control(op="hello", leaving=True, error=f"pideck's holder is ending ({holder.leaving}); "
                                     "its pis are being closed"))
            return False
        if self.pi is None and isinstance(request, controls.Spawn):
            try:
                pi = await holder.spawn(request)
            except (OSError, ValueError) as exc:
                self.send(frames.control(op="hello", error=f"cannot start pi: {getattr(exc, 'strerror', None) or exc}"))
                return False
            self._watch(pi)
            pi.watch(self.watcher)  # type: ignore[arg-type]
            pi.take_drafts(self.watcher, request.drafts)  # type: ignore[arg-type]  # (a pi closed idle, back)
            return True
        if self.pi is None and isinstance(request, controls.Attach):
            pi = holder.pis.get(request.number)
            if pi is None:
                self.send(frames.control(op="hello", error=f"no held pi {request.number}"))
                return False
            self._watch(pi)
            pi.take_drafts(self.watcher, request.drafts)  # type: ignore[arg-type]
            pi.attach(self.watcher)  # type: ignore[arg-type]
            return True
        if isinstance(request, controls.List):
            self.send(frames.control(op="list", protocol=frames.PROTOCOL, holder=os.getpid(), pis=holder.listed(request.drafts)))
            return False
        if isinstance(request, controls.Stop):
            chosen = list(holder.pis.values()) if request.all else [
                pi for pi in holder.pis.values() if pi.number == request.number]
            resting = list(holder.resting) if request.all else [
                number for number in holder.resting if number == request.number]
            for number in resting:
                del holder.resting[number]
            was = [{"number": pi.number, "state": pi.state, "windows": len(pi.watchers)} for pi in chosen]
            was += [{"number": number, "state": "idle", "windows": 0} for number in resting]
            for pi in chosen:  # the windows showing it say why it ends
                for watcher in pi.watchers:
                    watcher.send(frames.control(op="stopped", by=STOPPED_BY))
            await asyncio.gather(*(pi.close() for pi in chosen))
            self.send(frames.control(op="stopped", holder=os.getpid(), numbers=sorted(pi["number"] for pi in was),
                                     pis=sorted(was, key=lambda pi: pi["number"])))
            return False
        if self.pi is not None and isinstance(request, controls.CloseStdin):
            others = [watcher for watcher in self.pi.windows() if watcher is not self.watcher]
            if others:  # a window quits while another shows this pi: it leaves, pi stays
                self.send(frames.control(op="left", windows=len(others)))
                return False
            self.pi.close()
            return True
        if self.pi is not None and isinstance(request, controls.Signal):
            self.pi.signal(request.signal)
            return True
        if self.watcher is not None and isinstance(request, controls.Draft):
            self.watcher.draft_part(request.text, request.more)  # (kept for the next window when it leaves)
            return True
        if isinstance(request, controls.Detach):
            if self.watcher is not None and request.draft is not None:
                self.watcher.draft_part(request.draft, False)
            return False
        raise frames.BadFrame(f"a control frame the holder cannot take here: {head.op[:40]!r}")

    def _watch(self, pi: HeldPi) -> None:
        self.pi = pi
        self.frames.limit = frames.MAX_FRAME
        self.watcher = Watcher(self.writer, self.holder.next_prefix(), pi.catch_up)
        self.send(frames.control(op="hello", protocol=frames.PROTOCOL, number=pi.number, pid=pi.pid, holder=os.getpid(),
                                 prefix=self.watcher.prefix, cwd=pi.cwd, argv=pi.argv, window=pi.window, state=pi.state,
                                 windows=len(pi.watchers)))
