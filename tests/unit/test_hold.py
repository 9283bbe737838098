"""The holder's pieces that need no pi: its frames, its folder, who may use its socket, the
window's stream of pi's lines, and what `pideck ls`, `stop` and `attach` read."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import signal
import socket
import stat
import sys
import tempfile
import time
from pathlib import Path

import pytest

from app.cli.hold import attach_args, stop_main, table
from app.terminal.say import say
from protocol.hold import frames
from protocol.hold.ask import ask
from protocol.hold.early import start_holder
from protocol.hold.place import SOCKET_NAME, UnsafePlace, hold_dir


def test_frames_come_out_whole_whatever_the_chunks() -> None:
    data = frames.control(op="hello") + frames.frame(frames.STDOUT, b'{"type":"x"}') + frames.frame(frames.STDERR, b"")
    reader = frames.FrameReader(frames.FROM_HOLDER)
    got = [frame for i in range(len(data)) for frame in reader.feed(data[i : i + 1])]
    assert got == [(b"c", b'{"op":"hello"}'), (b"o", b'{"type":"x"}'), (b"e", b"")]
    assert reader.pending == 0


@pytest.mark.parametrize("data, why", [
    (b"hello\n", "unknown kind"),
    (frames.HEADER.pack(b"o", 1), "unknown kind"),  # a holder's kind, from a window
    (frames.HEADER.pack(b"i", frames.MAX_FRAME + 1), "over the limit"),
    (frames.HEADER.pack(b"c", frames.MAX_CONTROL + 1), "over the limit"),
])
def test_a_broken_stream_is_refused_at_its_header(data: bytes, why: str) -> None:
    with pytest.raises(frames.BadFrame, match=why):
        frames.FrameReader(frames.FROM_WINDOW).feed(data)


def test_a_control_frame_must_be_an_object() -> None:
    with pytest.raises(frames.BadFrame):
        frames.read_control(b"[1]")
    with pytest.raises(frames.BadFrame):
        frames.read_control(b"{")


def test_the_folder_is_made_private_and_an_open_one_refused(tmp_path: Path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    folder = hold_dir({"XDG_RUNTIME_DIR": str(runtime)})
    assert folder == runtime / "pideck"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.chmod(0o755)
    with pytest.raises(UnsafePlace, match="open to other users"):
        hold_dir({"XDG_RUNTIME_DIR": str(runtime)})
    folder.chmod(0o700)
    link_runtime = tmp_path / "run2"
    link_runtime.mkdir(mode=0o700)
    (link_runtime / "pideck").symlink_to(folder)
    with pytest.raises(UnsafePlace, match="not a folder"):
        hold_dir({"XDG_RUNTIME_DIR": str(link_runtime)})


def test_a_runtime_folder_too_deep_for_a_socket_falls_back_to_tmp(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir(mode=0o700)
    assert hold_dir({"XDG_RUNTIME_DIR": str(deep)}) == Path("/tmp") / f"pideck-{os.getuid()}"


@pytest.mark.skipif(os.getuid() != 0, reason="another uid is taken by root only")
def test_another_user_is_refused_even_through_an_open_folder() -> None:
    """As made, the folder keeps others out; opened by mistake, the holder still refuses a
    peer of another uid (the kernel says who it is)."""
    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))  # (pytest's tmp_path is in a 0700 folder)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    start_holder(folder, env)
    keep = socket.socket(socket.AF_UNIX)
    keep.connect(str(folder / SOCKET_NAME))  # (a connection keeps the holder from leaving)
    try:
        assert _as_nobody(folder) == "PermissionError"
        for path in (runtime, folder):
            path.chmod(0o755)
        (folder / SOCKET_NAME).chmod(0o777)
        assert _as_nobody(folder) == "closed"
        folder.chmod(0o700)
        assert (ask({"op": "list"}, env) or {}).get("pis") == []  # the holder is fine
        log = (folder / "holder.log").read_text()
        assert "refused a peer of uid 65534" in log
    finally:
        keep.close()
        shutil.rmtree(runtime, ignore_errors=True)


def _as_nobody(folder: Path) -> str:
    """What a process of uid 65534 gets when it asks the holder for its list."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nobody, asking
        outcome = "answered"
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(10)
                sock.connect(str(folder / SOCKET_NAME))
                sock.sendall(frames.control(op="list"))
                if not sock.recv(1 << 16):
                    outcome = "closed"
        except PermissionError:
            outcome = "PermissionError"
        except (ConnectionResetError, BrokenPipeError):
            outcome = "closed"  # (the holder closed it before reading what was sent)
        except BaseException as exc:  # noqa: BLE001 (said to the parent)
            outcome = repr(exc)
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 20
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        assert time.monotonic() < deadline, "the child did not end"
        time.sleep(0.01)
    with os.fdopen(read, "rb") as pipe:
        return pipe.read().decode()


def test_attach_reads_its_numbers_then_the_options() -> None:
    assert attach_args(["2", "5", "--cwd", "x"]) == ([2, 5], ["--cwd", "x"])
    assert attach_args([]) == ([], [])
    assert attach_args(["²"]) == ([], ["²"])


def test_stop_wants_numbers_or_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert stop_main([], {}, None) == 2  # type: ignore[arg-type]
    assert stop_main(["1", "--all"], {}, None) == 2  # type: ignore[arg-type]
    assert stop_main(["x"], {}, None) == 2  # type: ignore[arg-type]
    assert "pideck stop" in capsys.readouterr().err


def test_a_listed_line_shows_a_hostile_folder_name_as_data() -> None:
    shown = table([{"number": 3, "state": "working", "cwd": "/tmp/\x1b]0;owned\x07x", "windows": 2,
                    "last_activity": 100.0, "window": {"remote": None}}], 130.0, None)[1]
    assert shown.startswith("  3  working")
    assert "2 windows" in shown and "30 s ago" in shown
    out = io.StringIO()
    say(shown, file=out)  # (as ls_main prints it)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "owned" in out.getvalue()


async def test_a_holder_folder_open_to_others_is_said_as_pi_not_starting(tmp_path: Path) -> None:
    from protocol.hold.held_link import held_client

    runtime = tmp_path / "run"
    (runtime / "pideck").mkdir(parents=True, mode=0o700)
    (runtime / "pideck").chmod(0o777)
    client = held_client(["pi"], holder_env={"XDG_RUNTIME_DIR": str(runtime)})
    await client.start()
    assert client.exited is not None and client.exited.error is not None
    assert "open to other users" in client.exited.error


@pytest.mark.parametrize("flags, setting, held", [
    ([], None, True), ([], "", True), ([], "0", False), ([], "off", False), ([], "1", True),
    (["--no-hold"], "1", False), (["--hold"], "0", True),
])
def test_pi_is_held_unless_said_otherwise(flags: list[str], setting: str | None, held: bool) -> None:
    from app.cli.pideck import parse_args
    from app.pi.launch import holding

    env = {} if setting is None else {"PIDECK_HOLD": setting}
    assert holding(parse_args(flags), env) is held


def test_a_holder_started_while_the_last_one_leaves_waits_for_its_lock() -> None:
    """The last holder has taken its socket away but not yet let its lock go (its process
    ends): a holder started then waits for the lock and listens, where it left at once and
    the window waited for a socket nobody would make."""
    import fcntl
    import threading

    from protocol.hold.place import LOCK_NAME

    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    leaving = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(leaving, fcntl.LOCK_EX)
    started = threading.Thread(target=start_holder, args=(folder, env))
    started.start()
    try:
        deadline = time.monotonic() + 20
        while not _holds_open(folder / LOCK_NAME, str(folder)):  # the new one has its lock file open
            assert time.monotonic() < deadline, "the new holder never opened its lock"
            time.sleep(0.01)
        os.close(leaving)  # the last holder's process ends
        started.join(30)
        assert (ask({"op": "list"}, env) or {}).get("pis") == [], "a holder listens"
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def _holds_open(path: Path, marker: str) -> bool:
    """Some process started with `marker` on its command line has `path` open."""
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes() and any(
                    os.readlink(fd) == str(path) for fd in (entry / "fd").iterdir()):
                return True
        except OSError:
            continue
    return False


def test_a_window_of_another_version_is_refused_before_anything_starts() -> None:
    runtime = Path(tempfile.mkdtemp(prefix="pideck-test-run-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    folder = hold_dir(env)
    start_holder(folder, env)
    try:
        for request in ({"op": "spawn", "protocol": frames.PROTOCOL + 1, "argv": ["sleep", "60"], "env": {}, "cwd": "/"},
                        {"op": "spawn", "argv": ["sleep", "60"], "env": {}, "cwd": "/"}):
            answer = ask(request, env)
            assert answer is not None and "another version" in answer["error"]
        assert (ask({"op": "list"}, env) or {}).get("pis") == [], "nothing was started"
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


async def test_a_holder_waits_for_its_first_window_longer_than_it_lingers(tmp_path: Path) -> None:
    """A window slower to come than the holder's linger (a loaded machine) finds it listening;
    once that window has gone, the holder leaves after its linger."""
    from protocol.hold.holder import Holder
    from protocol.hold.listen import take

    listening = take(tmp_path)
    assert listening is not None
    path = listening.path
    holder = Holder(tmp_path, lambda line: None, linger=0.05)
    served = asyncio.ensure_future(holder.serve(listening))
    await asyncio.sleep(0.5)  # the window that started it, ten lingers late
    assert not served.done()
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(frames.control(op="list"))
    assert await reader.read(1 << 16)
    writer.close()
    await asyncio.wait_for(served, 10)  # (then it leaves)


async def test_a_pi_closed_idle_is_listed_until_stopped_and_keeps_its_holder(tmp_path: Path) -> None:
    """The holder lists a pi it closed idle as it was (no pid, its session file, its drafts
    only when asked) and stays for it; `pideck stop N` forgets it, and then the holder leaves."""
    from protocol.hold.holder import Holder
    from protocol.hold.listen import take

    listening = take(tmp_path)
    assert listening is not None
    path = listening.path
    holder = Holder(tmp_path, lambda line: None, linger=0.05)
    holder._served = True
    holder.resting[4] = {"number": 4, "pid": None, "cwd": "/p", "state": "idle", "windows": 0,
                         "session_file": "/p/s.jsonl", "drafts": ["half a thought"]}
    served = asyncio.ensure_future(holder.serve(listening))

    async def asked(**request: object) -> dict[str, object]:
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(frames.control(**request))
        reader_frames = frames.FrameReader(frames.FROM_HOLDER)
        while not (got := reader_frames.feed(await reader.read(1 << 16))):
            pass
        writer.close()
        return frames.read_control(got[0][1])

    await asyncio.sleep(0.5)  # ten lingers: it stays for the pi it may bring back
    assert not served.done()
    (listed,) = (await asked(op="list"))["pis"]  # type: ignore[misc]
    assert listed["session_file"] == "/p/s.jsonl" and "drafts" not in listed
    assert [pi["drafts"] for pi in (await asked(op="list", drafts=True))["pis"]] == [["half a thought"]]  # type: ignore[attr-defined]
    assert (await asked(op="stop", number=4))["numbers"] == [4]
    assert (await asked(op="list"))["pis"] == []
    await asyncio.wait_for(served, 10)  # (then it leaves)


def test_a_pi_closed_idle_whose_folder_went_is_named_not_a_stop_to_pideck(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain `pideck` starts its own pi (one that cannot come back is no reason to refuse);
    `pideck attach 4` says why it cannot."""
    import argparse

    from app.cli.hold import attach_launches
    from app.pi.launch import LaunchConfig, LaunchError

    gone = tmp_path / "gone"
    monkeypatch.setattr("app.cli.hold.held", lambda env, drafts=False: [
        {"number": 4, "pid": None, "cwd": str(gone), "state": "idle", "windows": 0,
         "session_file": str(gone / "s.jsonl"), "resting": True, "window": {"argv": ["pi", "--mode", "rpc"]}}])
    base = LaunchConfig(argv=("pi", "--mode", "rpc"), env={}, cwd=tmp_path, demo=False, protocol_log=tmp_path / "log")
    assert attach_launches(base, argparse.Namespace(attach=None), {}) == []
    for asked in ([4], []):
        with pytest.raises(LaunchError, match=f"held pi 4 cannot come back: {gone}: does not exist"):
            attach_launches(base, argparse.Namespace(attach=asked), {})


def _deltas(lines: list[bytes]) -> list[int]:
    return [int(line.split(b'"delta":"')[1][:8]) for line in lines if b"bash_execution_update" in line]


async def test_a_window_that_reads_nothing_for_a_while_is_caught_up_never_let_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A window stops reading (Ctrl+Z, a blocked terminal) while pi floods it with ten times
    what it may leave unread: the holder throws away what waits for it and cuts it again,
    as often as it falls behind; when it reads again it has its connection, and from its
    last cut on the run whole, in order, to its end."""
    from protocol.hold import held_pi
    from protocol.hold.held_link import held_client
    from protocol.wire.commands import GetState, Prompt
    from protocol.wire.events import AgentSettled
    from tests.held_holder import RawWindow, flood_stream, holder_in_loop
    from tests.pi_harness import FAKE_PI, Recorder

    monkeypatch.setattr(held_pi, "BEHIND_LIMIT", 1 << 20)
    stream = flood_stream(tmp_path / "flood.jsonl", 100_000)  # ~12 MB
    async with holder_in_loop(tmp_path / "run") as held:
        fast = held_client([sys.executable, str(FAKE_PI), "--stream", str(stream), "--rate", "2000/10"],
                          holder_env=held.env)
        records = Recorder(fast)
        await fast.start()
        await fast.call(GetState(), timeout=30)
        slow = await RawWindow.attach(held.env, fast.hello.number)
        await slow.read_until(lambda window: any(kind == frames.MESSAGES for kind, _ in window.frames))
        await fast.call(Prompt(message="flood"), timeout=30)
        await records.wait_for(AgentSettled, timeout=60)
        assert any("fell behind" in line for line in held.log), held.log
        probe = f'{slow.controls("hello")[0]["prefix"]}probe'.encode()  # answered behind all it was sent before
        slow.writer.write(frames.frame(frames.STDIN, b'{"type":"get_state","id":"' + probe + b'"}\n'))
        await slow.read_until(lambda window: any(b'"id":"' + probe in payload for _, payload in window.frames[-3:]))
        assert not slow.ended, "the slow window was let go"
        assert len(slow.controls("snapshot")) > 1
        after = [line for line in slow.lines_after_last_cut() if probe not in line]
        if b'{"type":"agent_start"}' not in after:  # (a loaded machine: its last cut came when pi had settled)
            assert not _deltas(after), "cut after the run: the run is wholly in pi's messages, none of it after"
        else:  # (cut during the run: the run's records from its start follow the cut, whole)
            assert after[0] == b'{"type":"agent_start"}' and after[-1] == b'{"type":"agent_settled"}'
            assert _deltas(after) == list(range(100_000))
        slow.close()
        await fast.close()


async def test_a_window_whose_link_to_the_holder_broke_attaches_again(tmp_path: Path) -> None:
    """The window's connection breaks while its holder and pi go on: it attaches again to the
    same pi, drawn again from a cut, where it said the holder had gone and offered to start pi."""
    from protocol.hold.held_link import held_client
    from protocol.wire.client import ChildExited, RpcClient
    from protocol.wire.commands import GetState
    from protocol.wire.extension_ui import CaughtUp
    from tests.held_holder import holder_in_loop
    from tests.pi_harness import FAKE_PI, Recorder

    async with holder_in_loop(tmp_path / "run") as held:
        window = held_client([sys.executable, str(FAKE_PI)], holder_env=held.env)
        records = Recorder(window)
        await window.start()
        await window.call(GetState(), timeout=30)
        (pi,) = held.holder.pis.values()
        pi.watchers[0].writer.transport.abort()
        await records.wait_for(lambda record: isinstance(record, (CaughtUp, ChildExited)), timeout=30)
        assert records.of_type(ChildExited) == [], records.of_type(ChildExited)
        assert (await window.call(GetState(), timeout=30)).model is not None
        assert list(held.holder.pis) == [pi.number] and len(pi.watchers) == 1
        await window.close()


async def test_a_request_sent_before_the_link_broke_fails_and_the_next_goes_through(tmp_path: Path) -> None:
    """pi's answer to a request of the old link went with it: that request fails at once,
    saying why, and what is asked on the new link is answered."""
    from protocol.hold.held_link import held_client
    from protocol.wire.client import RpcError
    from protocol.wire.commands import GetState
    from protocol.wire.extension_ui import CaughtUp
    from tests.held_holder import holder_in_loop
    from tests.pi_harness import FAKE_PI, Recorder

    async with holder_in_loop(tmp_path / "run") as held:
        window = held_client([sys.executable, str(FAKE_PI)], holder_env=held.env)
        records = Recorder(window)
        await window.start()
        await window.call(GetState(), timeout=30)
        assert window.hello is not None and window.hello.pid is not None
        (pi,) = held.holder.pis.values()
        os.kill(window.hello.pid, signal.SIGSTOP)  # (it answers nothing until the link is made again)
        try:
            pending = asyncio.ensure_future(window.call_now(GetState(), timeout=60))
            await asyncio.sleep(0)
            pi.watchers[0].writer.transport.abort()
        finally:
            os.kill(window.hello.pid, signal.SIGCONT)
        with pytest.raises(RpcError, match="the link to pideck's holder broke"):
            await asyncio.wait_for(pending, 30)
        await records.wait_for(lambda record: isinstance(record, CaughtUp), timeout=30)
        assert (await window.call(GetState(), timeout=30)).model is not None
        await window.close()


async def test_a_run_the_disk_will_not_take_costs_the_live_window_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The holder's folder takes no file (full, read-only): the window watching gets every
    record and the run's end, and `pideck ls` says the run ended; what the holder could not
    keep is said once in its log, and a window attaching mid-run gets what it kept, told
    what it could not."""
    import errno
    import tempfile as tempfile_module

    from protocol.hold import held_pi
    from protocol.hold.held_link import held_client
    from protocol.wire.commands import Abort, GetState, Prompt
    from protocol.wire.events import AgentSettled, BashExecutionUpdate
    from protocol.wire.extension_ui import NotifyRequest
    from tests.held_holder import flood_stream, holder_in_loop
    from tests.pi_harness import FAKE_PI, Recorder

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(held_pi, "RUN_MEMORY", 64 << 10)
    monkeypatch.setattr(held_pi, "SPOOL_FALLBACK", 256 << 10)
    monkeypatch.setattr(tempfile_module, "TemporaryFile", full)
    stream = flood_stream(tmp_path / "flood.jsonl", 3000, pad=300)  # ~1 MB
    async with holder_in_loop(tmp_path / "run") as held:
        argv = [sys.executable, str(FAKE_PI), "--stream", str(stream), "--stop-after", "2501"]
        live = held_client(argv, holder_env=held.env)
        seen = Recorder(live)
        await live.start()
        await live.call(GetState(), timeout=30)
        await live.call(Prompt(message="flood"), timeout=30)
        await seen.wait_for(lambda record: len(seen.of_type(BashExecutionUpdate)) == 2500, timeout=60)
        later = held_client(argv, holder_env=held.env, number=live.hello.number)
        told = Recorder(later)
        await later.start()
        note = await told.wait_for(NotifyRequest, timeout=30)
        assert note.notify_type == "warning" and "could not keep all of this run" in note.message
        kept = len(told.of_type(BashExecutionUpdate))
        assert 0 < kept < 2500
        await live.call(Abort(), timeout=30)
        await seen.wait_for(AgentSettled, timeout=30)
        assert [record.delta[:8] for record in seen.of_type(BashExecutionUpdate)] == [f"{n:08d}" for n in range(2500)]
        assert [pi["state"] for pi in (await asyncio.to_thread(ask, {"op": "list"}, held.env) or {})["pis"]] == ["idle"]
        assert sum("could not be written" in line for line in held.log) == 1, held.log
        later.detach()
        await live.close()


def test_a_spool_reads_back_across_memory_file_and_what_followed_a_failed_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines go to memory, then to the file; once the disk refuses one, to memory up to the
    fallback, then nowhere (counted); whatever was kept reads back whole from any offset,
    also while a window reads it after the run ended, and is let go after."""
    import errno

    from protocol.hold import spool as spool_module
    from protocol.hold.spool import Spool

    log: list[str] = []
    spool = Spool(str(tmp_path), memory=100, fallback=100, log=log.append)
    lines = [b"%08d%s\n" % (index, b"x" * 21) for index in range(20)]  # 30 bytes each
    for line in lines[:6]:
        spool.append(line)
    written = os.pwrite

    def full(fd: int, data: bytes, offset: int) -> int:
        if offset >= 90:  # (the file holds three lines, then the disk is full)
            raise OSError(errno.ENOSPC, "No space left on device")
        return written(fd, data, offset)

    monkeypatch.setattr(spool_module.os, "pwrite", full)
    for line in lines[6:]:
        spool.append(line)
    kept = b"".join(lines[:9])  # 3 in memory, 3 in the file, 3 in memory after it failed (the fallback's 100 bytes)
    assert spool.size == len(kept) and spool.failed == "No space left on device"
    assert spool.lost == sum(map(len, lines[9:]))
    assert b"".join(spool.read(offset, 7) for offset in range(0, spool.size, 7)) == kept
    assert log == [f"a run's records could not be written to {tmp_path} (No space left on device); "
                   "kept in memory up to 100 bytes from here"]
    spool.hold()
    spool.end()
    assert spool.read(0, spool.size) == kept  # (a window still reads it)
    spool.release()
    assert not list(tmp_path.iterdir())


async def test_a_run_of_more_than_64_mb_is_attached_whole(tmp_path: Path) -> None:
    """A run whose records are 70 MB (a minute of a verbose build's output), in a real holder:
    a window attaching gets it whole, in order, where it was let go for reading too slowly
    what the holder wrote in one step."""
    from protocol.hold.held_link import held_client
    from protocol.wire.client import ChildExited, RpcClient
    from protocol.wire.commands import GetState, Prompt
    from protocol.wire.events import BashExecutionUpdate
    from tests.held_holder import flood_stream
    from tests.pi_harness import FAKE_PI

    records = 70_000
    stream = flood_stream(tmp_path / "flood.jsonl", records, pad=1000)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    argv = [sys.executable, str(FAKE_PI), "--stream", str(stream), "--stop-after", str(records + 1)]

    async def window(number: int | None = None) -> tuple[RpcClient, list[str], asyncio.Event]:
        client = held_client(argv, holder_env=env, number=number)
        deltas: list[str] = []
        whole = asyncio.Event()

        def read(record: object) -> None:
            if isinstance(record, BashExecutionUpdate):
                deltas.append(record.delta[:8])
                if len(deltas) == records:
                    whole.set()
            elif isinstance(record, ChildExited):
                whole.set()

        client.add_listener(read)
        await client.start()
        assert client.exited is None, client.exited
        return client, deltas, whole

    try:
        first, _, first_whole = await window()
        await first.call(GetState(), timeout=30)
        await first.call(Prompt(message="flood"), timeout=30)
        await asyncio.wait_for(first_whole.wait(), 100)
        first.detach()
        later, deltas, whole = await window(first.hello.number)
        await asyncio.wait_for(whole.wait(), 100)
        assert later.exited is None, later.exited
        assert deltas == [f"{n:08d}" for n in range(records)]
        later.detach()
    finally:
        await asyncio.to_thread(ask, {"op": "stop", "all": True}, env, 30.0)
