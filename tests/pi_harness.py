"""Start real `pi --mode rpc` children against a scripted model, and pideck over a real
or a fake (tests/fake_pi.py) child, for tests.

Plain asyncio use (the pytest fixtures in tests/conftest.py wrap the same API):

    async with PiHarness(tmp_path) as pi:
        pi.model.queue(Reply(text="hello"))
        client = await pi.start_client()                  # ready: it answered get_state
        records = await client.prompt_and_wait(Prompt(message="hi"), timeout=30)

A harness owns one temp agent dir (`PI_CODING_AGENT_DIR`, whose only provider is the
scripted model), one working directory for the children, and every client it started:
`close()` shuts them all down (stdin EOF, then SIGTERM, then SIGKILL of the whole
process group), so no node process outlives the harness.

`Recorder` collects what a client reads and lets a test wait for a record;
`UI_EVERYTHING` is the test extension that calls every RPC-forwarded `ctx.ui` method.

pideck itself: `PideckApp(harness.launch_config(...))` runs the app on a real child of
the harness; `Fake` is one fake child, and

    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    async with fake.run() as pilot:          # the app over it, started up, at SIZE
        ...
    assert fake.snap(snap_compare, steps)    # an SVG snapshot after `steps`

`wait_until` polls a condition between frames; `transcript_text` is what the
transcript shows.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from tests.snapshot_plugin import settle
from textual.pilot import Pilot
from textual.widgets import Static

from app.launch import LaunchConfig
from app.pideck_app import PideckApp
from app.runtime import PiRuntime, ensure_runtime
from app.scripted_model.agent_dir import pi_model_args, write_agent_dir
from app.scripted_model.server import ScriptedModel
from protocol.client import ChildExited, RpcClient
from protocol.commands import Abort, ClearQueue, GetState, NewSession
from protocol.events import AgentSettled
from protocol.protocol_log import ProtocolLog
from protocol.responses import SessionState
from widgets.markdown_stream import StreamingText
from widgets.transcript import Transcript

TESTS = Path(__file__).resolve().parent
EXTENSIONS_DIR = TESTS / "extensions"
UI_EVERYTHING = EXTENSIONS_DIR / "ui_everything.ts"
FAKE_PI = TESTS / "fake_pi.py"
STREAMS = TESTS / "fixtures" / "streams"
SIZE = (120, 36)  # the terminal of the app tests

# Merged into the agent dir's settings.json: retries after 50 ms instead of 2 s, so a
# test of a retried 5xx/529 stays fast.
DEFAULT_SETTINGS: dict[str, Any] = {"retry": {"baseDelayMs": 50}}

READY_TIMEOUT = 30.0

T = TypeVar("T")


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class PiHarness:
    """Runtime, scripted model, agent dir, working dir, and the pi children started from them.

    `model` is shared by every child of the harness; pass one in to share it wider (the
    harness then leaves stopping it to you). `settings` is merged into settings.json
    (default `DEFAULT_SETTINGS`).
    """

    def __init__(
        self,
        root: Path,
        *,
        model: ScriptedModel | None = None,
        runtime: PiRuntime | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.root = Path(root)
        self.runtime = runtime or ensure_runtime()
        self._owns_model = model is None
        self.model = model or ScriptedModel().start()
        self.agent_dir = write_agent_dir(self.root / "agent", self.model.base_url)
        settings_file = self.agent_dir / "settings.json"
        merged = _merge(json.loads(settings_file.read_text()), DEFAULT_SETTINGS if settings is None else settings)
        settings_file.write_text(json.dumps(merged, indent=2))
        self.cwd = self.root / "work"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.env = self._make_env()
        self.clients: list[RpcClient] = []

    def _make_env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
        env.update(PI_CODING_AGENT_DIR=str(self.agent_dir), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
        return env

    @property
    def argv(self) -> list[str]:
        """argv of a plain child: RPC mode, the scripted model, no session file."""
        return self.make_argv()

    def make_argv(
        self,
        *,
        extensions: Iterable[str | os.PathLike[str]] = (),
        session_dir: str | os.PathLike[str] | None = None,
        extra_args: Sequence[str] = (),
    ) -> list[str]:
        """argv for one child; `session_dir` keeps session files there instead of `--no-session`."""
        argv = [*self.runtime.argv, "--mode", "rpc", *pi_model_args()]
        argv += ["--session-dir", str(session_dir)] if session_dir is not None else ["--no-session"]
        for extension in extensions:
            argv += ["-e", str(extension)]
        return argv + list(extra_args)

    def launch_config(
        self,
        *,
        extensions: Iterable[str | os.PathLike[str]] = (),
        session_dir: str | os.PathLike[str] | None = None,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        protocol_log: Path | None = None,
    ) -> LaunchConfig:
        """pideck's launch config for a child of this harness (`make_argv`); `env` is added to
        the harness's. The app starts and closes the child itself."""
        return LaunchConfig(
            argv=tuple(self.make_argv(extensions=extensions, session_dir=session_dir, extra_args=extra_args)),
            env={**self.env, **(env or {})},
            cwd=self.cwd,
            demo=False,
            protocol_log=protocol_log or self.root / "app-protocol.log",
        )

    async def start_client(
        self,
        *,
        extensions: Iterable[str | os.PathLike[str]] = (),
        session_dir: str | os.PathLike[str] | None = None,
        extra_args: Sequence[str] = (),
        argv: Sequence[str] | None = None,
        protocol_log: ProtocolLog | None = None,
        listeners: Iterable[Callable[[Any], None]] = (),
        wait_ready: bool = True,
        ready_timeout: float = READY_TIMEOUT,
    ) -> RpcClient:
        """Start a child (tracked for `close()`). `listeners` are added before it starts.

        With `wait_ready` this returns once pi answered `get_state`; if pi exits first,
        AssertionError carries its stderr.
        """
        command = list(argv) if argv is not None else self.make_argv(
            extensions=extensions, session_dir=session_dir, extra_args=extra_args
        )
        client = RpcClient(command, env=self.env, cwd=self.cwd, protocol_log=protocol_log)
        for listener in listeners:
            client.add_listener(listener)
        self.clients.append(client)
        await client.start()
        if wait_ready:
            await self.wait_ready(client, ready_timeout)
        return client

    async def wait_ready(self, client: RpcClient, timeout: float = READY_TIMEOUT) -> SessionState:
        try:
            state = await client.call(GetState(), timeout=timeout)
        except Exception as exc:
            raise AssertionError(f"pi did not start: {exc}\n--- pi stderr ---\n{client.stderr_tail}") from exc
        assert isinstance(state, SessionState), state
        return state

    async def close_client(self, client: RpcClient, *, grace: float = 3.0) -> ChildExited | None:
        """Orderly shutdown of one child; SIGKILLs its process group if it lingers."""
        exited = await client.close(grace=grace, term_grace=2.0)
        kill_group(client)
        if client in self.clients:
            self.clients.remove(client)
        return exited

    async def close(self) -> None:
        """Close every child (in parallel), then stop the model if the harness started it."""
        clients, self.clients = list(self.clients), []
        await asyncio.gather(*(self.close_client(client) for client in clients), return_exceptions=True)
        self.kill_all(clients)
        if self._owns_model:
            self.model.stop()

    def kill_all(self, clients: Iterable[RpcClient] | None = None) -> None:
        """Last resort, synchronous: SIGKILL the process group of every child still tracked."""
        for client in list(self.clients if clients is None else clients):
            kill_group(client)

    def reset_model(self) -> None:
        """Forget queued replies, recorded requests and any responder."""
        self.model.responder = None
        self.model.replies.clear()
        self.model.requests.clear()

    async def __aenter__(self) -> PiHarness:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def kill_group(client: RpcClient) -> None:
    """SIGKILL the child's process group (it leads one: RpcClient uses start_new_session)."""
    process = client.process
    if process is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def ensure_idle(client: RpcClient, timeout: float = 10.0) -> SessionState:
    """Bring a shared child back to idle with an empty queue; returns the idle state.

    A run left over by an earlier test is cleared and aborted. Raises AssertionError
    when the child is gone or will not settle.
    """
    if not client.running:
        raise AssertionError(f"pi is not running: {client.exited}\n--- pi stderr ---\n{client.stderr_tail}")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    state = await client.call(GetState())
    while state.is_streaming or state.is_compacting or state.pending_message_count:
        if loop.time() > deadline:
            raise AssertionError(f"pi did not become idle: {state}")
        await client.call(ClearQueue())
        await client.call(Abort())
        await asyncio.sleep(0.05)
        state = await client.call(GetState())
    return state


async def fresh_session(client: RpcClient) -> SessionState:
    """`ensure_idle`, then an empty in-memory conversation (new_session)."""
    await ensure_idle(client)
    result = await client.call(NewSession())
    assert not result.cancelled, "new_session was cancelled"
    return await ensure_idle(client)


class Recorder:
    """Collects every record a client reads, from now on; use as a context manager.

    `wait_for(match)` returns the first record at index >= `start` that is an instance
    of `match` (a type or tuple of types) or satisfies it (a predicate), waiting for it.
    """

    def __init__(self, client: RpcClient) -> None:
        self.client = client
        self.records: list[Any] = []
        self._changed = asyncio.Event()
        self._remove = client.add_listener(self._on_record)

    def _on_record(self, record: Any) -> None:
        self.records.append(record)
        self._changed.set()

    def close(self) -> None:
        self._remove()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def of_type(self, kind: type[T] | tuple[type, ...]) -> list[T]:
        return [record for record in self.records if isinstance(record, kind)]

    def index(self, match: Any, start: int = 0) -> int | None:
        test = _matcher(match)
        for position in range(start, len(self.records)):
            if test(self.records[position]):
                return position
        return None

    async def wait_for(self, match: Any, *, start: int = 0, timeout: float = 15.0) -> Any:
        """The first matching record (index >= start); AssertionError after `timeout`."""
        position = await self.wait_index(match, start=start, timeout=timeout)
        return self.records[position]

    async def wait_index(self, match: Any, *, start: int = 0, timeout: float = 15.0) -> int:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        scanned = start
        test = _matcher(match)
        while True:
            for position in range(scanned, len(self.records)):
                if test(self.records[position]):
                    return position
            scanned = max(scanned, len(self.records))
            self._changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                tail = "\n".join(repr(record)[:200] for record in self.records[-15:])
                raise AssertionError(f"no record matching {match!r} within {timeout}s; last records:\n{tail}")
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass

    async def wait_settled(self, *, start: int = 0, timeout: float = 30.0) -> AgentSettled:
        """The next `agent_settled` (or AssertionError if the child exits first)."""
        record = await self.wait_for((AgentSettled, ChildExited), start=start, timeout=timeout)
        assert isinstance(record, AgentSettled), f"pi exited before settling: {record}"
        return record


def _matcher(match: Any) -> Callable[[Any], bool]:
    if isinstance(match, type) or (isinstance(match, tuple) and all(isinstance(m, type) for m in match)):
        return lambda record: isinstance(record, match)
    return match


# --- pideck over a child ------------------------------------------------------------------------


async def wait_until(pilot: Pilot[Any], condition: Callable[[], Any], timeout: float = 15.0, what: str = "") -> Any:
    """Pause until `condition()` is truthy; its value. On timeout, AssertionError with the
    end of the transcript and of pi's stderr when the app is pideck."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            app = pilot.app
            detail = ""
            if isinstance(app, PideckApp) and app.query(Transcript):
                detail = f"; transcript:\n{transcript_text(app)[-2000:]}\npi stderr:\n{app.client.stderr_tail[-2000:]}"
            raise AssertionError(f"timed out waiting for {what or condition}{detail}")
        await pilot.pause(0.02)


def transcript_text(app: PideckApp) -> str:
    """The text of every message and banner the transcript shows, top to bottom."""
    parts = []
    for widget in app.query_one(Transcript).query("*"):
        if isinstance(widget, StreamingText):
            parts.append(widget.text)
        elif isinstance(widget, Static):
            parts.append(str(widget.render()))
    return "\n".join(parts)


class Fake:
    """One fake pi child (tests/fake_pi.py): its options, command log and control file.

    `args` are fake_pi.py options; `stream` is a recorded stream, by name in
    tests/fixtures/streams or by path.
    """

    def __init__(self, tmp_path: Path, *args: str, stream: str | Path = "markdown.jsonl") -> None:
        self.dir = tmp_path
        self.log = tmp_path / "commands.jsonl"
        self.control = tmp_path / "control.jsonl"
        self.control.write_text("")
        path = Path(stream)
        self.stream = path if path.is_absolute() else STREAMS / path
        self.args = args

    @property
    def argv(self) -> tuple[str, ...]:
        return (
            sys.executable, str(FAKE_PI), "--log", str(self.log), "--control", str(self.control),
            "--stream", str(self.stream), *self.args,
        )

    def config(self, env: Mapping[str, str] | None = None) -> LaunchConfig:
        """pideck's launch config for this child; `env` is added to this process's."""
        return LaunchConfig(
            argv=self.argv, env={**os.environ, **(env or {})}, cwd=self.dir, demo=False,
            protocol_log=self.dir / "protocol.log",
        )

    def app(self, env: Mapping[str, str] | None = None) -> PideckApp:
        return PideckApp(self.config(env))

    @asynccontextmanager
    async def run(self, app: PideckApp | None = None, size: tuple[int, int] = SIZE) -> AsyncIterator[Pilot[int]]:
        """Run `app` (default: a new one over this child) headless until pideck has started up."""
        app = app or self.app()
        async with app.run_test(size=size) as pilot:
            await ready(pilot, self)
            yield pilot

    def snap(self, snap_compare: Any, steps: Callable[[Pilot[Any]], Awaitable[None]] | None = None,
             size: tuple[int, int] = SIZE) -> bool:
        """`snap_compare` of a new app over this child: started up, then `steps`, then settled."""

        async def run_before(pilot: Pilot[Any]) -> None:
            await ready(pilot, self)
            if steps is not None:
                await steps(pilot)
            await settle(pilot)

        return bool(snap_compare(self.app(), run_before=run_before, terminal_size=size))

    def commands(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The commands the child received (of type `kind`), in order."""
        if not self.log.exists():
            return []
        records = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [r for r in records if kind is None or r.get("type") == kind]

    def kinds(self) -> list[str]:
        return [r["type"] for r in self.commands()]

    def inject(self, *records: dict[str, Any] | str) -> None:
        """Make the fake write these lines to pideck (dicts as JSON, strings as they are)."""
        with self.control.open("a", encoding="utf-8") as handle:
            for record in records:
                handle.write((record if isinstance(record, str) else json.dumps(record)) + "\n")


async def ready(pilot: Pilot[Any], fake: Fake) -> None:
    """Wait until pideck loaded the session (get_commands is its last start-up call)."""
    await wait_until(pilot, lambda: "get_commands" in fake.kinds() and pilot.app._session_ready, what="start-up")
    await pilot.pause()
