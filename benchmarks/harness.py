"""Shared helpers for the app benchmarks: a real pi on the scripted model, a fake client,
the app under `run_test`, a long reply, RSS and percentiles.

Nothing here asserts on time; the benchmark modules report what they measure.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import shutil
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from app.pi.launch import LaunchConfig
from app.scripted_model.server import Reply
from protocol.wire.client import RpcClient, RpcError
from protocol.wire.commands import Command, GetState
from protocol.wire.local_link import LocalLink
from widgets.engine.probes import watch_display

SIZE = (120, 40)
POLL = 0.002  # seconds between checks for "is it on screen yet"
ROOT = Path(__file__).resolve().parents[1]


def compiled() -> None:
    """pideck's own modules compiled, as `make` installs them: where PYTHONDONTWRITEBYTECODE
    is set, a module changed since would be compiled anew at every start a benchmark times."""
    import compileall

    for package in ("app", "widgets", "protocol"):
        compileall.compile_dir(ROOT / package, quiet=1)


# --- numbers -------------------------------------------------------------------------------


def rss_mb() -> float:
    """Resident set size of this process, in MB (VmRSS from /proc, else ru_maxrss)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0..100) by linear interpolation; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = (len(ordered) - 1) * p / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fastest_passes(functions: dict[str, Callable[[Any], object]], items: Sequence[Any], repeat: int) -> dict[str, float]:
    """Seconds of each function's fastest pass over `items`, calling it on each.

    The functions take turns within each of the `repeat` rounds, so a busy machine slows
    them alike instead of skewing the ratios."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(repeat):
        for name, function in functions.items():
            gc.collect()
            started = time.perf_counter()
            for item in items:
                function(item)
            best[name] = min(best[name], time.perf_counter() - started)
    return best


# --- a long reply --------------------------------------------------------------------------

END_TOKEN = "ZZENDTOKEN"


def long_reply_deltas(count: int = 3000, tag: str = "") -> tuple[str, ...]:
    """`count` deltas of a few words each, with headings, list items, bold and code now and then;
    the last delta ends a plain paragraph with the unique `END_TOKEN + tag`."""
    deltas: list[str] = []
    for i in range(count - 1):
        if i % 97 == 0:
            deltas.append(f"\n\n## Section {i // 97}\n\n")
        elif i % 41 == 0:
            deltas.append(f"\n- item **{i}** with `code_{i}` ")
        elif i % 29 == 0:
            deltas.append(f"a *few* words {i}\n\n")
        else:
            deltas.append(f"word{i} and more ")
    deltas.append(f"\n\nThe end {END_TOKEN}{tag}")
    return tuple(deltas)


def last_token(tag: str = "") -> str:
    return f"{END_TOKEN}{tag}"


# --- real pi -------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def real_pi() -> AsyncIterator[Any]:
    """A `tests.pi_harness.PiHarness` (pinned pi) in a temp dir, on the scripted model
    served from a process of its own (`ModelProcess`)."""
    from benchmarks.model_process import ModelProcess
    from tests.pi_harness import PiHarness

    root = Path(tempfile.mkdtemp(prefix="pideck-bench-"))
    model = ModelProcess()
    harness = PiHarness(root, model=model)  # type: ignore[arg-type]
    try:
        yield harness
    finally:
        try:
            await harness.close()
        finally:
            model.stop()
            shutil.rmtree(root, ignore_errors=True)


def launch_config(harness: Any) -> LaunchConfig:
    """A LaunchConfig for PideckApp that runs the harness's pi (scripted model, no session)."""
    return LaunchConfig(
        argv=tuple(harness.argv),
        env=harness.env,
        cwd=harness.cwd,
        demo=False,
        protocol_log=harness.root / "protocol.log",
        pi_source="benchmark",
    )


def queue_reply(harness: Any, deltas: tuple[str, ...]) -> None:
    harness.model.reset()
    harness.model.queue(Reply(deltas=deltas, delay=0.0))


def delta_contains(record: Any, token: str) -> bool:
    event = getattr(record, "assistant_message_event", None)
    delta = getattr(event, "delta", None)
    return isinstance(delta, str) and token in delta and type(event).__name__ == "TextDelta"


# --- a client that runs nothing ------------------------------------------------------------


class FakeClient(RpcClient):
    """Stands in for RpcClient when no pi is wanted: start does nothing, `get_state` never
    answers (so the app stays "starting" without an error screen), every other call fails
    at once with RpcError. Records are fed with `feed(record)` (the listener path). Its
    link is a pi of the window's own, never started."""

    def __init__(self) -> None:
        super().__init__(LocalLink(["pi"]))
        self.sent: list[Any] = []
        self._fake_ids = 0

    def feed(self, record: Any) -> None:
        for listener in tuple(self._listeners):
            listener(record)

    async def start(self) -> None:
        return None

    @property
    def running(self) -> bool:
        return True

    def next_id(self) -> str:
        self._fake_ids += 1
        return f"fake-{self._fake_ids}"

    async def send(self, record: Any) -> None:
        self.sent.append(record)

    async def call(self, command: Command, timeout: Any = True) -> Any:
        if isinstance(command, GetState):
            await asyncio.Event().wait()  # never answers
        raise RpcError("fake client: no pi")

    async def request(self, command: Command, timeout: Any = True) -> Any:
        return await self.call(command, timeout)

    def call_now(self, command: Command, timeout: Any = True) -> Any:
        return self.call(command, timeout)

    async def close(self, **_: Any) -> None:
        return None


def fake_config() -> LaunchConfig:
    root = Path(tempfile.gettempdir())
    return LaunchConfig(argv=("false",), env={}, cwd=root, demo=False, protocol_log=root / "pideck-bench-protocol.log")


# --- waiting -------------------------------------------------------------------------------


async def wait_until(predicate: Callable[[], bool], timeout: float = 60.0, poll: float = POLL) -> float:
    """Poll `predicate` every `poll` s (yielding to the loop); the perf_counter when it held."""
    deadline = time.perf_counter() + timeout
    while True:
        if predicate():
            return time.perf_counter()
        if time.perf_counter() > deadline:
            raise TimeoutError(f"condition not met within {timeout}s")
        await asyncio.sleep(poll)


def reply_received(app: Any, token: str) -> bool:
    """True once the newest assistant text block has received `token` (painted or not)."""
    from widgets.transcript.message_views import TextBlock

    blocks = list(app.query(TextBlock))
    return bool(blocks) and blocks[-1].text.endswith(token)


class PaintWatch:
    """When the app first PAINTS `token`: wraps `App._display`, which receives every
    compositor update (headless apps compute it and only skip the terminal write)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token
        self.painted: float | None = None
        self.close = watch_display(app, self.displayed)

    def displayed(self, screen: Any, renderable: Any) -> None:
        if self.painted is None and renderable is not None and hasattr(renderable, "render_segments"):
            if self.token in renderable.render_segments(self.app.console):
                self.painted = time.perf_counter()


@contextlib.contextmanager
def gc_quiet() -> Iterator[None]:
    gc.collect()
    yield
