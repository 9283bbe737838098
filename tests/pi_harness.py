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

This is the one module of shared test helpers (imported as `tests.pi_harness`; no test
module imports another): besides the above, typing and sending (`type_text`, `start_run`,
`send`, `started`, `quiesce`), extension requests (`ui`), recorded streams edited for a
test (`derive_stream`), pideck in a real terminal (`TmuxPideck`, over the real pi: `HarnessPi`), and fixture data
(`fixture_entries`, `copy_session`, `summary`, `tiny_png`). Waits stretch with the machine's load
(tests/load.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import struct
import subprocess
import sys
import time
import unicodedata
import uuid
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from rich.console import Group
from rich.style import Style
from textual import events
from textual.keys import _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from tests.load import load, out_of_time
from tests.snapshot_plugin import settle

from app.pi.launch import LaunchConfig
from app.pideck_app import PideckApp
from app.runtime import PiRuntime, ensure_runtime
from app.scripted_model.agent_dir import pi_model_args, write_agent_dir
from app.scripted_model.server import ScriptedModel
from protocol.wire.client import ChildExited, RpcClient
from protocol.wire.local_link import local_client
from protocol.wire.codec import dec_hook
from protocol.wire.commands import Abort, ClearQueue, GetState, NewSession
from protocol.wire.entries import EntryUnion
from protocol.wire.events import AgentSettled
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.responses import SessionState
from protocol.files.session_files import SessionSummary
from widgets.colors import palette
from widgets.markdown.stream import StreamingText
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatsPane
from widgets.transcript.transcript import Transcript

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
EXTENSIONS_DIR = TESTS / "extensions"
UI_EVERYTHING = EXTENSIONS_DIR / "ui_everything.ts"
FAKE_PI = TESTS / "fake_pi.py"
STREAMS = TESTS / "fixtures" / "streams"
SESSIONS = TESTS / "fixtures" / "sessions"
SIZE = (120, 36)  # the terminal of the app tests
PICKER_SIZE = (100, 26)  # the terminal of the session picker tests

# Merged into the agent dir's settings.json: retries after 50 ms instead of 2 s, so a
# test of a retried 5xx/529 stays fast.
DEFAULT_SETTINGS: dict[str, Any] = {"retry": {"baseDelayMs": 50}}

READY_TIMEOUT = 30.0

T = TypeVar("T")

_entry_decoder = msgspec.json.Decoder(EntryUnion, dec_hook=dec_hook)


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
        self._env = self._make_env()
        self.clients: list[RpcClient] = []

    def _make_env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith("PI_")}
        env.update(PI_CODING_AGENT_DIR=str(self.agent_dir), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1",
                   PIDECK_CHECKPOINTS=str(self.root / "checkpoints"))  # pideck's extension, not under ~/.local/state
        return env

    @property
    def env(self) -> dict[str, str]:
        """The children's environment: the harness's, with the state folder of the test running
        now (tests/conftest.py), not of the test that started the harness."""
        state = os.environ.get("XDG_STATE_HOME")
        return {**self._env, "XDG_STATE_HOME": state} if state else dict(self._env)

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
        client = local_client(command, env=self.env, cwd=self.cwd, protocol_log=protocol_log)
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
    """SIGKILL pi's process group (it leads one, held or not: spawn uses start_new_session)."""
    pid = client.link.pid
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
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
    deadline = loop.time() + timeout * load()
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
        """The first matching record (index >= start); AssertionError after `timeout` (stretched by the load)."""
        position = await self.wait_index(match, start=start, timeout=timeout)
        return self.records[position]

    async def wait_index(self, match: Any, *, start: int = 0, timeout: float = 15.0) -> int:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout * load()
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
    """Pause until `condition()` is truthy; its value. On timeout (stretched by the load), an
    AssertionError with the end of the transcript and of pi's stderr when the app is pideck."""
    started = time.monotonic()
    while True:
        value = condition()
        if value:
            return value
        if out_of_time(started, timeout):
            app = pilot.app
            detail = ""
            if isinstance(app, PideckApp) and app.query(Transcript):
                detail = f"; transcript:\n{transcript_text(app)[-2000:]}\npi stderr:\n{app.desk.current.pi.client.stderr_tail[-2000:]}"
            raise AssertionError(f"timed out waiting for {what or condition}{detail}")
        await pilot.pause(0.02)


async def question(pilot: Pilot[Any], kind: type[Any] | None = None) -> Any:
    """The question that writes (a revert's, /rewind's; or of `kind`, an extension's dialog)
    on screen, once a key pressed may answer it (widgets/screens/on_purpose.py: not within
    its first 0.3 s)."""
    from widgets.screens.revert_dialog import RevertDialog

    kind = kind or RevertDialog
    dialog = await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind) and pilot.app.screen,
                              what="the question")
    await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
    return dialog


async def press_alone(pilot: Pilot[Any], key: str) -> None:
    """Press `key` as a person does after typing: not in a burst with the keys before it
    (a question takes no answer from a burst, widgets/screens/on_purpose.py)."""
    from widgets.screens.on_purpose import BURST

    await pilot.pause(2 * BURST)
    await pilot.press(key)


def has_role(style: Style, role: str) -> bool:
    """Whether `style` carries what the palette role sets (its colour, or its attributes)."""
    wanted = palette.style(role)
    if wanted.color is not None:
        return style.color == wanted.color
    attributes = [name for name in ("bold", "dim", "italic", "reverse", "underline") if getattr(wanted, name)]
    return bool(attributes) and all(getattr(style, name) for name in attributes)


def transcript_text(app: PideckApp) -> str:
    """The text of every message and banner the transcript shows, top to bottom."""
    return drawn_text(app.desk.current.main)


def tool_run(session: Any, call_id: str) -> Any:
    """The latest run of the tool call `call_id` (None: none yet); tests name their calls uniquely."""
    return next((run for run in reversed(session.tool_runs()) if run.tool_call_id == call_id), None)


def call_view(app: Any, call_id: str) -> Any:
    """The transcript's block of the latest call `call_id` (None: not shown)."""
    run = tool_run(app.desk.current.pi.model, call_id)
    return app.desk.current.main.transcript.view_for_tool(run.key) if run is not None else None


def drawn_text(screen: Any) -> str:
    """The text of a session's transcript as its screen has it drawn (shown or not)."""
    parts = []
    for widget in screen.query_one(Transcript).query("*"):
        if isinstance(widget, StreamingText):
            parts.append(widget.text)
        elif isinstance(widget, Static):
            parts.append(str(widget.render()))
    return "\n".join(parts)


def own_agent_dir(folder: Path) -> Path:
    """The pi agent directory pideck gets in a test over a fake child in `folder`: empty
    unless the test writes in it, so pideck reads pi's settings, themes and keys there and
    never the developer's own `~/.pi/agent`."""
    return folder / "pi-agent"


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

    @property
    def agent_dir(self) -> Path:
        return own_agent_dir(self.dir)

    def config(self, env: Mapping[str, str] | None = None) -> LaunchConfig:
        """pideck's launch config for this child; `env` is added to this process's."""
        return LaunchConfig(
            argv=self.argv, env={**os.environ, "PI_CODING_AGENT_DIR": str(self.agent_dir), **(env or {})}, cwd=self.dir, demo=False,
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

        # HOME the test's folder: the prompt's border shows pi's folder as `~` on every run
        return bool(snap_compare(self.app({"HOME": str(self.dir)}), run_before=run_before, terminal_size=size))

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
    await wait_until(pilot, lambda: "get_commands" in fake.kinds() and pilot.app.desk.current.pi.ready, what="start-up")
    await pilot.pause()


# --- driving pideck: typing, sending, extension requests, recorded streams -------------------

def burst(app: Any, *keys: str) -> None:
    """Queue the key events together, before the app reads any (keys named as `pilot.press` names them)."""
    for key in keys:
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            character: str | None = unicodedata.lookup(_get_unicode_name_from_key(key))
        except KeyError:
            character = key if len(key) == 1 else None
        event = events.Key(key, character)
        event.set_sender(app)
        app.post_message(event)


async def type_text(pilot: Any, text: str) -> None:
    editor = pilot.app.desk.current.main.query_one(PromptEditor)  # (the prompt of the session shown)
    editor.insert(text)
    await pilot.pause()


def ui(method: str, request_id: str | None = None, **fields: Any) -> dict[str, Any]:
    return {"type": "extension_ui_request", "id": request_id or uuid.uuid4().hex, "method": method, **fields}


def derive_stream(dest: Path, source: str, replace: dict[str, str] | None = None,
                  edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A copy of a recorded stream with strings replaced and records edited."""
    replace = replace or {}

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in replace.items():
                value = value.replace(old, new)
            return value
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    lines = []
    for line in (STREAMS / source).read_text().splitlines():
        record = walk(json.loads(line))
        if edit is not None:
            edit(record)
        lines.append(json.dumps(record))
    dest.write_text("\n".join(lines) + "\n")
    return dest


def bash_error(record: dict[str, Any]) -> None:
    """Make the recorded bash tool call of thinking_tools.jsonl fail."""
    if record.get("toolCallId") == "call_bash_1" and record.get("type") == "tool_execution_end":
        record["isError"] = True
        record["result"]["content"] = [{"type": "text", "text": "bash: permission denied\n"}]
    message = record.get("message")
    if isinstance(message, dict) and message.get("toolCallId") == "call_bash_1":
        message["isError"] = True
        message["content"] = [{"type": "text", "text": "bash: permission denied\n"}]


async def start_run(pilot: Any, fake: Fake, text: str = "Write a long answer slowly.", running: bool = True) -> None:
    before = len(fake.commands("prompt"))
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(fake.commands("prompt")) > before, what="prompt sent")
    if running:
        await wait_until(pilot, lambda: pilot.app.desk.current.pi.model.running, what="run to start")


def crash_text(app: PideckApp) -> str:
    return str(app.query_one("#crash-reason").render())


def make_app(harness: PiHarness) -> PideckApp:
    """pideck on a new child of `harness`, with tests/extensions/ui_everything.ts loaded."""
    return PideckApp(harness.launch_config(extensions=[UI_EVERYTHING]))


async def started(pilot: Any) -> None:
    await wait_until(pilot, lambda: pilot.app.desk.current.pi.ready and pilot.app.desk.current.pi.commands, timeout=30, what="pi start-up")


async def send(pilot: Any, text: str, key: str = "enter") -> None:
    editor = pilot.app.desk.current.main.query_one(PromptEditor)  # (the prompt of the session shown)
    editor.load(text)
    await pilot.pause()
    await pilot.press(key)


async def quiesce(pilot: Any) -> None:
    """Let short workers (stats refresh, sends) finish before the app is torn down.

    A stats refresh still running while the app unmounts fails with NoMatches (see report).
    """
    app = pilot.app
    await wait_until(
        pilot,
        lambda: not [w for w in app.workers if w.group not in ("dialogs", "session", "flushes") and w.is_running]
        and all(slot.pi.pump.idle for slot in getattr(app, "slots", ())),  # (flushes: the pump's, long-lived)
        what="workers",
    )
    await pilot.pause(0.1)


def notes(app: PideckApp) -> list[str]:
    """Every notification so far (a toast shows only the first few of a burst)."""
    return [n.message for n in app.toasts.center.entries]


def stats_text(app: PideckApp) -> str:
    return str(app.query_one(StatsPane).render())


class TmuxPideck:
    """The installed `pideck` over `fake` in a real terminal: a private tmux server, 120×36,
    xterm-256color. `keys` presses keys (tmux send-keys arguments), `send` types a line and
    presses Enter, `screen` is what the terminal shows."""

    recording = False  # pideck's bytes go to a file through script

    def __init__(self, fake: Fake, wrapper: tuple[str, ...] = (), typed: bool = False,
                 args: tuple[str, ...] | None = None, cwd: Path = ROOT, env: Mapping[str, str] | None = None,
                 record: Path | None = None) -> None:
        """`wrapper`: a command that runs pideck (its arguments follow). `typed`: the command
        is typed into an interactive bash, as a user starts it (job control). `args`:
        pideck's arguments instead of `--pi` with `fake` (`--demo` runs the real pi). `env`:
        variables set for pideck besides (or instead of) its agent directory. `record`: every
        byte pideck writes, from its first, goes to this file too (through `script`)."""
        self.fake = fake
        self.socket = f"pideck-test-{uuid.uuid4().hex[:10]}"
        pideck = ROOT / ".venv" / "bin" / "pideck"
        if args is None:
            args = ("--pi", shlex.join(fake.argv), "--protocol-log", str(fake.dir / "p.log"))
        command = shlex.join([*wrapper, str(pideck), *args])
        self.recording = record is not None
        if record is not None:  # (script's own terminal starts at 80x24 and says so in a first line)
            command = shlex.join(["script", "-qfec", f"stty cols 120 rows 36 && exec {command}", str(record)])
        variables = {"TERM": "xterm-256color", "PI_CODING_AGENT_DIR": str(own_agent_dir(fake.dir)), **(env or {})}
        started = self._tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "36",
                             *(arg for key, value in variables.items() for arg in ("-e", f"{key}={value}")),
                             "-c", str(cwd), "bash --norc --noprofile -i" if typed else command)
        assert started.returncode == 0, started.stderr
        self.socket_path = self._tmux("display-message", "-p", "#{socket_path}").stdout.strip()
        if typed:
            self.keys("-l", command)
            self.keys("Enter")

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)

    def keys(self, *args: str) -> None:
        self._tmux("send-keys", "-t", "t", *args)

    def send(self, text: str) -> None:
        self.keys("-l", text)
        self.wait(lambda: text[-30:] in self.screen(), "the text typed")  # then Enter, not part of the typing
        self.keys("Enter")

    def wait_started(self) -> None:
        self.wait(lambda: "get_commands" in self.fake.kinds(), "start-up")
        self.wait(lambda: "● ready" in self.screen(), "ready on the status line")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t").stdout

    def shows(self, text: str) -> bool:
        """Whether the screen shows `text` wherever its rows break it (a line that names a
        path breaks where the path's length puts it: the checkout's, a temp folder's): its
        words are compared without the spaces and box lines between them."""
        return _squeezed(text) in _squeezed(self.screen())

    def pipe_output(self, path: Path) -> None:
        """Append everything pideck writes to the terminal from now on to `path`."""
        self._tmux("pipe-pane", "-t", "t", f"cat >> {shlex.quote(str(path))}")

    def wait(self, condition: Callable[[], Any], what: str, timeout: float = 20.0) -> None:
        """Until `condition()`; `timeout` stretched by the load (`out_of_time`)."""
        started = time.monotonic()
        while not condition():
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}\nlog: {self.fake.kinds()}")
            time.sleep(0.1)

    def __enter__(self) -> TmuxPideck:
        return self

    def __exit__(self, *exc: object) -> None:
        # script outlives its terminal, and keeps pideck's own open: pideck is told it went away
        recorded = self._tmux("list-panes", "-t", "t", "-F", "#{pane_pid}").stdout.split() if self.recording else []
        inner = [int(pid) for parent in recorded
                 for pid in subprocess.run(["pgrep", "-P", parent], capture_output=True, text=True).stdout.split()]
        self._tmux("kill-server")  # only this test's private server
        if self.socket_path.endswith(self.socket):
            Path(self.socket_path).unlink(missing_ok=True)
        for pid in (*inner, *map(int, recorded)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGHUP)


def _squeezed(text: str) -> str:
    return "".join(character for character in text if not character.isspace() and character not in "│┃║█▌▐")


class HarnessPi:
    """pideck over the harness's real pi and scripted model, in `folder` (for TmuxPideck, as a
    Fake is): what each request to the model holds is in `pi_harness.model.requests`."""

    def __init__(self, harness: PiHarness, folder: Path) -> None:
        self.dir = folder
        self.harness = harness

    def args(self) -> tuple[str, ...]:
        return ("--pi", shlex.join(self.harness.runtime.argv), "--", *pi_model_args(), "--no-session")

    def env(self) -> dict[str, str]:
        """pideck's: the harness's PI_ and PIDECK_ variables, a state folder of its own."""
        return {key: value for key, value in self.harness.env.items() if key.startswith(("PI_", "PIDECK_"))} | {
            "XDG_STATE_HOME": str(self.dir / "state")}

    def kinds(self) -> list[str]:
        return []  # (pideck's own log of what it sent is not kept here)

    def user_texts(self) -> list[list[str]]:
        """The user messages of each request pi made to the model, in order."""
        return [[_user_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"]
                for body in self.harness.model.requests]


def _user_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or () if isinstance(part, dict))


# --- widgets and fixture data ----------------------------------------------------------------


def option_text(options: OptionList, index: int) -> str:
    """The text of an option: one line (a Text) or, highlighted, all of it (a Group of one Text)."""
    prompt = options.get_option_at_index(index).prompt
    return (prompt.renderables[0] if isinstance(prompt, Group) else prompt).plain


def summary(name: str | None, first: str, cwd: str = "/home/ada/p", minute: int = 0) -> SessionSummary:
    when = datetime(2025, 3, 1, 9, minute, tzinfo=UTC)
    return SessionSummary(
        path=Path(f"/s/{first[:5]}.jsonl"), id=f"id-{first[:5]}", cwd=cwd, modified=when,
        size=2048, name=name, first_message=first,
    )  # fmt: skip


def fixture_entries(name: str = "branched.jsonl") -> list[Any]:
    return [_entry_decoder.decode(line) for line in (SESSIONS / name).read_bytes().splitlines()[1:]]


def copy_session(name: str, directory: Path, cwd: Path) -> Path:
    """A fixture session under `directory`, its header's cwd set to `cwd` (pi needs it to exist)."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = (SESSIONS / name).read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["cwd"] = str(cwd)
    path = directory / name
    path.write_text(json.dumps(header, separators=(",", ":")) + "\n" + "".join(lines[1:]))
    return path


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid PNG (red pixels), made without an imaging library."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
