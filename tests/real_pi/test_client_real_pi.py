"""RpcClient against the real pinned pi, driven by the scripted model.

Ordinary tests share one child (`pi_client`: idle, fresh session, model reset); tests
that kill or break a child start their own (`pi_factory`; `factory_either`, once a pi of
the client's own and once one the holder keeps: the two links read the same).
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest
from tests.pi_harness import PiHarness, Recorder

from app.scripted_model.agent_dir import MODEL_ID, PROVIDER
from app.scripted_model.server import Reply, ToolCallSpec
from protocol.hold.held_link import held_client
from protocol.wire.client import ChildExited, RpcClient, RpcError
from protocol.wire.commands import (
    Abort,
    Bash,
    ClearQueue,
    FollowUp,
    GetAvailableModels,
    GetState,
    Prompt,
    SetAutoRetry,
    SetModel,
    Steer,
)
from protocol.wire.events import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    BashExecutionUpdate,
    MessageEnd,
    MessageUpdate,
    QueueUpdate,
    TextDelta,
    TextEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from protocol.wire.messages import AssistantMessage, ToolResultMessage, text_of
from protocol.wire.responses import BashResult, Disposition, ModelList, QueueContents, Response, SessionState

pytestmark = pytest.mark.pi

SLOW = dict(chunk_chars=2, delay=0.03)  # ~33 deltas a second


@pytest.fixture(params=["own", "held"])
async def factory_either(request: pytest.FixtureRequest, pi_factory: Any, pi_harness: PiHarness) -> Any:
    """`pi_factory`, and the same pi held (a holder of the test's own): `await start()`."""
    if request.param == "own":
        yield pi_factory
        return
    holder_env = request.getfixturevalue("holder_env")
    clients: list[RpcClient] = []

    async def start() -> RpcClient:
        client = held_client(pi_harness.make_argv(), holder_env=holder_env, env=pi_harness.env, cwd=pi_harness.cwd)
        clients.append(client)
        await client.start()
        await pi_harness.wait_ready(client)
        return client

    yield start
    for client in clients:
        if client.running:
            await client.close(grace=2.0)


def assistant_ends(records: list[Any]) -> list[AssistantMessage]:
    return [r.message for r in records if isinstance(r, MessageEnd) and isinstance(r.message, AssistantMessage)]


def text_deltas(records: list[Any]) -> list[TextDelta]:
    return [r.assistant_message_event for r in records
            if isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta)]


def user_texts(request_body: dict[str, Any]) -> list[str]:
    """Texts of the user messages pi sent in one chat-completions request."""
    texts = []
    for message in request_body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        texts.append(content if isinstance(content, str) else "".join(p.get("text", "") for p in content))
    return texts


def response_for(records: list[Any], command: str) -> tuple[int, Response]:
    for index, record in enumerate(records):
        if isinstance(record, Response) and record.command == command:
            return index, record
    raise AssertionError(f"no {command} response among {len(records)} records")


# --- read-only commands -------------------------------------------------------------------


async def test_state_and_models_are_typed(pi_client: RpcClient) -> None:
    state = await pi_client.call(GetState())
    assert isinstance(state, SessionState)
    assert state.model is not None and (state.model.provider, state.model.id) == (PROVIDER, MODEL_ID)
    assert not state.is_streaming and state.message_count == 0
    models = await pi_client.call(GetAvailableModels())
    assert isinstance(models, ModelList)
    assert {m.id for m in models.models} >= {MODEL_ID, MODEL_ID + "-mini"}


# --- prompting and streaming --------------------------------------------------------------


async def test_prompt_streams_deltas_then_settles(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    # U+2028/U+2029 are legal inside JSON strings and must not split a record.
    deltas = ("Hello", ", wor", "ld \u2028 line", " sep \u2029 é", " 😀 done")
    pi_harness.model.queue(Reply(deltas=deltas))

    records = await pi_client.prompt_and_wait(Prompt(message="say hello"), timeout=30)

    index, response = response_for(records, "prompt")
    assert response.success and isinstance(response.data, Disposition)
    assert response.data.disposition == "started"
    streamed = "".join(d.delta for d in text_deltas(records))
    assert streamed == "".join(deltas)
    ends = [r.assistant_message_event for r in records
            if isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextEnd)]
    assert [e.content for e in ends] == [streamed]
    (final,) = assistant_ends(records)
    assert text_of(final.content) == streamed and final.stop_reason == "stop"
    settled_at = next(i for i, r in enumerate(records) if isinstance(r, AgentSettled))
    assert settled_at == len(records) - 1, "agent_settled is the last record of the run"
    assert index < settled_at
    assert isinstance(records[settled_at - 1], AgentEnd)
    assert records[settled_at].aborted is False
    assert user_texts(pi_harness.model.requests[-1])[-1] == "say hello"


async def test_subscribing_before_the_prompt_catches_a_fast_reply(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(Reply(text="quick"), Reply(text="quicker"))
    records = await pi_client.prompt_and_wait(Prompt(message="fast one"), timeout=30)
    kinds = [type(r) for r in records]
    assert AgentStart in kinds and kinds[-1] is AgentSettled
    assert text_of(assistant_ends(records)[0].content) == "quick"

    # The same by hand: listener first, then the raw write, no waiting for the response.
    with Recorder(pi_client) as rec:
        await pi_client.send(Prompt(message="fast two", id="fast-two"))
        await rec.wait_settled()
    assert isinstance(rec.records[0], (Response, AgentStart))
    _, response = response_for(rec.records, "prompt")
    assert response.id == "fast-two" and response.data.disposition == "started"
    assert rec.of_type(AgentStart) and text_of(assistant_ends(rec.records)[0].content) == "quicker"


# --- tools --------------------------------------------------------------------------------


async def test_parallel_tool_calls_stream_and_reach_the_model(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    (pi_harness.cwd / "notes.txt").write_text("the notes\n")
    bash_command = "for i in 1 2 3; do echo line$i; sleep 0.15; done"
    pi_harness.model.queue(
        Reply(tool_calls=(
            ToolCallSpec("bash", {"command": bash_command}, id="call_bash"),
            ToolCallSpec("read", {"path": "notes.txt"}, id="call_read"),
        )),
        Reply(text="both tools ran"),
    )

    records = await pi_client.prompt_and_wait(Prompt(message="use two tools"), timeout=30)

    starts = {r.tool_call_id: r for r in records if isinstance(r, ToolExecutionStart)}
    assert set(starts) == {"call_bash", "call_read"}
    assert starts["call_bash"].tool_name == "bash" and starts["call_bash"].args == {"command": bash_command}
    ends = {r.tool_call_id: r for r in records if isinstance(r, ToolExecutionEnd)}
    assert set(ends) == {"call_bash", "call_read"}
    for end in ends.values():
        assert end.is_error is False
        assert end.duration_ms is not None and end.duration_ms >= 0
    assert ends["call_bash"].duration_ms >= 300
    assert text_of(ends["call_bash"].result.content) == "line1\nline2\nline3\n"
    assert text_of(ends["call_read"].result.content) == "the notes\n"
    # Both started before either ended: they ran in parallel.
    first_end = min(records.index(e) for e in ends.values())
    assert all(records.index(s) < first_end for s in starts.values())

    partials = [text_of(r.partial_result.content) for r in records
                if isinstance(r, ToolExecutionUpdate) and r.tool_call_id == "call_bash"]
    growing = [p for p in partials if p]
    assert len(set(growing)) >= 2, partials
    for shorter, longer in zip(growing, growing[1:]):
        assert longer.startswith(shorter), "bash partial output is cumulative"
    assert growing[-1] == "line1\nline2\nline3\n"

    assert len(pi_harness.model.requests) == 2
    tool_messages = {m["tool_call_id"]: m for m in pi_harness.model.requests[1]["messages"] if m["role"] == "tool"}
    assert set(tool_messages) == {"call_bash", "call_read"}
    assert "line3" in str(tool_messages["call_bash"]["content"])
    assert "the notes" in str(tool_messages["call_read"]["content"])
    assert text_of(assistant_ends(records)[-1].content) == "both tools ran"


async def test_failing_tool_reports_is_error(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(
        Reply(tool_calls=(ToolCallSpec("read", {"path": "no-such-file.txt"}, id="call_missing"),)),
        Reply(text="that file is missing"),
    )
    records = await pi_client.prompt_and_wait(Prompt(message="read a missing file"), timeout=30)
    (end,) = [r for r in records if isinstance(r, ToolExecutionEnd)]
    assert end.tool_call_id == "call_missing" and end.is_error is True
    assert "no-such-file.txt" in text_of(end.result.content)
    (result,) = [r.message for r in records if isinstance(r, MessageEnd) and isinstance(r.message, ToolResultMessage)]
    assert result.is_error is True and result.tool_call_id == "call_missing"
    assert records[-1] == AgentSettled(aborted=False)


# --- queueing, clearing, aborting while a reply streams -----------------------------------


async def test_steer_and_follow_up_during_a_slow_stream(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(
        Reply(text="s" * 60, **SLOW),
        Reply(text="answer to the steer"),
        Reply(text="answer to the queued prompt"),
        Reply(text="answer to the follow-up"),
    )
    with Recorder(pi_client) as rec:
        assert (await pi_client.call(Prompt(message="go slowly"))).disposition == "started"
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))

        assert (await pi_client.call(Steer(message="steer text"))).disposition == "queued"
        assert (await pi_client.call(FollowUp(message="follow text"))).disposition == "queued"
        queued = await pi_client.call(Prompt(message="prompt as steer", streaming_behavior="steer"))
        assert queued.disposition == "queued"
        await rec.wait_settled()

    updates = rec.of_type(QueueUpdate)
    assert QueueUpdate(steering=["steer text"], follow_up=[]) in updates
    assert QueueUpdate(steering=["steer text"], follow_up=["follow text"]) in updates
    assert QueueUpdate(steering=["steer text", "prompt as steer"], follow_up=["follow text"]) in updates
    assert updates[-1] == QueueUpdate(steering=[], follow_up=[])
    # Steering reaches the very next model request; the follow-up comes last.
    requests = pi_harness.model.requests
    assert len(requests) == 4
    assert user_texts(requests[0])[-1] == "go slowly"
    assert user_texts(requests[1])[-1] == "steer text"
    assert user_texts(requests[2])[-1] == "prompt as steer"
    assert user_texts(requests[3])[-1] == "follow text"
    assert [text_of(m.content) for m in assistant_ends(rec.records)][-1] == "answer to the follow-up"


async def test_clear_queue_returns_the_queued_texts(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(Reply(text="c" * 60, **SLOW))
    with Recorder(pi_client) as rec:
        await pi_client.call(Prompt(message="stream for a while"))
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))
        await pi_client.call(Steer(message="steer me"))
        await pi_client.call(FollowUp(message="then me"))
        await rec.wait_for(lambda r: r == QueueUpdate(steering=["steer me"], follow_up=["then me"]))
        mark = len(rec.records)

        cleared = await pi_client.call(ClearQueue())

        assert cleared == QueueContents(steering=["steer me"], follow_up=["then me"])
        await rec.wait_for(lambda r: r == QueueUpdate(steering=[], follow_up=[]), start=mark)
        await rec.wait_settled()
    assert len(pi_harness.model.requests) == 1, "nothing queued was sent on"


async def test_abort_while_streaming(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(Reply(text="a" * 200, **SLOW))
    with Recorder(pi_client) as rec:
        await pi_client.call(Prompt(message="a long answer please"))
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))

        response = await pi_client.request(Abort())

        assert response.success and response.command == "abort"
        settled = await rec.wait_settled()
    assert settled.aborted is True
    (final,) = assistant_ends(rec.records)
    assert final.stop_reason == "aborted"
    assert len(text_of(final.content)) < 200
    assert not (await pi_client.call(GetState())).is_streaming


# --- the bash command ---------------------------------------------------------------------


async def test_bash_command_streams_output_with_its_id(pi_client: RpcClient) -> None:
    with Recorder(pi_client) as rec:
        response = await pi_client.request(Bash(command="echo one; sleep 0.2; echo two", id="bash-cmd-1"))
    assert response.id == "bash-cmd-1" and response.success
    assert isinstance(response.data, BashResult)
    assert response.data.exit_code == 0 and response.data.output == "one\ntwo\n"
    updates = rec.of_type(BashExecutionUpdate)
    assert updates and all(u.id == "bash-cmd-1" for u in updates)
    assert "".join(u.delta for u in updates) == "one\ntwo\n"
    assert len(updates) >= 2, "output arrived while the command ran"
    assert rec.records.index(updates[-1]) < rec.records.index(response)

    failed = await pi_client.call(Bash(command="echo oops >&2; exit 7"))
    assert failed.exit_code == 7 and "oops" in failed.output


# --- failures -----------------------------------------------------------------------------


async def test_failed_command_is_success_false_and_call_raises(pi_client: RpcClient) -> None:
    response = await pi_client.request(SetModel(provider="nowhere", model_id="no-such-model"))
    assert response.command == "set_model" and response.success is False
    assert response.error and "no-such-model" in response.error
    with pytest.raises(RpcError, match="no-such-model") as caught:
        await pi_client.call(SetModel(provider="nowhere", model_id="no-such-model"))
    assert caught.value.response is not None and caught.value.response.success is False
    state = await pi_client.call(GetState())
    assert state.model is not None and state.model.id == MODEL_ID, "the model did not change"


async def test_malformed_and_unknown_lines_get_error_responses(pi_client: RpcClient) -> None:
    process = pi_client.link.child
    assert process is not None and process.stdin is not None
    with Recorder(pi_client) as rec:
        process.stdin.write(b"{this is not json\n")
        await process.stdin.drain()
        parse = await rec.wait_for(lambda r: isinstance(r, Response) and r.command == "parse")
        process.stdin.write(b'{"type": "no_such_command", "id": "raw-1"}\n')
        await process.stdin.drain()
        unknown = await rec.wait_for(lambda r: isinstance(r, Response) and r.id == "raw-1")
    assert parse.success is False and parse.id is None and parse.error.startswith("Failed to parse command")
    assert unknown.success is False and unknown.command == "no_such_command"
    assert "Unknown command" in (unknown.error or "")
    assert (await pi_client.call(GetState())).model is not None, "pi still answers"


async def test_provider_401_ends_the_run_with_an_error_message(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(Reply(status=401, error_message="invalid api key for scripted"))
    records = await pi_client.prompt_and_wait(Prompt(message="this will fail"), timeout=30)
    (final,) = assistant_ends(records)
    assert final.stop_reason == "error"
    assert final.error_message and "invalid api key for scripted" in final.error_message
    assert not any(isinstance(r, AutoRetryStart) for r in records), "401 is not retried"
    assert records[-1] == AgentSettled(aborted=False)
    assert len(pi_harness.model.requests) == 1


async def test_provider_529_is_retried_automatically(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    pi_harness.model.queue(Reply(status=529, error_message="overloaded"), Reply(text="second time lucky"))
    records = await pi_client.prompt_and_wait(Prompt(message="retry me"), timeout=30)
    (start,) = [r for r in records if isinstance(r, AutoRetryStart)]
    assert start.attempt == 1 and start.max_attempts >= 1 and "overloaded" in start.error_message
    (end,) = [r for r in records if isinstance(r, AutoRetryEnd)]
    assert end.success is True
    stops = [m.stop_reason for m in assistant_ends(records)]
    assert stops == ["error", "stop"]
    assert text_of(assistant_ends(records)[-1].content) == "second time lucky"
    assert [type(r) for r in records].count(AgentSettled) == 1 and isinstance(records[-1], AgentSettled)
    assert len(pi_harness.model.requests) == 2


async def test_provider_529_without_auto_retry(pi_client: RpcClient, pi_harness: PiHarness) -> None:
    await pi_client.call(SetAutoRetry(enabled=False))
    try:
        pi_harness.model.queue(Reply(status=529, error_message="overloaded again"))
        records = await pi_client.prompt_and_wait(Prompt(message="no retry"), timeout=30)
    finally:
        await pi_client.call(SetAutoRetry(enabled=True))
    assert not any(isinstance(r, AutoRetryStart) for r in records)
    (final,) = assistant_ends(records)
    assert final.stop_reason == "error" and "overloaded again" in (final.error_message or "")
    assert isinstance(records[-1], AgentSettled)


# --- the child process (own children) -----------------------------------------------------


async def test_sigkill_mid_stream_reports_child_exited(factory_either: Any, pi_harness: PiHarness) -> None:
    client: RpcClient = await factory_either()
    pi_harness.model.queue(Reply(text="k" * 200, **SLOW))
    with Recorder(client) as rec:
        await client.call(Prompt(message="stream until killed"))
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))
        assert client.link.pid is not None
        os.kill(client.link.pid, signal.SIGSTOP)  # a request that can never be answered
        pending = asyncio.create_task(client.request(GetState()))
        await asyncio.sleep(0.1)
        assert not pending.done()

        client.kill()

        exited = await rec.wait_for(ChildExited, timeout=10)
        with pytest.raises(RpcError, match="exited"):
            await pending
    assert exited.returncode == -signal.SIGKILL
    assert exited.error is None
    assert client.exited == exited and not client.running
    assert await client.wait_closed() == exited
    assert rec.of_type(ChildExited) == [exited], "delivered once"
    with pytest.raises(RpcError, match="not running"):
        await client.request(GetState())


async def test_bad_extension_path_exits_with_stderr(pi_factory, tmp_path) -> None:
    missing = tmp_path / "missing-extension.ts"
    exits: list[ChildExited] = []
    client: RpcClient = await pi_factory(
        extensions=[missing], wait_ready=False, listeners=[lambda r: exits.append(r) if isinstance(r, ChildExited) else None]
    )
    exited = await asyncio.wait_for(client.wait_closed(), 30)
    assert exited.returncode not in (0, None)
    assert "missing-extension.ts" in exited.stderr_tail
    assert "Failed to load extension" in client.stderr_tail
    assert exits == [exited]


async def test_close_shuts_down_in_order(pi_factory, pi_harness: PiHarness) -> None:
    exits: list[ChildExited] = []
    client: RpcClient = await pi_factory(listeners=[lambda r: exits.append(r) if isinstance(r, ChildExited) else None])
    pi_harness.model.queue(Reply(text="before closing"))
    await client.prompt_and_wait(Prompt(message="one run first"), timeout=30)

    exited = await client.close()

    assert exited is not None and exited.returncode == 0
    assert exits == [exited]
    assert client.link.returncode == 0
    assert await client.close() == exited, "closing twice is harmless"


async def test_a_round_trip_reads_the_same_over_either_link(factory_either: Any, pi_harness: PiHarness) -> None:
    """A prompt and its streamed reply, a tool call, an abort, pi killed: held or not, the
    client reads the same records."""
    client: RpcClient = await factory_either()
    deltas = ("Hel", "lo \u2028 ", "there 😀")
    pi_harness.model.queue(Reply(deltas=deltas))
    records = await client.prompt_and_wait(Prompt(message="say hello"), timeout=30)
    assert "".join(d.delta for d in text_deltas(records)) == "".join(deltas)
    assert records[-1] == AgentSettled(aborted=False)

    pi_harness.model.queue(Reply(tool_calls=(ToolCallSpec("bash", {"command": "echo tool-ran"}, id="call_1"),)),
                           Reply(text="the tool ran"))
    records = await client.prompt_and_wait(Prompt(message="run a tool"), timeout=30)
    (end,) = [r for r in records if isinstance(r, ToolExecutionEnd)]
    assert end.tool_call_id == "call_1" and end.is_error is False and text_of(end.result.content) == "tool-ran\n"
    assert text_of(assistant_ends(records)[-1].content) == "the tool ran"

    pi_harness.model.queue(Reply(text="a" * 200, **SLOW))
    with Recorder(client) as rec:
        await client.call(Prompt(message="a long answer please"))
        await rec.wait_for(lambda r: isinstance(r, MessageUpdate) and isinstance(r.assistant_message_event, TextDelta))
        assert (await client.request(Abort())).success
        settled = await rec.wait_settled()
    assert settled.aborted is True and assistant_ends(rec.records)[-1].stop_reason == "aborted"
    assert not (await client.call(GetState())).is_streaming

    with Recorder(client) as rec:
        client.kill()
        exited = await rec.wait_for(ChildExited, timeout=10)
    assert exited.returncode == -signal.SIGKILL and exited.error is None
    assert not client.running and rec.of_type(ChildExited) == [exited]
