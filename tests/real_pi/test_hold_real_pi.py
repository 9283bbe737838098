"""Held pis (protocol/hold/): the real pi in a real holder, reached by windows' clients.

Each test has a holder folder of its own (XDG_RUNTIME_DIR), and every pi it holds is stopped
at its end. A window here is a held client (protocol/hold/held_link.py), as pideck makes one (app/pi/early_start.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.load import load, out_of_time
from tests.pi_harness import (
    ROOT,
    SIZE,
    UI_EVERYTHING,
    HarnessPi,
    PiHarness,
    TmuxPideck,
    notes,
    send,
    started,
    transcript_text,
    wait_until,
)

from app.pi.launch import held_launch
from app.pideck_app import PideckApp
from app.scripted_model.scenarios import long_stream
from app.scripted_model.server import Reply
from protocol.hold import frames
from protocol.hold.ask import ask, held
from protocol.hold.held_link import HOLDER_GONE, held_client
from protocol.hold.place import SOCKET_NAME, hold_dir
from protocol.wire.client import ChildExited, RpcClient
from protocol.wire.commands import ExtensionUIResponse, FollowUp, GetMessages, GetState, Prompt
from protocol.wire.events import AgentSettled, MessageUpdate, TextDelta
from protocol.wire.messages import AssistantMessage, UserMessage
from protocol.wire.extension_ui import ConfirmRequest, DialogAnswered, EditorRequest, InputRequest, NotifyRequest, SelectRequest

pytestmark = pytest.mark.pi



class Window:
    """One window's client of a held pi, with every record it read."""

    def __init__(self, client: RpcClient) -> None:
        self.client = client
        self.records: list[Any] = []
        client.add_listener(self.records.append)

    def deltas(self) -> list[str]:
        return [r.assistant_message_event.delta for r in self.records
                if isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta)]

    def of(self, kind: type) -> list[Any]:
        return [r for r in self.records if isinstance(r, kind)]

    async def wait(self, condition: Any, what: str, timeout: float = 30.0) -> Any:
        started = time.monotonic()
        while not (value := condition()):
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {what}; {len(self.records)} records read")
            await asyncio.sleep(0.01)
        return value


@pytest.fixture
async def windows(pi_harness: PiHarness, holder_env: dict[str, str]) -> AsyncIterator[Any]:
    """`await windows()` starts a held pi in a new window; `await windows(number)` attaches."""
    opened: list[RpcClient] = []

    async def open_window(number: int | None = None, extensions: tuple[Path, ...] = ()) -> Window:
        client = held_client(pi_harness.make_argv(extensions=extensions), holder_env=holder_env, number=number,
                            env=pi_harness.env, cwd=pi_harness.cwd)
        window = Window(client)
        opened.append(client)
        await client.start()
        assert client.exited is None, client.exited
        await client.call(GetState(), timeout=30)
        return window

    yield open_window
    for client in opened:
        client.detach()


async def test_a_flood_left_at_a_third_is_whole_when_attached(pi_harness: PiHarness, windows: Any) -> None:
    """A 3,000-delta reply; the window leaves at about delta 1,000: the window attaching
    later gets every delta, in order, once, and the run's end."""
    pi_harness.reset_model()
    reply = long_stream(3000)
    pi_harness.model.queue(Reply(deltas=reply.deltas, delay=0.0005))
    first = await windows()
    number = first.client.hello.number
    await first.client.call(Prompt(message="flood"))
    await first.wait(lambda: len(first.deltas()) >= 1000, "a third of the flood")
    first.client.detach()
    seen_first = len(first.deltas())
    assert seen_first < 3000, "the window left before the flood ended"
    await asyncio.sleep(0)
    second = await windows(number)
    assert second.client.snapshot is not None
    await second.wait(lambda: second.of(AgentSettled), "the run's end")
    assert "".join(second.deltas()) == "".join(reply.deltas)
    assert len(second.deltas()) == 3000


async def test_a_run_that_ended_unwatched_is_listed_done_then_attached_whole(pi_harness: PiHarness, windows: Any,
                                                                            holder_env: dict[str, str]) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="The whole answer, said while nobody watched.", chunk_chars=3, delay=0.01))
    first = await windows()
    number = first.client.hello.number
    await first.client.call(Prompt(message="answer"))
    await first.wait(lambda: first.deltas(), "the reply's start")
    first.client.detach()
    states = await _wait_state(holder_env, number, "done")
    assert states[-1]["windows"] == 0
    second = await windows(number)
    assert second.client.snapshot is not None
    texts = [(type(m), _text(m)) for m in second.client.snapshot.history if isinstance(m, (UserMessage, AssistantMessage))]
    assert texts == [(UserMessage, "answer"), (AssistantMessage, "The whole answer, said while nobody watched.")]
    assert [pi["state"] for pi in held(holder_env)] == ["idle"]


async def test_a_dialog_asked_while_detached_is_answered_after_attaching(pi_harness: PiHarness, windows: Any) -> None:
    first = await windows(extensions=(UI_EVERYTHING,))
    number = first.client.hello.number
    asked = asyncio.ensure_future(first.client.call(Prompt(message="/ui-dialogs"), timeout=None))
    await first.wait(lambda: first.of(SelectRequest), "the select dialog")
    first.client.detach()
    asked.cancel()
    second = await windows(number)
    select = (await second.wait(lambda: second.of(SelectRequest), "the select dialog again"))[0]
    assert select.title == "Pick a colour"
    await second.client.send(ExtensionUIResponse(id=select.id, value="green"))
    await second.wait(lambda: second.of(ConfirmRequest), "the next dialog")
    notes = [r.message for r in second.of(NotifyRequest)]
    assert 'select="green"' in notes


async def test_two_windows_share_one_pi(pi_harness: PiHarness, windows: Any) -> None:
    """Both windows' messages reach pi in the order they were sent; a dialog answered in one
    is said closed in the other; one leaving leaves the other working."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="slow " * 40, chunk_chars=5, delay=0.02), Reply(text="Second."),
                           Reply(text="Third."), Reply(text="After the other left."))
    a = await windows(extensions=(UI_EVERYTHING,))
    b = await windows(a.client.hello.number)
    await a.client.call(Prompt(message="first"))
    await b.wait(lambda: b.deltas(), "the first reply, in the second window")
    await b.client.call(FollowUp(message="second"))
    await a.client.call(FollowUp(message="third"))
    await a.wait(lambda: len(a.of(AgentSettled)) >= 1 and "Third." in "".join(a.deltas()), "the three replies")
    messages = (await a.client.call(GetMessages())).messages
    assert [_text(m) for m in messages if isinstance(m, UserMessage)] == ["first", "second", "third"]
    asked = asyncio.ensure_future(a.client.call(Prompt(message="/ui-dialogs"), timeout=None))
    select = (await b.wait(lambda: b.of(SelectRequest), "the dialog in the second window"))[0]
    await a.wait(lambda: a.of(SelectRequest), "the dialog in the first window")
    await b.client.send(ExtensionUIResponse(id=select.id, value="red"))
    await a.wait(lambda: [r.id for r in a.of(DialogAnswered)] == [select.id], "the first window told it is answered")
    assert b.of(DialogAnswered) == []
    await a.wait(lambda: a.of(ConfirmRequest), "the next dialog")
    await a.client.send(ExtensionUIResponse(id=a.of(ConfirmRequest)[0].id, cancelled=True))
    b.client.detach()
    for kind in (InputRequest, EditorRequest):
        request = await a.wait(lambda: a.of(kind), kind.__name__)  # noqa: B023 (awaited here)
        await a.client.send(ExtensionUIResponse(id=request[0].id, cancelled=True))
    await asked
    before = len(a.of(AgentSettled))
    await a.client.call(Prompt(message="alone now"))
    await a.wait(lambda: len(a.of(AgentSettled)) > before, "a run after the other window left")
    assert "After the other left." in "".join(a.deltas())


async def test_the_holder_killed_mid_run_is_said_and_pi_goes(pi_harness: PiHarness, windows: Any,
                                                            holder_env: dict[str, str]) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="never finished " * 200, chunk_chars=4, delay=0.01))
    window = await windows()
    pid = window.client.hello.pid
    await window.client.call(Prompt(message="go"))
    await window.wait(lambda: window.deltas(), "the reply's start")
    holder = ask({"op": "list"}, holder_env)
    assert holder is not None
    os.kill(holder["holder"], signal.SIGKILL)
    exited = (await window.wait(lambda: window.of(ChildExited), "the exit"))[0]
    assert exited.error == HOLDER_GONE
    await window.wait(lambda: not _alive(pid), "pi gone with its holder", timeout=20)


async def test_hostile_peers_stop_nothing(pi_harness: PiHarness, windows: Any, holder_env: dict[str, str]) -> None:
    """Garbage, a half frame, 100 MB with no frame in it, a frame over the limit, a control
    that is not JSON, a window that never reads: each ends its own connection only; the
    window beside them streams on."""
    pi_harness.reset_model()
    reply = long_stream(1500)
    pi_harness.model.queue(Reply(deltas=reply.deltas, delay=0.0005))
    window = await windows()
    number = window.client.hello.number
    path = str(hold_dir(holder_env) / SOCKET_NAME)
    sleeper = socket.socket(socket.AF_UNIX)
    sleeper.connect(path)
    sleeper.sendall(frames.control(op="attach", protocol=frames.PROTOCOL, number=number))  # then never reads
    for hostile in (b"hello\n", frames.HEADER.pack(b"c", 100) + b"{", b"x" * (100 << 20),
                    frames.HEADER.pack(b"i", 1 << 30), frames.frame(b"c", b"not json"),
                    frames.frame(b"i", b'{"type":"prompt","message":"no spawn"}\n')):
        await asyncio.to_thread(_send_and_close, path, hostile)
    await window.client.call(Prompt(message="flood"))
    await window.wait(lambda: window.of(AgentSettled), "the flood's end")
    assert "".join(window.deltas()) == "".join(reply.deltas)
    assert [pi["number"] for pi in held(holder_env)] == [number]
    sleeper.close()


async def _wait_state(env: dict[str, str], number: int, state: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    started = time.monotonic()
    while True:
        pis = [pi for pi in held(env) if pi["number"] == number]
        if pis and pis[0]["state"] == state:
            return pis
        if out_of_time(started, timeout):
            raise AssertionError(f"pi {number} never {state}: {pis}")
        await asyncio.sleep(0.05)


def _send_and_close(path: str, data: bytes) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)
        sock.settimeout(10)
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            while sock.recv(1 << 16):
                pass
        except (BrokenPipeError, ConnectionResetError):
            pass  # the holder closed it: what it should do


def _text(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:  # a zombie is gone too
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # (reaped, even between the open and the read)
        return False


# --- pideck itself -------------------------------------------------------------------------


def _masked(text: str) -> str:
    """A transcript without its clock times (the two runs differ only there)."""
    return re.sub(r"\b\d\d:\d\d(:\d\d)?\b", "hh:mm", text)


async def test_pideck_attached_after_a_hang_up_shows_the_flood_as_an_unbroken_run(
        pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """pideck hangs up at about delta 1,000 of 3,000: the pideck attaching then shows the
    same transcript as a pideck that watched the whole run, and the run's end."""
    reply = long_stream(3000)
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(deltas=reply.deltas, delay=0.0005), Reply(deltas=reply.deltas, delay=0.0005))
    watched = PideckApp(config)
    async with watched.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "flood")
        await wait_until(pilot, lambda: "word2999" in transcript_text(watched) and not watched.desk.current.pi.model.running,
                         timeout=60, what="the whole flood")
        want = _masked(transcript_text(watched))
    left = PideckApp(config)
    async with left.run_test(size=SIZE) as pilot:
        await started(pilot)
        deltas: list[Any] = []
        left.desk.current.pi.client.add_listener(lambda record: deltas.append(record) if isinstance(record, MessageUpdate) else None)
        await send(pilot, "flood")
        await wait_until(pilot, lambda: len(deltas) >= 1000, timeout=30, what="a third of the flood")
        left._hang_up()
    assert left.desk.detached == 1
    assert len(deltas) < 3000, "pideck left before the flood ended"
    (pi,) = held(holder_env)
    assert pi["windows"] == 0 and pi["state"] in ("working", "done")
    attached = PideckApp(held_launch(config, pi["number"], pi["cwd"], pi["window"]))
    async with attached.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: attached.desk.current.pi.ready and "word2999" in transcript_text(attached)
                         and not attached.desk.current.pi.model.running, timeout=60, what="the flood, attached")
        assert _masked(transcript_text(attached)) == want
        assert "1 held pi brought back as it went on without a window" in " ".join(notes(attached))
        attached.exit()
    assert held(holder_env) == [], "a quit stops the held pi"


async def test_a_held_pi_nobody_watches_or_uses_is_closed_after_its_idle_time(pi_harness: PiHarness,
                                                                             holder_env: dict[str, str]) -> None:
    client = held_client(pi_harness.make_argv(), holder_env=holder_env, env=pi_harness.env, cwd=pi_harness.cwd,
                        idle_close=1.0)
    await client.start()
    await client.call(GetState(), timeout=30)
    pid = client.hello.pid
    assert [pi["state"] for pi in held(holder_env)] == ["idle"]
    client.detach()
    waited = time.monotonic()
    while held(holder_env) or _alive(pid):
        assert not out_of_time(waited, 20), "the idle pi was not closed"
        await asyncio.sleep(0.1)


class TerminalPi(HarnessPi):
    """pideck over the harness's real pi in `folder`, as a user starts it (held), for TmuxPideck."""

    def __init__(self, harness: PiHarness, folder: Path, holder_env: dict[str, str]) -> None:
        super().__init__(harness, folder)
        self.holder_env = holder_env

    def env(self) -> dict[str, str]:
        """pideck's as a user's: PIDECK_HOLD unset (held by default), its own holder folder too."""
        return super().env() | {"XDG_RUNTIME_DIR": self.holder_env["XDG_RUNTIME_DIR"], "PIDECK_HOLD": ""}

    def pideck(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(ROOT / ".venv" / "bin" / "pideck"), *args], capture_output=True, text=True,
                              env={**os.environ, **self.env()}, timeout=60)


def test_a_terminal_killed_mid_flood_leaves_the_run_to_pideck_attach(tmp_path: Path, pi_harness: PiHarness,
                                                                    holder_env: dict[str, str]) -> None:
    """The terminal pideck runs in is killed (its hang-up) while a 3,000-delta reply streams:
    `pideck ls` lists the run, `pideck attach` in another terminal shows it to its end with
    the text left unsent in the prompt, and `pideck stop --all` ends it."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(deltas=long_stream(3000).deltas, delay=0.001))
    pi = TerminalPi(pi_harness, tmp_path, holder_env)
    with TmuxPideck(pi, args=pi.args(), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready on the status line", timeout=60)
        term.send("flood")
        term.wait(lambda: "word5" in term.screen(), "the flood on the screen", timeout=30)
        term.keys("-l", "typed, not sent")
        term.wait(lambda: "typed, not sent" in term.screen(), "the draft in the prompt")
    waited = time.monotonic()
    while "no window" not in (listed := pi.pideck("ls")).stdout:  # (once pideck has read its hang-up)
        assert listed.returncode == 0 and not out_of_time(waited, 30), listed
        time.sleep(0.05)
    assert re.search(r"^ +1  (working|done) +no window ", listed.stdout, re.M), listed.stdout
    with TmuxPideck(pi, args=("attach",), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "word2999" in term.screen() and "● ready" in term.screen(), "the flood's end", timeout=60)
        term.wait(lambda: "typed, not sent" in term.screen(), "the draft the killed terminal left, in the prompt")
        assert "1 window" in pi.pideck("ls").stdout
    waited = time.monotonic()
    while "no window" not in (listed := pi.pideck("ls")).stdout:  # (once the attached pideck has read its hang-up)
        assert listed.returncode == 0 and not out_of_time(waited, 30), listed
        time.sleep(0.05)
    stopped = pi.pideck("stop", "--all")
    assert stopped.stdout.strip() == "pideck: stopped 1", stopped
    assert "no pi is held" in pi.pideck("ls").stdout


async def test_a_window_that_quits_leaves_pi_to_another_that_shows_it(pi_harness: PiHarness, windows: Any,
                                                                     holder_env: dict[str, str]) -> None:
    """A quit closes pi in order, but not from under another window: that one keeps it."""
    a = await windows()
    b = await windows(a.client.hello.number)
    await b.client.close()
    assert b.client.link.kept
    assert [pi["windows"] for pi in held(holder_env)] == [1]
    await a.client.call(GetState())  # the other window's pi answers still
    await a.client.close()
    assert not a.client.link.kept
    assert held(holder_env) == []


async def test_a_window_still_attaching_keeps_pi_when_the_other_quits(pi_harness: PiHarness, windows: Any,
                                                                     holder_env: dict[str, str]) -> None:
    """B attaches while pi is stopped (its cut waits for pi's messages); A quits meanwhile:
    B counts as a window, so A leaves pi to it and B gets its cut once pi goes on."""
    a = await windows()
    pid = a.client.hello.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        b = held_client(pi_harness.make_argv(), holder_env=holder_env, number=a.client.hello.number)
        attaching = asyncio.ensure_future(b.start())
        await a.wait(lambda: b.link.hello, "the second window's hello")
        await a.client.close()
        assert a.client.link.kept, "the quit stopped pi under a window still attaching"
    finally:
        with contextlib.suppress(ProcessLookupError):  # (gone, where the quit stopped it)
            os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(attaching, 30 * load())
    try:
        assert b.exited is None, b.exited
        assert b.snapshot is not None
        await b.call(GetState(), timeout=30)
        assert [p["pid"] for p in held(holder_env)] == [pid]
    finally:
        b.detach()


async def _window_process(config: Any, folder: Path, name: str, stop_for: float = 0.0,
                          holder_env: dict[str, str] | None = None) -> dict[str, Any]:
    """tests/held_window.py's pideck in a process of its own, stopped for `stop_for` s once
    it has read part of the flood; its result, and the held pis listed while it was stopped."""
    import json
    import pickle

    (folder / f"{name}.config").write_bytes(pickle.dumps(config))
    result = folder / f"{name}.json"
    process = await asyncio.create_subprocess_exec(
        str(ROOT / ".venv" / "bin" / "python"), "-m", "tests.held_window", str(folder / f"{name}.config"), str(result),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, env={**os.environ, **config.env})
    listed: list[dict[str, Any]] = []
    try:
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.readline(), 120 * load()) == b"mid\n"
        if stop_for:
            process.send_signal(signal.SIGSTOP)
            try:
                deadline = time.monotonic() + stop_for
                while time.monotonic() < deadline:
                    listed = held(holder_env or {})
                    await asyncio.sleep(0.2)
            finally:
                process.send_signal(signal.SIGCONT)
        assert await asyncio.wait_for(process.wait(), 180 * load()) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return {**json.loads(result.read_text()), "listed": listed}


async def test_pideck_stopped_mid_flood_is_caught_up_and_shows_the_whole_run(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """pideck's process is stopped (as by Ctrl+Z, or a blocked terminal) while a 3,000-delta
    reply streams, long enough for far more than it may leave unread to pile up at the
    holder: resumed, it is caught up, never let go: its transcript at the run's end is that
    of a pideck that was never stopped, its pi the one it started, and only one pi is held."""
    reply = long_stream(3000)
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(deltas=reply.deltas, delay=0.003), Reply(deltas=reply.deltas, delay=0.003))
    want = await _window_process(config, tmp_path, "watched")
    log = hold_dir(holder_env) / "holder.log"
    waited = time.monotonic()
    while log.read_text().count(" done\n") < 1:  # (the next pideck starts a holder of its own: the limit below is its)
        assert not out_of_time(waited, 30), log.read_text()
        await asyncio.sleep(0.05)
    assert want["caught_up"] == 0
    behind = replace(config, env={**config.env, "PIDECK_HOLD_BEHIND": str(16 << 10)})  # (far under what piles up)
    stopped = await _window_process(behind, tmp_path, "stopped", stop_for=6.0, holder_env=holder_env)
    assert stopped["exited"] == [], stopped["exited"]
    assert stopped["pid_at_end"] == stopped["pid"]
    assert [pi["pid"] for pi in stopped["listed"]] == [stopped["pid"]], stopped["listed"]
    told = log.read_text()
    assert "fell behind" in told and "let go" not in told, told
    assert stopped["caught_up"] >= 1
    assert stopped["transcript"] == want["transcript"]
    assert "word2999" in stopped["transcript"]
