"""The bridge on a host (protocol/hold/bridge.py) as a subprocess, as ssh runs it: its hello
first, then the holder's frames both ways as they are; it ends when either side closes, and
one run with `--attach` starts no holder."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from protocol.hold import frames
from protocol.hold.ask import ask
from protocol.hold.bridge import BRIDGE, HELLO_KEY, version
from protocol.hold.place import SOCKET_NAME, hold_dir
from tests.held_holder import holder_in_loop

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # bound on each wait (a loaded machine)


async def bridge(env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "protocol.hold.bridge", *args, cwd=ROOT, env=env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_the_bridge_says_its_versions_then_copies_frames_both_ways(tmp_path: Path) -> None:
    async with holder_in_loop(tmp_path / "run") as held:
        process = await bridge(held.env)
        assert process.stdin is not None and process.stdout is not None
        async with asyncio.timeout(WAIT):
            said = json.loads(await process.stdout.readline())
            assert said == {HELLO_KEY: BRIDGE, "pideck": version(), "protocol": frames.PROTOCOL}
            process.stdin.write(frames.control(op="list"))  # (answered, then closed by the holder)
            framer = frames.FrameReader(frames.FROM_HOLDER)
            got = framer.feed(await process.stdout.read())
            assert await process.wait() == 0  # the holder closed: the bridge ended
    ((kind, payload),) = got
    assert kind == frames.CONTROL
    assert frames.read_control(payload)["pis"] == []


async def test_the_bridge_ends_when_the_window_s_side_closes(tmp_path: Path) -> None:
    async with holder_in_loop(tmp_path / "run") as held:
        process = await bridge(held.env)
        assert process.stdin is not None and process.stdout is not None
        async with asyncio.timeout(WAIT):
            assert json.loads(await process.stdout.readline())[HELLO_KEY] == BRIDGE
            while held.holder.connections == 0:  # (the bridge's connection, accepted)
                await asyncio.sleep(0.01)
            process.stdin.close()
            assert await process.wait() == 0
            while held.holder.connections:  # its connection to the holder went with it
                await asyncio.sleep(0.01)


async def test_an_attach_where_no_holder_listens_says_why_and_starts_none(tmp_path: Path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    process = await bridge(env, "--attach")
    assert process.stdout is not None
    async with asyncio.timeout(WAIT):
        said = json.loads(await process.stdout.readline())
        assert await process.wait() == 1
    assert said["protocol"] == frames.PROTOCOL and "no holder listens" in said["error"]
    assert not (hold_dir(env) / SOCKET_NAME).exists()


async def test_the_bridge_starts_a_holder_where_none_runs_which_keeps_none_of_its_pipes(tmp_path: Path) -> None:
    """The holder forked from the bridge has its own stdin and stdout: the bridge's end at
    the holder's answer (a holder that kept them would keep ssh's session open)."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    process = await bridge(env)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        async with asyncio.timeout(WAIT):
            assert "error" not in json.loads(await process.stdout.readline())
            process.stdin.write(frames.control(op="list"))
            got = frames.FrameReader(frames.FROM_HOLDER).feed(await process.stdout.read())
            assert await process.stderr.read() == b""
            assert await process.wait() == 0
    finally:
        ask({"op": "stop", "all": True}, env)
    assert frames.read_control(got[0][1])["holder"] != process.pid
