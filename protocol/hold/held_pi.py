"""One pi child the holder owns, the windows that watch it, and what a window attaching
later needs to rebuild it mid-run.

What pi writes goes to every watching window as it is read (a response only to the window
whose request it answers), through a queue of the window's own that is sent at its pace.
The holder keeps: the records of the run in progress (from `agent_start` to
`agent_settled`, in memory up to RUN_MEMORY, then on disk: spool.py), the dialogs still
open, and the last status, widget and title the extensions set. A window attaching gets a
cut of pi's stream: the holder asks pi for its messages, and at the point of pi's answer
hands the window that answer, how many of its messages the run's records rebuild, those
records (read from the spool as the window takes them), and from then on every record
live. A window that falls behind gets a cut again, as one attaching. Nothing is dispatched
here: windows fold the records into their own session model, as they fold a pi of their own.
The session file pi names in its answers to `get_state` is claimed for it (held_claim.py);
when another pi has it open, the windows are told (`taken`) and pi is closed unused.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec

from protocol.hold import frames
from protocol.hold.held_claim import HeldClaim
from protocol.hold.spool import Spool
from protocol.numbers import parse_int
from protocol.wire.child import Child, connect, end
from protocol.wire.client import STDOUT_CLOSED, STDOUT_CLOSED_GRACE
from protocol.wire.framing import LineFramer
from protocol.wire.link import LOGGED
from protocol.wire.spawn import spawn

RUN_MEMORY = 8 << 20  # bytes of a run's records kept in memory; beyond, on disk
SPOOL_FALLBACK = 64 << 20  # bytes of them kept in memory beyond that where the disk refuses them
SECTION_CHUNK = 1 << 20  # bytes of the spool read in one step for a window catching up
MAX_LINE = 512 << 20  # as a pi of the window's own: a longer line is dropped (its head said to the windows)
STDERR_KEPT = 256 << 10  # bytes of pi's stderr a window attaching gets
# bytes of live output a window may leave unread before it is caught up (a setting for the tests)
BEHIND_LIMIT = parse_int(os.environ.get("PIDECK_HOLD_BEHIND", ""), 64 << 20, low=1)
FRAME_LINES = 4 << 20  # bytes of pi's lines put in one frame at most (beyond, a line of its own)
DIALOGS = frozenset({"select", "confirm", "input", "editor"})
MOST_DRAFT = 16 << 20  # characters of a window's unsent text kept for the next one (beyond, it is cut)
MOST_DRAFTS = 32 << 20  # characters of the drafts kept in all, the newest first (beyond, the oldest go, logged)
MOST_KEPT = 256  # open dialogs, and statuses and widgets, kept for windows attaching (the oldest go)
KEPT_UI = {"setStatus": "statusKey", "setWidget": "widgetKey", "setTitle": ""}
SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGKILL})
REST_ASK = 10.0  # seconds pi has to say its session file before it is closed idle all the same


class Head(msgspec.Struct):
    """What the holder reads of a line: its type and, for some, an id, a method, a key."""

    type: str = ""
    id: Any = None
    method: str = ""
    command: Any = None
    timeout: Any = None
    statusKey: Any = None  # noqa: N815 (pi's names)
    widgetKey: Any = None  # noqa: N815


_head = msgspec.json.Decoder(Head)


class _StateData(msgspec.Struct):
    sessionName: Any = None  # noqa: N815 (pi's names)
    sessionFile: Any = None  # noqa: N815


class _StateAnswer(msgspec.Struct):
    """What the holder reads of pi's answer to a get_state: the session's name and file."""

    success: Any = None
    data: _StateData | None = None


_state_answer = msgspec.json.Decoder(_StateAnswer)


def _state(line: bytes) -> _StateData | None:
    """What pi's answer to a get_state says of its session (None where it says nothing)."""
    try:
        answer = _state_answer.decode(line)
    except msgspec.DecodeError:  # (a ValidationError too)
        return None
    return answer.data if answer.success is True else None
DELTA = b'{"type":"message_update",'  # how pi starts a streaming update


def head(line: bytes) -> Head | None:
    try:
        return _head.decode(line)
    except (msgspec.DecodeError, RecursionError):  # (a line nested beyond msgspec's depth: not a record the holder reads)
        return None


class Watcher:
    """A window's connection to one held pi. What goes to it waits in a queue that its writer
    task drains at the window's pace (what the socket takes); pi's lines are `queue`d line by
    line and sent once per read of pi's stdout (`flush`): one frame and one write for many
    lines. A window that leaves more than BEHIND_LIMIT of them unread is never let go: it is
    caught up (`behind`), as tmux redraws a client that fell behind: what waits for it is
    thrown away, save pi's answers to its own requests, and it gets a fresh cut."""

    def __init__(self, writer: asyncio.StreamWriter, prefix: str, behind: Callable[[Watcher], None]) -> None:
        self.writer = writer
        self.prefix = prefix
        self.draft: str | None = None  # the unsent text the window last said it has (None: it said nothing yet)
        self.taken: list[str] = []  # the drafts it took at its attach: kept again if it leaves before saying its own
        self._draft_parts: list[str] = []
        self._behind = behind
        self._items: deque[tuple[bytes | Section, int]] = deque()  # what is to go, and of which kind
        self._size = 0  # bytes of live output waiting
        self._queued: list[bytes] = []
        self._queued_size = 0
        self._wake = asyncio.Event()
        self._current: Section | None = None  # the section being written
        self._falling_behind = False  # its catch-up is due
        self._task = asyncio.create_task(self._write())

    def draft_part(self, text: str, more: bool) -> None:
        """A piece of the window's draft (a long one comes in pieces, each in a control
        frame); the draft is what the pieces make once the last has come, cut to MOST_DRAFT."""
        if sum(map(len, self._draft_parts)) < MOST_DRAFT:
            self._draft_parts.append(text)
        if not more:
            self.draft, self._draft_parts = "".join(self._draft_parts)[:MOST_DRAFT], []

    def queue(self, line: bytes) -> None:
        self._queued.append(line)
        self._queued_size += len(line)
        if self._queued_size > FRAME_LINES:
            self.flush()

    def flush(self) -> None:
        if self._queued:
            self._queued.append(b"")
            data, self._queued, self._queued_size = b"\n".join(self._queued), [], 0
            self.send(frames.frame(frames.STDOUT, data))

    def answer(self, line: bytes) -> None:
        """pi's answer to a request of this window's: it goes in its place, and is kept at a catch-up."""
        self.flush()
        self._put(frames.frame(frames.STDOUT, line + b"\n"), ANSWER)

    def send(self, data: bytes) -> None:
        self._put(data, LIVE)
        if self._size > BEHIND_LIMIT and not self._falling_behind:  # (not now: its pi may be sending to every window)
            self._falling_behind = True
            asyncio.get_running_loop().call_soon(self._behind, self)

    def send_cut(self, item: bytes | Section) -> None:
        """A part of a cut: not counted as the window falling behind (it is the catching up)."""
        self._put(item, CUT)

    def _put(self, item: bytes | Section, kind: int) -> None:
        if self.writer.is_closing():
            return
        self._items.append((item, kind))
        if kind == LIVE:
            self._size += len(item)  # type: ignore[arg-type]
        self._wake.set()

    def throw_away(self) -> None:
        """What waits for it goes, save pi's answers to its requests (a cut follows)."""
        self._queued, self._queued_size = [], 0
        self._close_sections()
        self._items = deque((item, kind) for item, kind in self._items if kind == ANSWER)
        self._size = 0
        self._falling_behind = False

    def close(self) -> None:
        self._task.cancel()
        self._close_sections()
        self._items.clear()

    def _close_sections(self) -> None:
        for item in [self._current, *(item for item, _ in self._items)]:
            if isinstance(item, Section):
                item.close()

    async def _write(self) -> None:
        writer = self.writer
        try:
            while True:
                while not self._items:
                    self._wake.clear()
                    await self._wake.wait()
                item, kind = self._items.popleft()
                if kind == LIVE:
                    self._size -= len(item)  # type: ignore[arg-type]
                if isinstance(item, Section):
                    self._current = item
                    while (data := item.next()) is not None:  # (None too once it was thrown away)
                        writer.write(data)
                        await writer.drain()
                    self._current = None
                    continue
                writer.write(item)
                await writer.drain()
        except (ConnectionError, OSError):
            writer.transport.abort()  # (the connection's reader then sees it end)


LIVE, CUT, ANSWER = 0, 1, 2  # what a watcher's queued item is: pi's output, a part of a cut, an answer to it


class Section:
    """The run's records of a cut, read from the spool a chunk at a time as the window takes
    them (`next`: frames of pi's lines, None at its end): a dialog answered or given up
    since is left out, one still open goes with what is left of its timeout, and the
    dialogs, statuses and widgets kept outside the run follow."""

    def __init__(self, pi: HeldPi, spool: Spool | None, end: int, open_at_cut: list[str]) -> None:
        self.pi = pi
        self.spool = spool
        self.end = end
        self.offset = 0
        self.closed = False
        self._rest = b""
        self._open_at_cut = open_at_cut
        self._replayed: set[str] = set()
        if spool is not None:
            spool.hold()

    def next(self) -> bytes | None:
        if self.closed:
            return None
        if self.spool is not None and self.offset < self.end:
            chunk = self.spool.read(self.offset, min(SECTION_CHUNK, self.end - self.offset))
            self.offset += len(chunk)
            data = self._rest + chunk
            cut = data.rfind(b"\n") + 1
            data, self._rest = data[:cut], data[cut:]
            if b'"extension_ui_request"' in data:
                data = b"".join(self._dialog_now(line) + b"\n" for line in data.split(b"\n")[:-1])
            return frames.frame(frames.STDOUT, data) if data else b""
        self.close()
        return self._after()

    def _dialog_now(self, line: bytes) -> bytes:
        record = head(line) if b'"extension_ui_request"' in line[:200] else None
        if record is None or record.method not in DIALOGS:
            return line
        dialog = self.pi._open_dialogs().get(str(record.id))
        if dialog is None:
            return b""  # answered, or pi gave up on it
        self._replayed.add(str(record.id))
        return dialog.line_now(time.monotonic())

    def _after(self) -> bytes:
        """The dialogs open at the cut that the run's records did not hold, the statuses and
        widgets kept, a note if the spool could not keep all of the run, pi's stderr."""
        now = time.monotonic()
        dialogs = self.pi._open_dialogs()
        lines = [dialogs[key].line_now(now) for key in self._open_at_cut if key not in self._replayed and key in dialogs]
        lines += self.pi.kept_ui.values()
        if self.spool is not None and self.spool.lost:
            lines.append(msgspec.json.encode({
                "type": "extension_ui_request", "id": "pideck-holder-lost", "method": "notify", "notifyType": "warning",
                "message": f"pideck's holder could not keep all of this run's records ({self.spool.failed}): "
                           f"{self.spool.lost:,} bytes of it are not shown"}))
        out = frames.frame(frames.STDOUT, b"".join(line + b"\n" for line in lines)) if lines else b""
        if self.pi.stderr:
            out += frames.frame(frames.STDERR, b"".join(self.pi.stderr))
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.spool is not None:
                self.spool.release()


class OpenDialog(msgspec.Struct):
    line: bytes
    read_at: float
    timeout_ms: float | None

    def left_ms(self, now: float) -> float | None:
        if self.timeout_ms is None:
            return None
        return self.timeout_ms - (now - self.read_at) * 1000

    def line_now(self, now: float) -> bytes:
        """The request as a window attaching now reads it: its timeout what is left of it."""
        left = self.left_ms(now)
        if left is None:
            return self.line
        try:
            record = msgspec.json.decode(self.line)
            record["timeout"] = max(1, int(left))
            return msgspec.json.encode(record)
        except (msgspec.DecodeError, TypeError):
            return self.line


class HeldPi:
    """`number` names it for `pideck ls` and `attach`; `window` is what the window that
    started it said of it, handed back verbatim to windows that attach."""

    def __init__(self, number: int, argv: list[str], env: dict[str, str], cwd: str, window: dict[str, Any],
                 idle_close: float, place: str, log: Callable[[str], None], gone: Callable[[HeldPi], None]) -> None:
        self.number = number
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.window = window
        self.idle_close = idle_close
        self.place = place
        self.log = log
        self._gone = gone
        self.child: Child | None = None
        self.watchers: list[Watcher] = []
        self.returncode: int | None = None
        self.started_at = time.time()
        self.last_activity = time.time()
        self.unseen_end = False  # a run ended with no window watching
        self.run: Spool | None = None
        self.run_message_ends = 0
        self.dialogs: dict[str, OpenDialog] = {}
        self.kept_ui: dict[tuple[str, str], bytes] = {}
        self.drafts: list[str] = []  # what windows that left had typed and not sent, newest first (`pideck attach` puts them back)
        self.name: str | None = None  # the session's name, as pi's last get_state answer said it
        self.claim = HeldClaim(number, env, remote if isinstance(remote := window.get("remote"), str) else None, log)
        self.taken: dict[str, Any] | None = None  # its session file was another pi's: it is closed
        self.stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._cuts: dict[str, Watcher] = {}  # windows attaching, by the id of the get_messages their cut waits on
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._closing: asyncio.Task[None] | None = None
        self._silent: asyncio.Task[None] | None = None  # ends a pi that closed its stdout and lives on
        self._idle_timer: asyncio.TimerHandle | None = None
        self.session_file: str | None = None  # pi's, as it said when it was closed idle (it comes back on it)
        self._resting: str | None = None  # the id of the get_state asked before closing it idle

    # --- life ---------------------------------------------------------------------------

    async def start(self, spawned: subprocess.Popen[bytes] | None = None) -> None:
        """Spawn pi (OSError or ValueError if it cannot be), or take `spawned`, and read it."""
        self.child = await connect(spawned if spawned is not None else spawn(self.argv, self.env, self.cwd))
        self._tasks = [asyncio.create_task(self._read_stdout()), asyncio.create_task(self._read_stderr()),
                       asyncio.create_task(self._watch_exit())]

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child is not None else None

    @property
    def state(self) -> str:
        """What `pideck ls` says of it."""
        if self.returncode is not None:
            return "exited"
        if self._open_dialogs():
            return "needs you"
        if self.run is not None:
            return "working"
        return "done" if self.unseen_end else "idle"

    def summary(self, drafts: bool = False) -> dict[str, Any]:
        """What `pideck ls` shows of it; with `drafts`, the drafts windows left too."""
        summary = {"number": self.number, "pid": self.pid, "cwd": self.cwd, "state": self.state,
                   "windows": len(self.watchers), "last_activity": self.last_activity,
                   "started_at": self.started_at, "window": self.window, "name": self.name,
                   "session_file": self.claim.session_file}
        return {**summary, "drafts": self.drafts} if drafts else summary

    def keep_draft(self, draft: str) -> None:
        """Keep `draft` for the next window, as the newest (once: an equal older one goes)."""
        if not draft.strip():
            return
        kept = [draft, *(older for older in self.drafts if older != draft)]
        while len(kept) > 1 and sum(map(len, kept)) > MOST_DRAFTS:
            kept.pop()
            self.log(f"pi {self.number}: the oldest draft a window left was let go (drafts over {MOST_DRAFTS:,} characters)")
        self.drafts = kept

    def take_drafts(self, watcher: Watcher, taken: list[str]) -> None:
        """A window attaching put `taken` (drafts it listed) in its prompt: they are its own now."""
        watcher.taken = [draft for draft in taken if draft in self.drafts]
        self.drafts = [draft for draft in self.drafts if draft not in watcher.taken]

    def idle_since(self) -> float | None:
        """Since when it has had no run and nobody watching (None: it has)."""
        if self.watchers or self._cuts or self.run is not None:
            return None
        return self.last_activity

    def _arm_idle(self) -> None:
        """Look again when it will have been idle for `idle_close` (it may be by then): a pi
        nobody watches or uses is closed then, so that nothing is held for ever."""
        since = self.idle_since()
        if since is None or self._idle_timer is not None or self.returncode is not None:
            return
        self._idle_timer = asyncio.get_running_loop().call_later(max(0.0, since + self.idle_close - time.time()),
                                                                 self._idle_due)

    def _idle_due(self) -> None:
        self._idle_timer = None
        since = self.idle_since()
        if since is not None and time.time() - since >= self.idle_close and not self._open_dialogs():
            self._resting = asked = f"holder-{next(self._ids)}"  # (its session file first: it comes back on it)
            self.write(msgspec.json.encode({"type": "get_state", "id": asked}) + b"\n")
            asyncio.get_running_loop().call_later(REST_ASK, lambda: self._rest(None) if self._resting == asked else None)
        elif since is not None and time.time() - since >= self.idle_close:  # (a dialog waits: look again later)
            self._idle_timer = asyncio.get_running_loop().call_later(self.idle_close, self._idle_due)
        else:
            self._arm_idle()

    def _rest(self, session_file: str | None) -> None:
        """Close pi, idle: the holder keeps what lists it and brings it back on `session_file`
        (holder.py); without one, it is kept while a window's draft waits in it."""
        if session_file is not None and not self.window.get("remote") and not os.path.isfile(session_file):
            session_file = None  # (pi never wrote it: nothing to come back on)
        self._resting = None
        if self.idle_since() is None or self.returncode is not None:  # (a window came meanwhile)
            self._arm_idle()
            return
        if session_file is None and self.drafts:
            self.log(f"pi {self.number}: idle, but kept: a draft waits in it and it has no session file to come back on")
            return
        self.session_file = session_file
        self.log(f"pi {self.number}: nobody watched or used it for {self.idle_close:g} s; closing it"
                 + (" (it comes back on its session file)" if session_file else ""))
        self.close()

    def close(self, grace: float = 3.0) -> asyncio.Task[None]:
        """Close pi in order: its stdin, then SIGTERM, then SIGKILL."""
        if self._closing is None:
            self._closing = asyncio.create_task(self._close(grace))
        return self._closing

    async def _close(self, grace: float) -> None:
        if self.child is not None:
            await end(self.child, grace)

    def signal(self, number: int) -> None:
        if self.child is not None and number in SIGNALS and self.child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.child.send_signal(number)

    # --- windows ------------------------------------------------------------------------

    def watch(self, watcher: Watcher) -> None:
        """A window that started this pi: it gets every record from now on."""
        self.watchers.append(watcher)

    def attach(self, watcher: Watcher) -> None:
        """A window attaching: it gets the cut at pi's answer to the holder's get_messages."""
        if self.child is None or self.returncode is not None:
            watcher.send(frames.control(op="exited", code=self.returncode))
            return
        request_id = f"holder-{next(self._ids)}"
        self._cuts[request_id] = watcher
        self.write(msgspec.json.encode({"type": "get_messages", "id": request_id}) + b"\n")

    def windows(self) -> list[Watcher]:
        """The windows it has: those watching and those attaching (waiting for their cut)."""
        return [*self.watchers, *self._cuts.values()]

    def leave(self, watcher: Watcher) -> None:
        """A window gone (a detach, a quit, a dropped connection): its draft kept for the next."""
        watcher.close()
        for draft in reversed([watcher.draft] if watcher.draft is not None else watcher.taken):
            self.keep_draft(draft)
        watcher.draft, watcher.taken = None, []
        if watcher in self.watchers:
            self.watchers.remove(watcher)
        for request_id in [key for key, waiting in self._cuts.items() if waiting is watcher]:
            del self._cuts[request_id]
        self.last_activity = time.time()
        self._arm_idle()

    def catch_up(self, watcher: Watcher) -> None:
        """`watcher` fell behind: what waits for it goes and it gets a fresh cut, never let go."""
        if watcher not in self.watchers:
            return  # (it left, or waits for its cut already)
        self.watchers.remove(watcher)
        watcher.throw_away()
        self.log(f"pi {self.number}: a window fell behind; it is caught up from a fresh cut")
        self.attach(watcher)

    def from_window(self, watcher: Watcher, line: bytes) -> str | None:
        """A line a window writes to pi; why it is refused, if it is."""
        line = line.rstrip(b"\n")
        if not line or b"\n" in line:
            return "not one line"
        record = head(line)
        if record is None or not record.type:
            return "not a JSON record"
        if self.taken is not None:
            return "its session file is another pi's, and it is being closed"
        if record.type == "extension_ui_response" and self.dialogs.pop(answered := str(record.id), None) is not None:
            for other in self.watchers:  # (a later answer still goes to pi, which ignores it)
                if other is not watcher:
                    other.send(frames.control(op="answered", id=answered))
        self.last_activity = time.time()
        self.write(line + b"\n")
        return None

    def write(self, line: bytes) -> None:
        child = self.child
        if child is None or self.returncode is not None:
            return
        with contextlib.suppress(OSError, RuntimeError):
            child.stdin.write(line)

    # --- reading ------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        assert self.child is not None
        framer = LineFramer()
        while True:
            chunk = await _read(self.child.stdout, 1 << 20)
            if not chunk:
                if (rest := framer.flush()) is not None:
                    self._line(rest)
                self._flush()
                self._silent = asyncio.create_task(self._end_after_stdout_closed())
                return
            for line in framer.feed(chunk):
                try:
                    self._line(line)
                except Exception as exc:  # noqa: BLE001 (one line must not leave pi unread)
                    self.log(f"pi {self.number}: a line could not be handled ({exc!r}); it went to no window")
            self._flush()
            if framer.pending > MAX_LINE:
                size = framer.pending
                head = framer.cut(LOGGED).decode("utf-8", "replace")
                self.log(f"pi {self.number}: a line over {MAX_LINE:,} bytes dropped")
                for watcher in tuple(self.watchers):  # (as a window's own pi's: a request it answered fails)
                    watcher.send(frames.control(op="dropped", head=head, size=size))

    def _flush(self) -> None:
        for watcher in tuple(self.watchers):
            watcher.flush()

    async def _end_after_stdout_closed(self) -> None:
        """pi closed its stdout: nothing it says can reach a window any more. One that does not
        exit on its own soon is ended in order, and its windows told why (as a pi of their own)."""
        assert self.child is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.child.exited), STDOUT_CLOSED_GRACE)
            return
        self.log(f"pi {self.number}: closed its stdout but kept running; ending it")
        self._stderr(STDOUT_CLOSED.encode() + b"\n")
        await self.close(grace=0.0)

    def _line(self, line: bytes) -> None:
        if not line.strip():
            return
        self.last_activity = now = time.time()
        record = None if line.startswith(DELTA) else head(line)  # (most of a stream: read no further)
        kind = "message_update" if record is None and line.startswith(DELTA) else record.type if record else ""
        if kind == "response" and isinstance(record.id, str):  # type: ignore[union-attr]
            self._response(record.id, line, record.command)  # type: ignore[union-attr]
            return
        if kind == "agent_start" and self.run is None:
            self.run = Spool(self.place, RUN_MEMORY, SPOOL_FALLBACK, lambda why: self.log(f"pi {self.number}: {why}"))
            self.run_message_ends = 0
        if kind == "extension_ui_request" and record is not None:
            self._ui_request(record, line, now)
        if self.run is not None:
            self.run.append(line + b"\n")
            if kind == "message_end":
                self.run_message_ends += 1
        if kind == "agent_settled" and self.run is not None:
            self.run.end()
            self.run = None
            self.unseen_end = not self.watchers
            self._arm_idle()
        for watcher in self.watchers:
            watcher.queue(line)

    def _ui_request(self, record: Head, line: bytes, now: float) -> None:
        if record.method in DIALOGS and record.id is not None:
            timeout = record.timeout if isinstance(record.timeout, (int, float)) and record.timeout > 0 else None
            _keep(self.dialogs, str(record.id), OpenDialog(line, time.monotonic(), timeout))
        elif record.method in KEPT_UI:
            field = KEPT_UI[record.method]
            key = getattr(record, field, "") if field else ""
            _keep(self.kept_ui, (record.method, str(key)[:200]), line)

    def _response(self, request_id: str, line: bytes, command: str = "") -> None:
        state = _state(line) if command == "get_state" else None  # (read once, for the claim, the name, a rest)
        if request_id == self._resting:
            found = state.sessionFile if state is not None else None
            self._rest(found if isinstance(found, str) and found else None)
            return
        if state is not None:
            if self.taken is None and (taken := self.claim.learn(state.sessionFile, self.pid)) is not None:
                self._yield(taken)
            self.name = state.sessionName[:1000] if isinstance(state.sessionName, str) else None
        if (waiting := self._cuts.pop(request_id, None)) is not None:
            self._hand_cut(waiting, line)
            return
        for watcher in self.windows():
            if request_id.startswith(watcher.prefix):
                watcher.answer(line)
                return

    def _hand_cut(self, watcher: Watcher, messages: bytes) -> None:
        """The window gets pi's messages, the run's records so far and what stays open; then
        it watches live. The cut is taken in the step pi's answer is read in (nothing comes
        between); the run's records go from the spool at the window's pace, pi's lines read
        meanwhile queued behind them."""
        self._open_dialogs()
        watcher.send_cut(frames.control(op="snapshot", rebuilt=self.run_message_ends if self.run is not None else 0))
        watcher.send_cut(frames.frame(frames.MESSAGES, messages))
        watcher.send_cut(Section(self, self.run, self.run.size if self.run is not None else 0, list(self.dialogs)))
        self.unseen_end = False
        self.watchers.append(watcher)

    def _yield(self, taken: dict[str, Any]) -> None:
        """Another pi has pi's session file open (it was opened there first): the windows are
        told, before the answer that named it, and pi is closed before it can write to it."""
        self.taken = taken
        self.log(f"pi {self.number}: its session file is open in another pi ({taken.get('pid')}); closing it")
        told = frames.control(op="taken", by=taken)
        for watcher in [*self.watchers, *self._cuts.values()]:
            watcher.send(told)
        self.close()

    def _open_dialogs(self) -> dict[str, OpenDialog]:
        """The dialogs pi still waits on (those past their timeout are forgotten)."""
        now = time.monotonic()
        for dialog_id in [key for key, dialog in self.dialogs.items() if (dialog.left_ms(now) or 1) <= 0]:
            del self.dialogs[dialog_id]
        return self.dialogs

    async def _read_stderr(self) -> None:
        assert self.child is not None
        while True:
            chunk = await _read(self.child.stderr, 1 << 16)
            if not chunk:
                return
            self._stderr(chunk)

    def _stderr(self, chunk: bytes) -> None:
        """`chunk` of pi's stderr to its windows, and kept for those attaching later."""
        self.stderr.append(chunk)
        self._stderr_size += len(chunk)
        while self._stderr_size > STDERR_KEPT and len(self.stderr) > 1:
            self._stderr_size -= len(self.stderr.popleft())
        out = frames.frame(frames.STDERR, chunk)
        for watcher in tuple(self.watchers):
            watcher.send(out)

    async def _watch_exit(self) -> None:
        assert self.child is not None
        await self.child.exited
        readers = [task for task in self._tasks if task is not asyncio.current_task()]
        _, lingering = await asyncio.wait(readers, timeout=2.0)
        if lingering:
            self.child.close_pipes()
            for task in lingering:
                task.cancel()
        self.returncode = self.child.returncode
        self.claim.release()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        if self.run is not None:
            self.run.end()
            self.run = None
        out = frames.control(op="exited", code=self.returncode)
        for watcher in self.windows():
            watcher.send(out)
        self._cuts.clear()
        self.log(f"pi {self.number} exited ({self.returncode})")
        self._gone(self)


async def _read(stream: asyncio.StreamReader, size: int) -> bytes:
    """Up to `size` bytes of a pipe of pi's; b"" at its end or once it broke."""
    try:
        return await stream.read(size)
    except (ConnectionError, OSError):
        return b""


def _keep(kept: dict[Any, Any], key: Any, value: Any) -> None:
    """`kept[key] = value`, as the newest, the oldest let go beyond MOST_KEPT."""
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > MOST_KEPT:
        del kept[next(iter(kept))]
