"""The holder ended by a signal, with the real pi held: an orderly end, as pideck's own
quit is (each test with a holder folder of its own, XDG_RUNTIME_DIR)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from tests.load import out_of_time
from tests.pi_harness import PiHarness

from protocol.hold.ask import ask
from protocol.hold.held_link import held_client
from protocol.hold.place import LOCK_NAME, SOCKET_NAME, hold_dir
from protocol.wire.commands import GetState

pytestmark = pytest.mark.pi



async def until(condition, what: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while not (value := condition()):
        assert not out_of_time(started, timeout), f"timed out waiting for {what}"
        await asyncio.sleep(0.02)
    return value


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
async def test_a_signal_ends_the_holder_in_order(pi_harness: PiHarness, holder_env: dict[str, str], sig: int) -> None:
    """The window is told why, pi is closed (stdin first: it exits 0), the socket and the
    lock are gone, and the next window starts a holder of its own."""
    folder = hold_dir(holder_env)
    client = held_client(pi_harness.make_argv(), holder_env=holder_env, env=pi_harness.env, cwd=pi_harness.cwd)
    await client.start()
    assert client.exited is None, client.exited
    await client.call(GetState(), timeout=30)
    listed = ask({"op": "list"}, holder_env)
    assert listed is not None
    holder, pi = listed["holder"], listed["pis"][0]["pid"]
    os.kill(holder, sig)
    exited = await asyncio.wait_for(client.wait_closed(), 30)
    name = signal.Signals(sig).name
    assert exited.error is not None and f"holder was ended ({name})" in exited.error, exited
    assert exited.returncode == 0, "pi closed in order (its stdin), not killed"
    await until(lambda: not alive(pi) and not alive(holder), "pi and the holder to end")
    assert not (folder / SOCKET_NAME).exists() and not (folder / LOCK_NAME).exists()
    assert f"holder {holder} done ({name})" in (folder / "holder.log").read_text()
    again = held_client(pi_harness.make_argv(), holder_env=holder_env, env=pi_harness.env, cwd=pi_harness.cwd)
    await again.start()
    try:
        assert again.exited is None, again.exited
        await again.call(GetState(), timeout=30)
        assert (ask({"op": "list"}, holder_env) or {}).get("holder") not in (None, holder)
    finally:
        again.detach()
