"""Start real `pi --mode rpc` children against a scripted model, for tests.

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
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from app.runtime import PiRuntime, ensure_runtime
from app.scripted_model.agent_dir import pi_model_args, write_agent_dir
from app.scripted_model.server import ScriptedModel
from protocol.client import ChildExited, RpcClient
from protocol.commands import Abort, ClearQueue, GetState, NewSession
from protocol.events import AgentSettled
from protocol.protocol_log import ProtocolLog
from protocol.responses import SessionState

EXTENSIONS_DIR = Path(__file__).resolve().parent / "extensions"
UI_EVERYTHING = EXTENSIONS_DIR / "ui_everything.ts"

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
