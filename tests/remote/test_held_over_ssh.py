"""pi held on another host: a HeldLink whose way to its holder is ssh (protocol/hold/ssh_link.py)
into the test's sshd (tests/remote/conftest.py), running the bridge (protocol/hold/bridge.py)
of this checkout there, which starts the "host's" holder in a runtime folder of the test's
own. The ssh client killed mid-stream, pi goes on in that holder, and the link comes back
by itself with the run whole from its cut; a bridge of another pideck, or a host ssh cannot
log in to, is one clear error, at once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.held_holder import flood_stream
from tests.remote.conftest import ROOT, SshServer

from protocol.hold.ask import ask
from protocol.hold.bridge import version
from protocol.hold.held_link import HeldLink, Unreachable
from protocol.hold.ssh_link import SshOpener, Streams
from protocol.wire.extension_ui import CaughtUp
from protocol.wire.link import LinkError, Relinked

FAKE_PI = Path(__file__).parents[1] / "fake_pi.py"
RECORDS = 1000  # records of the run streamed (one each 10 ms: 10 s, the link back well before its end)
WAIT = 90.0  # bound on each wait (a loaded machine)


@pytest.fixture
def host_runtime(tmp_path: Path) -> Iterator[Path]:
    """The "host's" runtime folder (its holder's), its holder stopped at the end."""
    runtime = tmp_path / "host-run"
    runtime.mkdir(mode=0o700)
    yield runtime
    ask({"op": "stop", "all": True}, {"XDG_RUNTIME_DIR": str(runtime)})


def bridge_command(runtime: Path) -> list[str]:
    """The remote command: this checkout's bridge, with the host's holder in `runtime`."""
    return ["env", f"XDG_RUNTIME_DIR={runtime}", "PIDECK_HOLD_LINGER=1", f"PYTHONPATH={ROOT}", sys.executable, "-m",
            "protocol.hold.bridge"]


def opener(sshd: SshServer, command: list[str], **ssh: Any) -> SshOpener:
    *client, host = sshd.ssh(**ssh)
    return SshOpener(client, host, command)


def ssh_clients() -> list[int]:
    """This process's ssh children."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name, rest = (entry / "stat").read_text().rsplit(")", 1)
            except OSError:
                continue
            if name.endswith("(ssh") and int(rest.split()[1]) == os.getpid() and rest.split()[0] != "Z":
                found.append(int(entry.name))
    return found


class OutOfReach:
    """An ssh opener whose host is out of reach (its port one nobody listens on) from
    `cut_off()` for `tries` tries, then back."""

    def __init__(self, real: SshOpener, tries: int) -> None:
        self.real = real
        self.left = tries
        self.failed: list[str] = []
        self.port = real.ssh.index("-p") + 1
        self.open_port = real.ssh[self.port]

    def cut_off(self) -> None:
        with socket.socket() as probe:  # (a free port: nobody listens there, ssh is refused)
            probe.bind(("127.0.0.1", 0))
            self.real.ssh[self.port] = str(probe.getsockname()[1])

    async def __call__(self, env: Mapping[str, str], start: bool = True) -> Streams:
        try:
            return await self.real(env, start)
        except Unreachable as exc:
            self.failed.append(str(exc))
            self.left -= 1
            if not self.left:
                self.real.ssh[self.port] = self.open_port  # the network is back
            raise


async def test_a_killed_ssh_leaves_pi_running_on_the_host_and_the_link_comes_back_with_the_run_whole(
        sshd: SshServer, host_runtime: Path, tmp_path: Path) -> None:
    """The ssh client killed mid-stream, and the host out of reach for two tries after."""
    stream = flood_stream(tmp_path / "run.jsonl", RECORDS, pad=20)
    argv = [sys.executable, str(FAKE_PI), "--stream", str(stream), "--rate", "1/10"]
    way = OutOfReach(opener(sshd, bridge_command(host_runtime)), tries=2)
    link = HeldLink(argv, holder_env={}, env=dict(os.environ), cwd=tmp_path, opener=way)
    start = await link.start()
    try:
        link.write(b'{"type":"prompt","message":"go","id":"p1"}\n')
        read: list[Any] = []
        async with asyncio.timeout(WAIT):
            while sum(b"bash_execution_update" in item for item in read if isinstance(item, bytes)) < 50:
                read += await link.read()
            (client,) = ssh_clients()
            way.cut_off()
            os.kill(client, signal.SIGKILL)  # the link drops mid-stream
            while not read or read[-1] != b'{"type":"agent_settled"}':
                got = await link.read()
                assert got, f"the link ended: {link.exit_error}"
                read += got
        assert link.hello is not None and link.hello.number == start.hello.number
        assert link.hello.pid == start.hello.pid  # the same pi: it went on in the host's holder
        assert client not in ssh_clients()
        assert len(way.failed) == 2 and all("cannot reach 127.0.0.1: " in why for why in way.failed), way.failed
        kinds = [type(item) for item in read if not isinstance(item, bytes)]
        assert kinds == [Relinked, CaughtUp]  # made again once, when the host was back
        cut = max(index for index, item in enumerate(read) if isinstance(item, CaughtUp))
        records = [json.loads(item) for item in read[cut + 1 :]]
        run = [record for record in records if record.get("type") != "response"]
        assert run == [json.loads(line) for line in stream.read_text().splitlines()]  # nothing lost, nothing twice
    finally:
        link.kill()
        link.close_pipes()
        await ssh_ended()


async def ssh_ended() -> None:
    """Wait until this process's ssh clients are gone (each ends once its link is closed)."""
    async with asyncio.timeout(WAIT):
        while ssh_clients():
            await asyncio.sleep(0.05)


async def test_a_bridge_of_another_pideck_is_refused_at_once_saying_what_to_do(sshd: SshServer, tmp_path: Path) -> None:
    hello = json.dumps({"pideck-bridge": 1, "pideck": "0.0.1\x1b[31m", "protocol": 1})
    answer = [sys.executable, "-c", f"import sys; print({hello!r}, flush=True); sys.stdin.read()"]  # (then waits)
    link = HeldLink([sys.executable, str(FAKE_PI)], holder_env={}, env=dict(os.environ), cwd=tmp_path,
                    opener=opener(sshd, answer))
    async with asyncio.timeout(WAIT):
        with pytest.raises(LinkError) as refused:
            await link.start()
    why = str(refused.value)
    assert f"runs pideck 0.0.1, this is {version()}: install pideck {version()} there" in why
    assert "\x1b" not in why
    assert not ssh_clients()  # (ssh ended at once, though the remote command waited on)


async def test_a_host_ssh_cannot_log_in_to_says_what_ssh_said(sshd: SshServer, host_runtime: Path,
                                                              tmp_path: Path) -> None:
    link = HeldLink([sys.executable, str(FAKE_PI)], holder_env={}, env=dict(os.environ), cwd=tmp_path,
                    opener=opener(sshd, bridge_command(host_runtime), key=sshd.stray_key))
    async with asyncio.timeout(WAIT):
        with pytest.raises(LinkError, match=r"cannot reach 127\.0\.0\.1: .*Permission denied"):
            await link.start()
    assert not (host_runtime / "pideck").exists()  # (the bridge never ran: no holder there)
