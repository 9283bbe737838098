"""The holder's socket at its edges: who listens and who connects (checked from both ends),
what a hostile peer may send, the folder it is in."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.hold import frames
from protocol.hold.ask import ask
from protocol.hold.early import HoldError, holder_socket, start_holder
from protocol.hold.place import SOCKET_NAME, UnsafePlace, hold_dir


@pytest.fixture
def holder() -> Iterator[tuple[dict[str, str], Path]]:
    """A holder started in a runtime folder of the test's own: its env and its folder."""
    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    start_holder(folder, env)
    yield env, folder
    try:
        ask({"op": "stop", "all": True}, env, timeout=30.0)
    except OSError:
        pass
    shutil.rmtree(runtime, ignore_errors=True)


def exchange(folder: Path, data: bytes, timeout: float = 20.0) -> bytes:
    """What the holder answers `data` with, until it closes the connection."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(timeout)
        sock.connect(str(folder / SOCKET_NAME))
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            return b""
        got = b""
        while chunk := sock.recv(1 << 16):
            got += chunk
        return got


@pytest.mark.parametrize("payload", [
    b'{"op":"list","x":' + b"[" * 200_000 + b"]" * 200_000 + b"}",
    b'{"op":"attach","protocol":1,"number":[1]}',
    b'{"op":"spawn","protocol":1,"argv":5,"env":{},"cwd":"/"}',
    b'{"op":"stop","number":{"a":1}}',
    b'{"op":"signal","signal":"TERM"}',
    b'[' * 1000 + b']' * 1000,
], ids=["200,000 deep", "a list for a number", "argv a number", "an object for a number", "a name for a signal",
        "not an object"])
def test_a_hostile_control_ends_its_connection_with_one_line(holder: tuple[dict[str, str], Path],
                                                               payload: bytes) -> None:
    env, folder = holder
    assert exchange(folder, frames.frame(frames.CONTROL, payload)) == b""
    assert (ask({"op": "list"}, env) or {}).get("pis") == [], "the holder serves on"
    log = (folder / "holder.log").read_text()
    assert "Traceback" not in log and "Error" not in log.replace("error", ""), log[-2000:]
    assert log.count("its connection is closed") == 1, log[-2000:]


def test_a_line_for_pi_nested_too_deep_is_refused_and_the_window_stays(holder: tuple[dict[str, str], Path]) -> None:
    env, folder = holder
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(20)
        sock.connect(str(folder / SOCKET_NAME))
        sock.sendall(frames.control(op="spawn", protocol=frames.PROTOCOL, argv=["sleep", "60"], env={}, cwd="/"))
        reader = frames.FrameReader(frames.FROM_HOLDER)
        hello: list[tuple[bytes, bytes]] = []
        while not hello:
            hello = reader.feed(sock.recv(1 << 16))
        assert b'"number"' in hello[0][1]
        sock.sendall(frames.frame(frames.STDIN, b'{"type":"prompt","id":' + b"[" * 200_000 + b"]" * 200_000 + b"}\n"))
        deadline = time.monotonic() + 20
        while "refused: not a JSON record" not in (folder / "holder.log").read_text():
            assert time.monotonic() < deadline, (folder / "holder.log").read_text()[-2000:]
            time.sleep(0.02)
        assert [pi["windows"] for pi in (ask({"op": "list"}, env) or {})["pis"]] == [1], "the window still watches"
    assert "Traceback" not in (folder / "holder.log").read_text()


def test_a_line_for_pi_before_a_spawn_is_refused_by_its_header(holder: tuple[dict[str, str], Path]) -> None:
    """A connection that has neither spawned nor attached sends a 256 MB line: the holder
    refuses it on the frame's header, not after reading it."""
    env, folder = holder
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(20)
        sock.connect(str(folder / SOCKET_NAME))
        sock.sendall(frames.HEADER.pack(frames.STDIN, frames.MAX_FRAME))
        sent = 0
        with pytest.raises((BrokenPipeError, ConnectionResetError)):
            chunk = b"x" * (1 << 20)
            while sent < frames.MAX_FRAME:
                sent += sock.send(chunk)
        assert sent < 64 << 20, f"the holder read {sent:,} bytes of a frame it refuses"
    assert "i frame of 268,435,456 bytes is over the limit" in (folder / "holder.log").read_text()


@pytest.mark.skipif(os.getuid() != 0, reason="another uid is taken by root only")
def test_a_window_tells_a_listener_of_another_user_nothing() -> None:
    """Another user's process listens where the holder's socket is (it swapped the folder in
    a runtime folder open to it): the window, `pideck ls` and the early spawn refuse it
    before sending a byte."""
    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    read, write = os.pipe()
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the impostor: binds where the holder would, then listens as nobody
        received = 0
        try:
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(folder / SOCKET_NAME))
            os.chmod(folder / SOCKET_NAME, 0o777)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            listener.listen(8)
            listener.settimeout(20)
            os.write(ready_write, b"x")
            for _ in range(3):
                peer, _ = listener.accept()
                peer.settimeout(1)
                try:
                    while chunk := peer.recv(1 << 16):
                        received += len(chunk)
                except OSError:
                    pass
                peer.close()
        finally:
            os.write(write, str(received).encode())
            os._exit(0)
    os.close(write)
    try:
        assert os.read(ready_read, 1) == b"x"
        with pytest.raises(HoldError, match="another user"):
            holder_socket(env)
        with pytest.raises(UnsafePlace, match="another user"):
            ask({"op": "list"}, env)
        from protocol.hold.early import ask_early, spawn_request

        assert ask_early(spawn_request(["pi"], {"OPENAI_API_KEY": "secret"}, "/", {}, None), env) is None
        with os.fdopen(read, "rb") as pipe:
            assert pipe.read() == b"0", "the impostor read what a window sent"
    finally:
        os.waitpid(pid, 0)
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_folder_others_may_write_without_the_sticky_bit_is_not_used(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime folder others may write (0777, 0770): another user could put a folder of
    their own in place of pideck's; /tmp is used instead (so long as it has its sticky bit)."""
    import protocol.hold.place as place

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)
    monkeypatch.setattr(place, "TMP", tmp)
    for mode in (0o777, 0o770):
        runtime = tmp_path / f"run{mode:o}"
        runtime.mkdir()
        runtime.chmod(mode)
        assert hold_dir({"XDG_RUNTIME_DIR": str(runtime)}) == tmp / f"pideck-{os.getuid()}"
        assert not (runtime / "pideck").exists()
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    assert hold_dir({"XDG_RUNTIME_DIR": str(sticky)}) == sticky / "pideck"
    tmp.chmod(0o777)
    with pytest.raises(UnsafePlace, match="without the sticky bit"):
        hold_dir({"XDG_RUNTIME_DIR": str(tmp_path / "run777")})
    assert stat.S_IMODE(tmp.stat().st_mode) == 0o777


def wait_for(condition, what: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def spawned(folder: Path, argv: list[str]) -> socket.socket:
    """A window's connection to the holder that spawned `argv` for it (after the hello)."""
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(30)
    sock.connect(str(folder / SOCKET_NAME))
    sock.sendall(frames.control(op="spawn", protocol=frames.PROTOCOL, argv=argv, env={"PATH": os.environ["PATH"]}, cwd="/"))
    reader = frames.FrameReader(frames.FROM_HOLDER)
    got: list[tuple[bytes, bytes]] = []
    while not got:
        got = reader.feed(sock.recv(1 << 16))
    assert b'"number"' in got[0][1], got
    return sock


def test_the_socket_removed_with_its_runtime_folder_is_made_again(holder: tuple[dict[str, str], Path]) -> None:
    """systemd-logind removes the runtime folder at a user's last logout, and makes it again
    at the next login: the holder binds its socket again, and pideck ls, attach and the next
    pideck find it and its pis (not a second holder)."""
    env, folder = holder
    window = spawned(folder, ["sleep", "60"])
    try:
        before = ask({"op": "list"}, env)
        assert before is not None and [pi["number"] for pi in before["pis"]] == [1]
        runtime = Path(env["XDG_RUNTIME_DIR"])
        shutil.rmtree(runtime)
        runtime.mkdir(mode=0o700)
        after = wait_for(lambda: ask({"op": "list"}, env), "the holder to listen again")
        assert after["holder"] == before["holder"], "a second holder"
        assert [(pi["number"], pi["windows"]) for pi in after["pis"]] == [(1, 1)]
        assert "listening again" in (folder / "holder.log").read_text()
        assert stat.S_IMODE((folder / SOCKET_NAME).stat().st_mode) == 0o600
        with holder_socket(env) as sock:  # (the next window's connection)
            sock.sendall(frames.control(op="list"))
            assert sock.recv(1 << 16)
    finally:
        window.close()


def test_a_window_that_comes_while_the_holder_ends_gets_a_new_holder(holder: tuple[dict[str, str], Path]) -> None:
    """SIGTERM to a holder whose pi takes seconds to close (it ignores its stdin's end and
    SIGTERM): the socket goes at once, so a window coming meanwhile starts a holder of its
    own, which serves once the last one has let its lock go; the one it told to go ends in order."""
    import signal

    env, folder = holder
    window = spawned(folder, ["sh", "-c", "trap '' TERM; exec sleep 60"])
    try:
        first = ask({"op": "list"}, env)
        assert first is not None
        os.kill(first["holder"], signal.SIGTERM)
        wait_for(lambda: not (folder / SOCKET_NAME).exists(), "the socket to go")
        with holder_socket(env) as sock:  # (a holder started while the last one still closes its pi)
            sock.sendall(frames.control(op="list"))
            reader = frames.FrameReader(frames.FROM_HOLDER)
            answer: list[tuple[bytes, bytes]] = []
            while not answer:
                answer = reader.feed(sock.recv(1 << 16))
        listed = frames.read_control(answer[0][1])
        assert listed["holder"] != first["holder"] and listed["pis"] == []
        told = window.recv(1 << 16)
        assert b'"leaving"' in told and b"SIGTERM" in told
        log = (folder / "holder.log").read_text()
        assert "SIGTERM: closing the pis" in log and f"holder {first['holder']} done (SIGTERM)" in log
    finally:
        window.close()


def rss(pid: int) -> int:
    """A process's resident memory, in bytes."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_lines_for_a_pi_that_does_not_read_wait_in_the_window(holder: tuple[dict[str, str], Path]) -> None:
    """pi does not read its stdin (stopped, stuck): the holder stops reading the window's
    lines once pi's stdin holds a bound of them, so they wait in the window, where they
    grew the holder by as much as was sent."""
    env, folder = holder
    window = spawned(folder, ["sleep", "60"])
    try:
        listed = ask({"op": "list"}, env)
        assert listed is not None
        pid = listed["holder"]
        before = rss(pid)
        line = frames.frame(frames.STDIN, b'{"type":"prompt","message":"' + b"x" * (1 << 20) + b'"}\n')
        window.setblocking(False)
        sent, most, view = 0, 200 << 20, memoryview(line)
        offset = 0
        stalled = time.monotonic()
        while sent < most and time.monotonic() - stalled < 3.0:
            try:
                count = window.send(view[offset:])
            except BlockingIOError:
                time.sleep(0.01)
                continue
            sent += count
            offset = (offset + count) % len(line)
            stalled = time.monotonic()
        grown = rss(pid) - before
        assert sent < 32 << 20, f"the holder took {sent:,} bytes for a pi that reads none"
        assert grown < 64 << 20, f"the holder grew by {grown:,} bytes"
    finally:
        window.close()


def test_a_flood_of_empty_lines_leaves_a_short_log(holder: tuple[dict[str, str], Path]) -> None:
    """1 MB of empty frames for pi, each refused: the log says so a few times, then counts."""
    env, folder = holder
    window = spawned(folder, ["sleep", "60"])
    window.sendall(frames.frame(frames.STDIN, b"") * ((1 << 20) // frames.HEADER.size))
    window.close()
    wait_for(lambda: [pi["windows"] for pi in (ask({"op": "list"}, env) or {}).get("pis", [])] == [0],
             "the holder to have read the window to its end")
    size = (folder / "holder.log").stat().st_size
    assert size < 16 << 10, f"{size:,} bytes of log"


def test_a_holder_forked_for_a_window_spawns_its_pi_at_once() -> None:
    """The first pideck when no holder runs: the holder is forked from it and spawns its pi
    before it imports or serves anything; the window's spawn request, naming that pi by its
    token, gets it (and only once: another request spawns another)."""
    from protocol.hold.early import fork_holder

    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    marker = f"{time.time() % 1000:.6f}"
    request = {"op": "spawn", "protocol": frames.PROTOCOL, "argv": ["sleep", marker], "env": {"PATH": os.environ["PATH"]},
               "cwd": "/", "window": {}}
    try:
        token = fork_holder(folder, request)
        assert token
        pids = wait_for(lambda: [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                                 and _cmdline(p) == ["sleep", marker]], "pi spawned before any window asked")
        hellos = []
        for spawned in (token, token):
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(30)
                sock.connect(str(folder / SOCKET_NAME))
                sock.sendall(frames.control(**request, spawned=spawned))
                reader = frames.FrameReader(frames.FROM_HOLDER)
                got: list[tuple[bytes, bytes]] = []
                while not got:
                    got = reader.feed(sock.recv(1 << 16))
                hellos.append(frames.read_control(got[0][1]))
                sock.sendall(frames.control(op="detach", draft=""))
        assert hellos[0]["pid"] == pids[0]
        assert hellos[1]["pid"] != pids[0], "the token names one pi, once"
    finally:
        with contextlib.suppress(OSError):
            ask({"op": "stop", "all": True}, env, timeout=30.0)
        shutil.rmtree(runtime, ignore_errors=True)


def _cmdline(process: Path) -> list[str]:
    try:
        return (process / "cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


async def test_a_window_told_the_holder_is_ending_starts_a_new_one() -> None:
    """The holder answers a window's spawn that it is ending (a signal came as the window
    connected), and takes its socket away: the window asks again, which starts a new
    holder, instead of saying pi could not start."""
    import asyncio
    import sys
    import threading

    from protocol.hold.held_link import held_client

    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / SOCKET_NAME))
    listener.listen(1)
    listener.settimeout(30)

    def ending_holder() -> None:
        peer, _ = listener.accept()
        with peer:
            peer.recv(1 << 20)
            (folder / SOCKET_NAME).unlink()
            peer.sendall(frames.control(op="hello", leaving=True, error="pideck's holder is ending (SIGTERM)"))
        listener.close()

    ending = threading.Thread(target=ending_holder)
    ending.start()
    client = held_client([sys.executable, str(Path(__file__).parents[1] / "fake_pi.py")], holder_env=env, env=env)
    try:
        await asyncio.wait_for(client.start(), 60)
        assert client.exited is None, client.exited
        assert isinstance(client.hello.number, int)
        assert (ask({"op": "list"}, env) or {}).get("pis"), "a new holder holds the window's pi"
    finally:
        ending.join(30)
        client.detach()
        with contextlib.suppress(OSError):
            ask({"op": "stop", "all": True}, env, timeout=30.0)
        shutil.rmtree(runtime, ignore_errors=True)
