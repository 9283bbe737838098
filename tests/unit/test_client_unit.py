"""RpcClient against a fake child: a small Python script that plays a list of actions.

The script (FAKE_CHILD, run with `sys.executable -c`) reads its actions as JSON from
argv[1], so each test states exactly what "pi" does: answer commands in a chosen order,
print garbage, flood stderr, print a 10 MB line, ignore signals, exit with a code.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from tests.held_holder import holder_in_loop
from tests.pi_harness import Recorder, kill_group

import protocol.hold.held_pi as held_pi
import protocol.wire.client as client_module
import protocol.wire.local_link as local_link
from protocol.wire.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.wire.local_link import local_client
from protocol.wire.codec import ProtocolError, Unknown
from protocol.wire.commands import GetCommands, GetLastAssistantText, GetMessages, GetState, GetTree, Prompt
from protocol.wire.events import AgentStart, BashExecutionUpdate
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.response_head import ResponseHead, response_head
from protocol.wire.responses import Response

FAKE_CHILD = r"""
import json, os, signal, sys, time

out, err, inp = sys.stdout.buffer, sys.stderr.buffer, sys.stdin.buffer
commands = []

def emit(obj):
    out.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
    out.flush()

def respond(command):
    emit({"type": "response", "id": command.get("id"), "command": command.get("type"), "success": True})

for action, *args in json.loads(sys.argv[1]):
    if action == "read":            # read N commands and keep them
        for _ in range(args[0]):
            commands.append(json.loads(inp.readline()))
    elif action == "respond":       # answer kept commands, in this order of indexes
        for index in args[0]:
            respond(commands[index])
    elif action == "respond_type":  # answer the kept commands of one type
        for command in commands:
            if command.get("type") == args[0]:
                respond(command)
    elif action == "echo":          # answer every command until stdin closes
        for line in inp:
            respond(json.loads(line))
    elif action == "emit":
        emit(args[0])
    elif action == "raw":           # text written as is, encoded with args[1] (default utf-8)
        out.write(args[0].encode(args[1] if len(args) > 1 else "utf-8"))
        out.flush()
    elif action == "many":          # N small records as fast as possible
        for index in range(args[0]):
            out.write(b'{"type":"bash_execution_update","delta":"%d"}\n' % index)
        out.flush()
    elif action == "padded":        # text, N x's, text: one long line
        out.write(args[0].encode() + b"x" * args[1] + args[2].encode())
        out.flush()
    elif action == "big":           # one record of N+ bytes on one line
        emit({"type": "bash_execution_update", "delta": "x" * args[0]})
    elif action == "stderr":        # N numbered lines of W filler characters
        for index in range(args[0]):
            err.write(b"stderr line %06d %s\n" % (index, b"." * args[1]))
        err.flush()
    elif action == "stderr_raw":
        err.write(args[0].encode())
        err.flush()
    elif action == "sleep":
        time.sleep(args[0])
    elif action == "close_stdout":  # and go on living
        os.close(1)
    elif action == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif action == "hang":          # ignore stdin EOF, wait for a signal
        while True:
            time.sleep(1)
    elif action == "exit":
        sys.exit(args[0])
"""

READY = {"type": "agent_start"}


def fake(*actions: list[Any]) -> list[str]:
    return [sys.executable, "-c", FAKE_CHILD, json.dumps(actions)]


StartFake = Callable[..., Any]


@pytest.fixture
async def start_fake() -> AsyncIterator[StartFake]:
    """`await start_fake(*actions, listeners=(), **client_kwargs)` -> (client, recorder).

    `listeners` are added before the recorder; every child is killed at teardown."""
    clients: list[RpcClient] = []

    async def start(*actions: list[Any], listeners: tuple[Callable[[Any], None], ...] = (), **kwargs: Any) -> tuple[RpcClient, Recorder]:
        client = local_client(fake(*actions), **kwargs)
        clients.append(client)
        for listener in listeners:
            client.add_listener(listener)
        recorder = Recorder(client)
        await client.start()
        return client, recorder

    try:
        yield start
    finally:
        for client in clients:
            if client.running:
                await client.close(grace=0.2, term_grace=0.2)
            kill_group(client)


@pytest.fixture(params=["own", "held"])
async def start_either(request: pytest.FixtureRequest, start_fake: StartFake, tmp_path: Path) -> AsyncIterator[StartFake]:
    """`start_fake`, and the same fake as a pi the holder keeps (a holder in the test's loop):
    how pi ends or goes silent reads the same to a window either way."""
    if request.param == "own":
        yield start_fake
        return
    from protocol.hold.held_link import held_client

    clients: list[RpcClient] = []
    async with holder_in_loop(tmp_path / "run") as held:

        async def start(*actions: list[Any], listeners: tuple[Callable[[Any], None], ...] = (),
                        **kwargs: Any) -> tuple[RpcClient, Recorder]:
            client = held_client(fake(*actions), holder_env=held.env, **kwargs)
            clients.append(client)
            for listener in listeners:
                client.add_listener(listener)
            recorder = Recorder(client)
            await client.start()
            return client, recorder

        yield start
        for client in clients:
            if client.running:
                await client.close(grace=0.2, term_grace=0.2)


def responses(records: list[Any]) -> list[Response]:
    return [r for r in records if isinstance(r, Response)]


# --- requests and responses ---------------------------------------------------------------


async def test_responses_are_matched_by_id_in_any_order(start_fake: StartFake) -> None:
    client, rec = await start_fake(["read", 3], ["respond", [2, 0, 1]], ["echo"])
    commands = [GetState(), GetCommands(), GetMessages()]

    answers = await asyncio.wait_for(asyncio.gather(*(client.request(c) for c in commands)), 5)

    for command, answer in zip(commands, answers):
        assert answer.id == command.id and answer.success
    assert {a.command for a in answers} == {"get_state", "get_commands", "get_messages"}
    ids = [c.id for c in commands]
    assert len(set(ids)) == 3 and all(i.startswith("pideck-") for i in ids)
    arrival = [r.id for r in responses(rec.records)]
    assert arrival == [ids[2], ids[0], ids[1]], "answered out of order, still matched"
    assert client._pending == {}


async def test_per_command_timeout_then_late_and_unknown_responses(
    start_fake: StartFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(client_module.TIMEOUTS, "get_commands", 0.3)
    client, rec = await start_fake(
        ["read", 2],
        ["respond_type", "get_state"],
        ["sleep", 0.8],
        ["respond_type", "get_commands"],  # too late
        ["emit", {"type": "response", "id": "nobody-asked", "command": "get_state", "success": True}],
        ["echo"],
    )
    slow = GetCommands()
    loop = asyncio.get_running_loop()
    started = loop.time()
    state_task = asyncio.create_task(client.request(GetState()))  # default timeout: answered at once

    with pytest.raises(RpcError, match=r"get_commands: no response from pi within 0.3s"):
        await client.request(slow)

    assert 0.25 <= loop.time() - started < 0.8
    assert (await state_task).success
    assert slow.id not in client._pending
    late = await rec.wait_for(lambda r: isinstance(r, Response) and r.id == slow.id, timeout=5)
    unknown = await rec.wait_for(lambda r: isinstance(r, Response) and r.id == "nobody-asked", timeout=5)
    assert late.command == "get_commands" and unknown.command == "get_state"
    assert client.running
    assert (await client.request(GetState(), timeout=5)).success, "the client still works"


async def test_call_raises_on_success_false(start_fake: StartFake) -> None:
    failure = {"type": "response", "id": "pideck-1", "command": "set_model", "success": False, "error": "Model not found: x/y"}
    client, _ = await start_fake(["read", 1], ["emit", failure], ["echo"])
    with pytest.raises(RpcError, match="Model not found: x/y") as caught:
        await client.call(GetState(), timeout=5)
    assert caught.value.response is not None and caught.value.response.success is False


@pytest.mark.parametrize(
    ("data", "reason"),
    [(None, "no data"), ({"model": {"id": "m", "contextWindow": "big"}}, "Expected `int | float`, got `str` - at `$.model.contextWindow`")],
    ids=["no-data", "wrong-type"],
)
async def test_call_raises_a_data_error_naming_the_command_and_the_field(
    start_fake: StartFake, data: Any, reason: str
) -> None:
    answer = {"type": "response", "id": "pideck-1", "command": "get_state", "success": True}
    client, _ = await start_fake(["read", 1], ["emit", answer if data is None else {**answer, "data": data}], ["echo"])
    with pytest.raises(RpcDataError) as caught:
        await client.call(GetState(), timeout=5)
    assert str(caught.value) == f"get_state: pi's answer could not be read ({reason})"
    assert isinstance(caught.value, RpcError) and caught.value.response is not None
    assert client.running


DEEP_TREE = '{"id":"broken","type":"response","command":"get_tree","success":true,"data":{"tree":' + "[" * 10_000 + "]" * 10_000 + "}}\n"
TRUNCATED = '{"id":"broken","type":"response","command":"get_state","success":true,"data":{"model":{"id":"x\n'
NOT_UTF8 = '{"id":"broken","type":"response","command":"get_last_assistant_text","success":true,"data":{"text":"a\u00ffb"}}\n'


@pytest.mark.parametrize(
    ("command", "line", "encoding", "reason"),
    [
        (GetTree, DEEP_TREE, "utf-8", "not readable: nested too deeply"),
        (GetState, TRUNCATED, "utf-8", "not JSON: Input data was truncated"),
        (GetLastAssistantText, NOT_UTF8, "latin-1", "not JSON: Invalid UTF-8 encoded string"),
    ],
    ids=["10000-deep", "truncated", "invalid-utf8"],
)
async def test_an_unreadable_response_fails_its_request_at_once(
    start_fake: StartFake, command: type[Any], line: str, encoding: str, reason: str
) -> None:
    client, rec = await start_fake(["read", 2], ["raw", line, encoding], ["respond_type", "get_commands"], ["echo"])
    broken, fine = command(id="broken"), GetCommands(id="fine")
    waiting = asyncio.create_task(client.request(fine, timeout=None))

    name = command.__struct_config__.tag
    # no timeout of its own: without the fix this would wait until the outer 10 s cancel it
    with pytest.raises(RpcError, match=rf"^{name}: pi's answer could not be read \({reason}\)$"):
        await asyncio.wait_for(client.request(broken, timeout=None), 10)

    assert (await asyncio.wait_for(waiting, 10)).success, "the other request is answered"
    (error,) = rec.of_type(ProtocolError)
    assert error.raw == line.rstrip("\n").encode(encoding) and error.error == reason
    assert client.bad_records == 1 and client.unexpected_responses == 0 and client._pending == {}
    assert (await client.request(GetState(), timeout=5)).success, "the client still works"


async def test_a_response_too_long_to_keep_fails_its_request(start_either: StartFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_link, "MAX_LINE", 100_000)
    monkeypatch.setattr(held_pi, "MAX_LINE", 100_000)  # (held: the holder drops it, and says so to the window)
    head = '{"id":"broken","type":"response","command":"get_messages","success":true,"data":"'
    # 2 MB: more than one read takes, so the reader sees more than MAX_LINE without a newline
    client, _ = await start_either(["read", 1], ["padded", head, 2_000_000, '"}\n'], ["echo"])
    with pytest.raises(RpcError, match=r"^get_messages: pi's answer could not be read \(line longer than [0-9,]+ bytes; dropped\)$"):
        await asyncio.wait_for(client.request(GetMessages(id="broken"), timeout=None), 10)
    assert (await client.request(GetState(), timeout=5)).success


def test_the_head_of_an_unreadable_response() -> None:
    assert response_head(DEEP_TREE.encode()) == ResponseHead("broken", "get_tree")
    assert response_head(b' { "type" : "response" , "id" : "a\\"b\\u00e9" , "data": [') == ResponseHead('a"b\u00e9', "")
    assert response_head(b'{"type":"response","success":false,"error":"\xff","id":"late","command":"x"}') == ResponseHead("late", "x")
    assert response_head(b'{"type":"response","data":{"id":"nested"},"id":"after-data"}') is None, "only the leading scalars"
    assert response_head(b'{"type":"agent_start","id":"x"}') is None
    assert response_head(b'{"type":"response","id":7}') is None
    assert response_head(b'{"id":"\xff","type":"response"}') is None
    assert response_head(b'{"id":"pideck-1","ty') is None
    assert response_head(b"[1, 2]") is None and response_head(b"") is None


# --- what the reader accepts ----------------------------------------------------------------


async def test_garbage_becomes_protocol_errors_and_is_logged(start_fake: StartFake, tmp_path: Path) -> None:
    garbage = [
        "this is not json\n",
        "[1, 2, 3]\n",
        '{"type": "agent_end", "messages": 5}\n',
        '{"no_type": true}\n',
    ]
    log_path = tmp_path / "state" / "protocol.log"
    client, rec = await start_fake(
        *(["raw", line] for line in garbage),
        ["raw", "\u00ff\u00fe{}\n", "latin-1"],  # not UTF-8
        ["emit", {"type": "brand_new_event", "x": 1}],
        ["emit", READY],
        ["exit", 0],
        protocol_log=ProtocolLog(log_path),
    )
    exited = await asyncio.wait_for(client.wait_closed(), 10)
    assert exited.returncode == 0

    errors = rec.of_type(ProtocolError)
    expected_raw = [line.rstrip("\n").encode() for line in garbage] + [b"\xff\xfe{}"]
    assert [e.raw for e in errors] == expected_raw
    assert all(e.error for e in errors)
    assert isinstance(rec.records[-3], Unknown) and rec.records[-3].type == "brand_new_event"
    assert isinstance(rec.records[-2], AgentStart) and isinstance(rec.records[-1], ChildExited)
    assert client.bad_records == 5 and client.records_read == 7

    assert stat.S_IMODE(log_path.stat().st_mode) == 0o600
    content = log_path.read_bytes()
    for raw in expected_raw:
        assert raw in content
    assert content.count(b" bad-record: ") == 5
    assert content.count(b" unknown-record: ") == 1, "an unknown record is logged, not as an error"
    assert client.unknown_records == 1


async def test_framing_crlf_unicode_separators_and_unterminated_last_line(start_fake: StartFake) -> None:
    client, rec = await start_fake(
        ["raw", '{"type": "bash_execution_update", "delta": "crlf"}\r\n'],
        ["raw", '{"type": "bash_execution_update", "delta": "a\u2028b\u2029c"}\n'],
        ["raw", '{"type": "bash_execution_update", "delta": "split'],
        ["sleep", 0.1],
        ["raw", ' over two writes"}\n'],
        ["raw", '{"type": "bash_execution_update", "delta": "no newline at EOF"}'],
        ["exit", 0],
    )
    await asyncio.wait_for(client.wait_closed(), 10)
    deltas = [r.delta for r in rec.of_type(BashExecutionUpdate)]
    assert deltas == ["crlf", "a\u2028b\u2029c", "split over two writes", "no newline at EOF"]
    assert client.bad_records == 0


async def test_a_ten_megabyte_line(start_fake: StartFake) -> None:
    size = 10 * 1024 * 1024
    client, rec = await start_fake(["big", size], ["emit", READY], ["exit", 0])
    await asyncio.wait_for(client.wait_closed(), 20)
    (update,) = rec.of_type(BashExecutionUpdate)
    assert len(update.delta) == size
    assert isinstance(rec.records[-2], AgentStart)


async def test_slow_listener_still_gets_every_record_in_order(start_either: StartFake) -> None:
    count = 3000  # ~140 KB: more than a pipe buffer, so the child blocks unless we drain
    seen: list[str] = []

    def slow(record: Any) -> None:
        if isinstance(record, BashExecutionUpdate):
            seen.append(record.delta)
            if len(seen) % 10 == 0:
                time.sleep(0.002)  # blocks the loop a little, like a busy UI

    client, rec = await start_either(["many", count], ["exit", 0], listeners=(slow,))
    exited = await asyncio.wait_for(client.wait_closed(), 20)
    assert exited.returncode == 0
    assert seen == [str(i) for i in range(count)]
    assert len(rec.of_type(BashExecutionUpdate)) == count


async def test_a_failing_listener_does_not_stop_the_reader(start_either: StartFake) -> None:
    def broken(record: Any) -> None:
        raise ValueError("listener bug")

    client, rec = await start_either(["emit", READY], ["emit", READY], ["exit", 0], listeners=(broken,))
    await asyncio.wait_for(client.wait_closed(), 10)
    assert len(rec.of_type(AgentStart)) == 2 and len(rec.of_type(ChildExited)) == 1
    assert any("listener bug" in line for line in client.stderr)


# --- stderr and exit ----------------------------------------------------------------------


async def test_stderr_flood_is_drained_and_only_the_tail_kept(start_either: StartFake) -> None:
    lines = 20_000  # ~1.4 MB of stderr before the first stdout record
    client, rec = await start_either(
        ["stderr", lines, 50],
        ["emit", READY],
        ["stderr_raw", "fatal: the last words, without a newline"],
        ["exit", 3],
        stderr_lines=100,
    )
    exited = await asyncio.wait_for(client.wait_closed(), 20)
    assert rec.of_type(AgentStart), "stdout was read while stderr flooded"
    assert exited.returncode == 3 and exited.error is None
    assert len(client.stderr) == 100
    assert client.stderr[-1] == "fatal: the last words, without a newline"
    assert client.stderr[-2].startswith(f"stderr line {lines - 1:06d} ")
    assert client.stderr[0].startswith(f"stderr line {lines - 99:06d} ")
    assert exited.stderr_tail == client.stderr_tail
    assert exited.stderr_tail.endswith("fatal: the last words, without a newline")


async def test_exit_code_3_fails_pending_requests(start_either: StartFake) -> None:
    client, rec = await start_either(["read", 1], ["stderr_raw", "boom: config is broken\n"], ["exit", 3])
    with pytest.raises(RpcError, match=r"exited \(code 3\)"):
        await client.request(GetState(), timeout=10)
    exited = await rec.wait_for(ChildExited)
    assert exited == ChildExited(returncode=3, stderr_tail="boom: config is broken")
    assert rec.of_type(ChildExited) == [exited]
    assert not client.running and client._pending == {}
    with pytest.raises(RpcError, match="not running"):
        await client.send(GetState())
    assert await client.close() == exited


async def test_a_pi_that_closes_stdout_but_keeps_running_is_ended(start_either: StartFake) -> None:
    client, rec = await start_either(["read", 1], ["close_stdout"], ["sleep", 60])
    # no timeout of its own: without the fix this waits until the outer 15 s cancel it
    with pytest.raises(RpcError, match=r"^pi exited \(code -15\)$"):
        await asyncio.wait_for(client.request(GetState(), timeout=None), 15)
    exited = await rec.wait_for(ChildExited)
    assert exited.returncode == -signal.SIGTERM
    assert exited.stderr_tail == "[pideck] pi closed its stdout but kept running; ending it"
    assert not client.running and client._pending == {}


async def test_missing_executable_reports_child_exited(tmp_path: Path) -> None:
    client = local_client([str(tmp_path / "no-such-pi"), "--mode", "rpc"])
    rec = Recorder(client)

    await client.start()  # does not raise

    (exited,) = rec.of_type(ChildExited)
    assert exited.returncode is None
    assert exited.error is not None and "cannot start" in exited.error and "no-such-pi" in exited.error
    assert "No such file or directory" in exited.error
    assert client.exited == exited and not client.running and client.link.child is None
    assert await asyncio.wait_for(client.wait_closed(), 1) == exited
    with pytest.raises(RpcError, match="not running"):
        await client.request(GetState())
    with pytest.raises(RpcError, match="not running"):
        await client.call(Prompt(message="hi"))
    assert await client.close() == exited


async def test_close_before_start_is_harmless() -> None:
    client = local_client([sys.executable, "-c", "pass"])
    assert await client.close() is None
    assert not client.running


# --- close() ------------------------------------------------------------------------------


async def test_close_is_orderly_when_the_child_exits_on_stdin_eof(start_fake: StartFake) -> None:
    client, rec = await start_fake(["emit", READY], ["echo"], ["exit", 0])
    await rec.wait_for(AgentStart)
    loop = asyncio.get_running_loop()
    started = loop.time()
    exited = await client.close(grace=5.0)
    assert exited is not None and exited.returncode == 0
    assert loop.time() - started < 2.0
    assert rec.of_type(ChildExited) == [exited]


async def test_close_escalates_to_sigterm(start_fake: StartFake) -> None:
    client, rec = await start_fake(["emit", READY], ["hang"])
    await rec.wait_for(AgentStart)
    loop = asyncio.get_running_loop()
    started = loop.time()
    exited = await client.close(grace=0.3, term_grace=5.0)
    elapsed = loop.time() - started
    assert exited is not None and exited.returncode == -signal.SIGTERM
    assert 0.3 <= elapsed < 3.0


async def test_close_escalates_to_sigkill_when_sigterm_is_ignored(start_fake: StartFake) -> None:
    client, rec = await start_fake(["ignore_term"], ["emit", READY], ["hang"])
    await rec.wait_for(AgentStart)  # SIGTERM is ignored from here on
    loop = asyncio.get_running_loop()
    started = loop.time()
    exited = await client.close(grace=0.3, term_grace=0.3)
    elapsed = loop.time() - started
    assert exited is not None and exited.returncode == -signal.SIGKILL
    assert 0.6 <= elapsed < 4.0
    assert client.link.pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(client.link.pid, 0)


async def test_exit_is_seen_while_a_grandchild_holds_the_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    """pi can leave a child behind that inherited its stdout/stderr (an MCP server, a tool)."""
    monkeypatch.setattr(client_module, "EXIT_DRAIN_TIMEOUT", 0.3)
    spawn = ("import subprocess, sys; p = subprocess.Popen(['sleep', '30']); "
             "print('{\"type\":\"bash_execution_update\",\"delta\":\"%d\"}' % p.pid, flush=True)")
    client = local_client([sys.executable, "-c", spawn])
    rec = Recorder(client)
    await client.start()
    try:
        await rec.wait_for(BashExecutionUpdate, timeout=10)
        exited = await asyncio.wait_for(client.wait_closed(), client_module.EXIT_DRAIN_TIMEOUT + 3)
        assert exited.returncode == 0
        assert rec.records[-1] == exited
        assert "holds its pipes open" in exited.stderr_tail
    finally:
        kill_group(client)  # the grandchild is in pi's process group


async def test_an_argument_no_process_can_be_given_reports_child_exited() -> None:
    client = local_client(["pi", "--model", "a\0b"])  # (a NUL byte: execve cannot take it)
    rec = Recorder(client)

    await client.start()  # does not raise

    (exited,) = rec.of_type(ChildExited)
    assert exited.error is not None and "cannot start 'pi'" in exited.error and "null" in exited.error
    assert not client.running and client.link.child is None
