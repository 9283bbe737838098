"""SessionModel bookkeeping the views rely on: where each tool call is, running `!cmd`s, and
streamed text."""

from __future__ import annotations

from protocol import decode
from protocol.wire.events import (AgentSettled, AgentStart, AutoRetryEnd, AutoRetryStart, BashExecutionUpdate, MessageEnd,
                                   MessageStart, MessageUpdate, ToolCallEnd, ToolExecutionEnd, ToolExecutionStart,
                                   ToolExecutionUpdate)
from protocol.wire.messages import (AssistantMessage, BashExecutionMessage, TextContent, ToolCall, ToolResult, ToolResultMessage,
                                    UserMessage)
from protocol.wire.responses import BashResult
from protocol.state.session_model import Block, MessageItem, SessionModel
from protocol.state.tool_runs import ToolRun, call_place
from tests.fixtures.record_streams import STREAMS_DIR, stream_lines


def streamed(name: str) -> SessionModel:
    model = SessionModel()
    model.apply_all(decode(raw) for raw in stream_lines(STREAMS_DIR / f"{name}.jsonl"))
    return model


def run_of(model: SessionModel, call_id: str) -> ToolRun:
    """The latest run of `call_id` (ids may repeat: the tests name unique ones)."""
    return next(run for run in reversed(model.tool_runs()) if run.tool_call_id == call_id)


def holder_of(model: SessionModel, call_id: str) -> MessageItem | None:
    """The message whose toolCall block has this id, as the model keys its run."""
    for run in model.tool_runs():
        if run.tool_call_id == call_id and (place := call_place(run.key)) is not None:
            item = model.item(place[0])
            return item if isinstance(item, MessageItem) else None
    return None


def test_each_run_is_keyed_by_the_place_of_its_call() -> None:
    model = streamed("thinking_tools")
    holder = holder_of(model, "call_bash_1")
    assert holder is not None and holder is holder_of(model, "call_read_1") and holder.role == "assistant"
    assert {b.tool_call.id for b in holder.blocks.values() if b.tool_call} == {"call_bash_1", "call_read_1"}
    for run in model.tool_runs():
        place = call_place(run.key)
        assert place is not None and holder.blocks[place[1]].tool_call.id == run.tool_call_id
        assert model.run_at(*place) is run
    results = [i for i in model.items if isinstance(i, MessageItem) and isinstance(i.message, ToolResultMessage)]
    assert len(results) == 2 and all(model.shown_in_call(result) for result in results)


def test_a_call_is_known_while_it_streams_and_forgotten_by_a_load() -> None:
    model = SessionModel()
    lines = stream_lines(STREAMS_DIR / "thinking_tools.jsonl")
    for raw in lines:
        model.apply(decode(raw))
        if model.tool_runs():
            break  # the tool started: its message has ended
    holder = holder_of(model, "call_bash_1")
    assert isinstance(holder, MessageItem)

    call = ToolCall(id="call_loaded", name="read", arguments={"path": "a"})
    model.load_messages([UserMessage(content="hi"), AssistantMessage(content=[call], stop_reason="toolUse"),
                         ToolResultMessage(tool_call_id="call_loaded", tool_name="read", content=[])])
    assert holder_of(model, "call_bash_1") is None, "a load forgets the calls of the session before"
    loaded = holder_of(model, "call_loaded")
    assert isinstance(loaded, MessageItem) and loaded.role == "assistant"


def test_a_provider_that_reuses_tool_call_ids_gets_one_run_per_call() -> None:
    """Some OpenAI-compatible servers send `call_0` on every turn (and pi passes it on): each
    call has its own run, events and results go to the call they are about, live and loaded."""
    def call(path: str) -> ToolCall:
        return ToolCall(id="call_0", name="edit", arguments={"path": path})

    def result(text: str) -> ToolResultMessage:
        return ToolResultMessage(tool_call_id="call_0", tool_name="edit", content=[TextContent(text=text)])

    live = SessionModel()
    for path in ("f.txt", "g.txt"):
        live.apply(MessageStart(message=AssistantMessage()))
        live.apply(MessageUpdate(assistant_message_event=ToolCallEnd(content_index=0, tool_call=call(path))))
        live.apply(MessageEnd(message=AssistantMessage(content=[call(path)], stop_reason="toolUse")))
        live.apply(ToolExecutionStart(tool_call_id="call_0", tool_name="edit", args={"path": path}))
        live.apply(ToolExecutionUpdate(tool_call_id="call_0", tool_name="edit", partial_result=ToolResult(
            content=[TextContent(text=f"editing {path}")])))
        live.apply(ToolExecutionEnd(tool_call_id="call_0", tool_name="edit", result=ToolResult(
            content=[TextContent(text=f"edited {path}")])))
        live.apply(MessageStart(message=result(f"edited {path}")))
        live.apply(MessageEnd(message=result(f"edited {path}")))
    loaded = SessionModel()
    loaded.load_messages([AssistantMessage(content=[call("f.txt")], stop_reason="toolUse"),
                          result("edited f.txt"),
                          AssistantMessage(content=[TextContent(text="again"), call("g.txt"), call("h.txt")],
                                           stop_reason="toolUse"),
                          result("edited g.txt"), result("edited h.txt")])
    for model, paths in ((live, ["f.txt", "g.txt"]), (loaded, ["f.txt", "g.txt", "h.txt"])):
        runs = model.tool_runs()
        assert [run.args["path"] for run in runs] == paths
        assert [run.output for run in runs] == [f"edited {path}" for path in paths]
        assert len({run.key for run in runs}) == len(paths)
        for run in runs:
            place = call_place(run.key)
            assert place is not None
            block = model.item(place[0]).blocks[place[1]]
            assert block.tool_call.arguments["path"] == run.args["path"]
        results = [i for i in model.items if isinstance(i, MessageItem) and isinstance(i.message, ToolResultMessage)]
        assert all(model.shown_in_call(item) for item in results)


def test_bash_running_lasts_from_begin_to_end() -> None:
    model = SessionModel()
    assert not model.bash_running
    model.begin_bash("b1", "sleep 1")
    model.begin_bash("b2", "ls")
    model.end_bash("b1", BashResult(output="", exit_code=0))
    assert model.bash_running, "b2 still runs"
    model.end_bash("b2", None, "pi refused")
    assert not model.bash_running
    model.begin_bash("b3", "sleep 9")
    model.load_messages([])
    assert not model.bash_running, "a load drops the !cmd of the session before"


def test_output_updates_read_before_the_answer_but_applied_after_it_are_dropped() -> None:
    """pi's answer to `bash` resolves at once; its output updates wait for the next frame."""
    model = SessionModel()
    item = model.begin_bash("b1", "echo hi; echo there")
    model.apply(BashExecutionUpdate(id="b1", delta="hi\n"))
    model.end_bash("b1", BashResult(output="hi\nthere\n", exit_code=0))
    count = len(model.items)
    model.apply_all([BashExecutionUpdate(id="b1", delta="there\n")])
    assert len(model.items) == count, "no second, never-ending `$` block"
    assert item.blocks[0].text == "hi\nthere\n" and not item.streaming
    assert not model.bash_running


def test_a_block_joins_its_streamed_parts_when_read_and_a_set_text_replaces_them() -> None:
    block = Block("text", "Hello")
    for delta in (", ", "wor", "ld"):
        block.append(delta)
    assert block.text == "Hello, world"
    block.append("!")
    assert block.text == "Hello, world!" and block == Block("text", "Hello, world!")
    block.append(" pending")
    block.text = "final"
    assert block.text == "final", "the authoritative text replaces the parts not read yet"
    block.text += " answer"
    assert block.text == "final answer" and block != Block("thinking", "final answer")


def test_a_long_streamed_reply_is_the_sum_of_its_deltas() -> None:
    records = [decode(raw) for raw in stream_lines(STREAMS_DIR / "long_3000.jsonl")]
    is_delta = [
        type(record).__name__ == "MessageUpdate" and type(record.assistant_message_event).__name__ == "TextDelta"
        for record in records
    ]
    last = max(index for index, delta in enumerate(is_delta) if delta)
    model = SessionModel()
    model.apply_all(records[: last + 1])  # up to the last delta: before text_end gives the whole text
    item = next(i for i in model.items if isinstance(i, MessageItem) and i.role == "assistant")
    deltas = [record.assistant_message_event.delta for record, delta in zip(records, is_delta) if delta]
    assert len(deltas) > 2000 and item.streaming and item.blocks[0].text == "".join(deltas)


def test_the_end_of_a_block_or_message_replaces_only_text_that_differs_from_what_streamed() -> None:
    records = [decode(raw) for raw in stream_lines(STREAMS_DIR / "markdown.jsonl")]
    kinds = [type(getattr(record, "assistant_message_event", record)).__name__ for record in records]
    text_end, message_end = kinds.index("TextEnd"), len(kinds) - 1 - kinds[::-1].index("MessageEnd")
    model = SessionModel()
    model.apply_all(records[:text_end])
    model.take_changes()
    model.apply_all(records[text_end:message_end + 1])
    changes = model.take_changes()
    item = next(i for i in model.items if isinstance(i, MessageItem) and i.role == "assistant")
    assert not any(key == item.key for key, _ in changes.replaced), "the streamed text stands: nothing to render again"
    assert item.key in changes.items and not item.streaming and item.blocks[0].done

    edited = [decode(raw) for raw in stream_lines(STREAMS_DIR / "markdown.jsonl")]
    end = edited[message_end]
    assert isinstance(end, MessageEnd) and isinstance(end.message, AssistantMessage)
    end.message.content[0].text += " (edited)"  # a final text that differs: shown whole
    model = SessionModel()
    model.apply_all(edited[:message_end])
    model.take_changes()
    model.apply(end)
    item = next(i for i in model.items if isinstance(i, MessageItem) and i.role == "assistant")
    assert (item.key, 0) in model.take_changes().replaced and item.blocks[0].text.endswith("(edited)")


def test_a_loaded_tool_run_has_its_calls_arguments_and_no_made_up_duration() -> None:
    model = SessionModel()
    call = ToolCall(id="call_loaded", name="bash", arguments={"command": "make all"})
    model.load_messages([
        UserMessage(content="build it"),
        AssistantMessage(content=[call], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="call_loaded", tool_name="bash", content=[], is_error=False),
        ToolResultMessage(tool_call_id="call_timed", tool_name="bash", content=[], is_error=False, duration_ms=1500),
    ])
    run = run_of(model, "call_loaded")
    assert run.args == {"command": "make all"}, "the tool log shows what the call ran"
    assert run.done and run.elapsed_ms() is None, "not the time since the session was loaded"
    assert run_of(model, "call_timed").args is None and run_of(model, "call_timed").elapsed_ms() == 1500


def test_a_loaded_tool_run_keeps_its_details_for_the_views() -> None:
    """An edit loaded by /resume shows its diff as a live one does: from `details`."""
    model = SessionModel()
    call = ToolCall(id="call_edit", name="edit", arguments={"path": "a.py", "edits": []})
    details = {"diff": "-1 old\n+1 new", "patch": "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-old\n+new\n", "firstChangedLine": 1}
    model.load_messages([
        AssistantMessage(content=[call], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="call_edit", tool_name="edit", content=[], details=details),
    ])
    result = run_of(model, "call_edit").result
    assert result is not None and result.details == details


def test_a_call_of_an_aborted_or_failed_reply_ends_as_an_error_instead_of_waiting() -> None:
    """pi runs no call of a reply that was aborted or failed; pi's TUI shows each as an error
    with the reason: live (message_end, or pi settling aborted mid-call) and loaded alike."""
    model = SessionModel()
    model.load_messages([
        AssistantMessage(content=[ToolCall(id="c1", name="bash", arguments={"command": "ls"})], stop_reason="aborted"),
        AssistantMessage(content=[ToolCall(id="c2", name="read")], stop_reason="error", error_message="overloaded"),
        AssistantMessage(content=[ToolCall(id="c3", name="read")], stop_reason="toolUse"),
    ])
    assert (run_of(model, "c1").done, run_of(model, "c1").is_error, run_of(model, "c1").output) == (True, True, "Operation aborted")
    assert run_of(model, "c2").output == "overloaded" and run_of(model, "c2").is_error
    assert all(run.tool_call_id != "c3" for run in model.tool_runs()), "a call pi is about to run waits for it"

    model.apply(MessageStart(message=AssistantMessage()))
    model.apply(MessageEnd(message=AssistantMessage(content=[ToolCall(id="c4", name="ls")], stop_reason="aborted")))
    assert run_of(model, "c4").is_error and run_of(model, "c4").key in model.changes.tools

    model.apply(MessageStart(message=AssistantMessage()))
    model.apply(MessageUpdate(assistant_message_event=ToolCallEnd(content_index=0, tool_call=ToolCall(id="c5", name="ls"))))
    model.apply(AgentSettled(aborted=True))
    assert run_of(model, "c5").output == "Operation aborted"


def test_a_retry_banner_says_how_it_ended_not_what_it_was_waiting_for() -> None:
    """pi's `attempt` counts retries: the first retry is attempt 1."""
    model = SessionModel()
    model.apply(AutoRetryStart(attempt=1, max_attempts=3, delay_ms=2000, error_message="overloaded"))
    banner = model.retry
    assert banner is not None and banner.title == "Retrying (1/3) in 2s"
    model.apply(AutoRetryEnd(success=True, attempt=1))
    assert (banner.title, banner.outcome, banner.active) == ("Retried once", "succeeded", False)
    for attempt in (1, 2, 3):
        model.apply(AutoRetryStart(attempt=attempt, max_attempts=3, delay_ms=2000 * attempt, error_message="overloaded"))
    failed = model.retry
    model.apply(AutoRetryEnd(success=False, attempt=3, final_error="overloaded"))
    assert failed is not None and (failed.title, failed.outcome) == ("Retried 3 times", "gave up: overloaded")
    model.apply(AutoRetryStart(attempt=1, max_attempts=3, delay_ms=2000, error_message="overloaded"))
    stopped = model.retry
    model.apply(AutoRetryEnd(success=False, attempt=1, final_error="Retry cancelled"))
    assert stopped is not None and (stopped.title, stopped.outcome) == ("Retrying (1/3) in 2s", "cancelled")


def test_a_bang_command_loaded_from_a_session_shows_its_output() -> None:
    """As one run in this session does: its output in the message's one block."""
    model = SessionModel()
    model.load_messages([BashExecutionMessage(command="git status", output="clean\n", exit_code=0)])
    item = model.items[0]
    assert isinstance(item, MessageItem) and item.blocks[0].kind == "text" and item.blocks[0].text == "clean\n"


def test_a_load_keeps_what_was_pending_beside_the_transcript() -> None:
    """Loading a session's messages rebuilds the transcript's views; a dialog that came during
    the load, and the state set before it, are still to be shown."""
    model = SessionModel()
    model.apply(decode(b'{"type":"extension_ui_request","id":"d1","method":"select","title":"Pick","options":["a"]}'))
    model.apply(decode(b'{"type":"extension_ui_request","id":"n1","method":"notify","message":"loaded"}'))
    model.set_state(decode(b'{"type":"response","command":"get_state","success":true,"data":{"thinkingLevel":"off",'
                           b'"isStreaming":false,"isCompacting":false,"steeringMode":"all","followUpMode":"all",'
                           b'"sessionId":"s","autoCompactionEnabled":true,"messageCount":0,"pendingMessageCount":0}}').data)
    model.load_messages([UserMessage(content="hi")])
    changes = model.take_changes()
    assert changes.reset and changes.session, "the stats still to show the new state"
    assert [d.id for d in changes.dialogs] == ["d1"] and changes.notifications, "nothing asked for is dropped"
    assert changes.added == [], "the reset covers the loaded messages"


def test_a_prompt_sent_makes_the_session_busy_until_its_run_starts_or_pi_says_it_starts_none() -> None:
    """Between a prompt and the agent_start that follows pi's answer, a message sent is a
    steer or a follow-up: pi runs the prompt from its answer on, and refuses another."""
    model = SessionModel()
    assert not model.busy
    model.prompt_sent()
    assert model.busy and not model.running
    model.prompt_answered("started")
    assert model.busy, "started: its agent_start is on its way"
    model.apply(AgentStart())
    assert model.running and not model.run_asked
    model.apply(AgentSettled())
    assert not model.busy
    for disposition in ("handled", None):  # an extension's command; refused or unread
        model.prompt_sent()
        model.prompt_answered(disposition)
        assert not model.busy


def test_a_window_caught_up_mid_run_ends_as_one_that_watched_the_run_from_its_cut() -> None:
    """A held pi's window that fell behind folds a fresh cut (CaughtUp, protocol/hold/): the
    messages before the run, then the run's records from its start. Whatever it had folded of
    the run before, its model ends as that of a window that attached at the cut."""
    from protocol.wire.extension_ui import CaughtUp

    lines = stream_lines(STREAMS_DIR / "thinking_tools.jsonl")
    earlier = [UserMessage(content="before the run")]
    attached = SessionModel()
    attached.load_messages(earlier)
    behind = SessionModel()
    behind.load_messages(earlier)
    for raw in lines[: len(lines) // 2]:
        behind.apply(decode(raw))
    assert behind.running
    behind.take_changes()
    behind.apply(CaughtUp(history=earlier))
    assert not behind.running and behind.changes.caught_up and behind.changes.reset
    for model in (attached, behind):
        for raw in lines:
            model.apply(decode(raw))

    def shown(model: SessionModel) -> list[tuple[str, list[str]]]:
        return [(item.role, [repr(block) for block in item.blocks.values()]) for item in model.items
                if isinstance(item, MessageItem)]

    assert shown(behind) == shown(attached)
    assert [run.tool_call_id for run in behind.tool_runs()] == [run.tool_call_id for run in attached.tool_runs()]
    assert behind.running == attached.running
