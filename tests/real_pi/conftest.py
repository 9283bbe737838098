"""The real-pi fixtures (see tests/pi_harness.py for the API behind them):

- `pi_runtime`   (session) the pinned node + pi runtime, installed on first use
- `pi_harness`   (session) a PiHarness: scripted model, temp agent dir, working dir;
                 every child it started is closed at the end of the session
- `shared_pi`    (session) ONE long-lived pi child for ordinary tests (pi takes ~1.5 s to start)
- `pi_client`    (function) `shared_pi`, checked idle with an empty queue, on a fresh empty
                 session, with the model's queued replies and recorded requests cleared.
                 A test that changes a setting of the shared child must restore it.
- `pi_factory`   (function) `await pi_factory(extensions=..., ...)` starts a child of the
                 test's own (to kill it, load an extension, use a session dir); the
                 children are closed when the test ends
- `scripted_model` (session) the model server behind `pi_harness`
- `holder_runtime` (function) a holder folder of the test's own (for `XDG_RUNTIME_DIR`);
                 what its holder holds is stopped at the end
- `holder_env`   (function) this process's environment with `holder_runtime` as its
                 `XDG_RUNTIME_DIR` (set here too)

Every test that uses one of the pi fixtures gets the `pi` marker (`-m "not pi"` skips them).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import PiHarness, fresh_session

from app.runtime import PiRuntime, ensure_runtime
from app.scripted_model.server import ScriptedModel
from protocol.hold.ask import ask
from protocol.wire.client import RpcClient
from protocol.wire.commands import GetState

PI_FIXTURES = frozenset({"pi_runtime", "pi_harness", "shared_pi", "pi_client", "pi_factory", "scripted_model"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if PI_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.pi)


@pytest.fixture(scope="session")
def pi_runtime() -> PiRuntime:
    return ensure_runtime()


@pytest.fixture(scope="session")
def scripted_model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as model:
        yield model


@pytest.fixture(scope="session")
async def pi_harness(
    pi_runtime: PiRuntime, scripted_model: ScriptedModel, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[PiHarness]:
    harness = PiHarness(tmp_path_factory.mktemp("pi"), model=scripted_model, runtime=pi_runtime)
    try:
        yield harness
    finally:
        try:
            await harness.close()
        finally:
            harness.kill_all()


@pytest.fixture(scope="session")
async def shared_pi(pi_harness: PiHarness) -> RpcClient:
    return await pi_harness.start_client()


@pytest.fixture
async def pi_client(shared_pi: RpcClient, pi_harness: PiHarness) -> RpcClient:
    state = await shared_pi.call(GetState()) if shared_pi.running else None
    if state is not None and (state.is_streaming or state.is_compacting or state.pending_message_count):
        warnings.warn(
            f"an earlier test left the shared pi child busy (streaming={state.is_streaming}, "
            f"queued={state.pending_message_count}); clearing and aborting it",
            stacklevel=1,
        )
    await fresh_session(shared_pi)  # raises if the child is gone or will not settle
    pi_harness.reset_model()
    return shared_pi


PiFactory = Callable[..., Awaitable[RpcClient]]


@pytest.fixture
async def pi_factory(pi_harness: PiHarness) -> AsyncIterator[PiFactory]:
    before = list(pi_harness.clients)

    async def start(**options: Any) -> RpcClient:
        return await pi_harness.start_client(**options)

    pi_harness.reset_model()
    try:
        yield start
    finally:
        for client in [c for c in pi_harness.clients if c not in before]:
            await pi_harness.close_client(client, grace=2.0)


@pytest.fixture
def holder_runtime(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    yield folder
    try:
        ask({"op": "stop", "all": True}, {**os.environ, "XDG_RUNTIME_DIR": str(folder)}, timeout=30.0)
    except OSError:
        pass


@pytest.fixture
def holder_env(holder_runtime: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(holder_runtime))
    return dict(os.environ)
