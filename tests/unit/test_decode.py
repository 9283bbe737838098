"""protocol.decode / protocol.encode against real pi output and hand-written records.

The recorded streams (tests/fixtures/streams, made by tests/fixtures/record_streams.py)
are real pi 1.6.0 stdout; the hand-written JSON covers what pi did not emit there and
the tolerance rules: `decode` never raises, unknown kinds are kept, bad lines become
ProtocolError with their raw bytes.
"""

from __future__ import annotations

import json
import re
import typing
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from protocol import LineFramer, ProtocolError, Unknown, decode, encode
from protocol.wire.base import Record, UnknownBlock, UnknownEntry, UnknownMessage
from protocol.wire.commands import (
    ALL_COMMANDS,
    Bash,
    Command,
    Compact,
    ExportHtml,
    ExtensionUIResponse,
    Fork,
    NewSession,
    Prompt,
    SetModel,
    SwitchSession,
    command_name,
)
from protocol.wire.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    EntryUnion,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    TreeNode,
    UsageEntry,
)
from protocol.wire.events import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    AssistantEventUnion,
    AutoRetryEnd,
    AutoRetryStart,
    BashExecutionUpdate,
    CompactionEnd,
    CompactionStart,
    EntryAppended,
    EventUnion,
    ExtensionError,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    QueueUpdate,
    SessionInfoChanged,
    StreamDone,
    StreamError,
    StreamStart,
    SummarizationRetryAttemptStart,
    SummarizationRetryFinished,
    SummarizationRetryScheduled,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingLevelChanged,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UnknownAssistantEvent,
)
from protocol.wire.extension_ui import (
    ConfirmRequest,
    EditorRequest,
    InputRequest,
    NotifyRequest,
    RefusedDialogRequest,
    SelectRequest,
    SetEditorTextRequest,
    SetStatusRequest,
    SetTitleRequest,
    SetWidgetRequest,
    UIRequestUnion,
    UnknownUIRequest,
    as_text,
)
from protocol.wire.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    MessageUnion,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from protocol.wire.responses import (
    DATA_TYPES,
    BashResult,
    Cancellable,
    CommandList,
    EntryList,
    ForkMessage,
    ForkMessages,
    ForkResult,
    MessageList,
    ModelList,
    QueueContents,
    Response,
    SessionState,
    SessionStats,
    Tree,
)
from tests.fixtures.record_streams import STREAM_NAMES, stream_lines, stream_paths

LS, PS = "\u2028", "\u2029"


def line(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


# --- the recorded real-pi streams ----------------------------------------------------------

STREAMS = {path.stem: path for path in stream_paths()}


def records(name: str) -> list[Any]:
    return [decode(raw) for raw in stream_lines(STREAMS[name])]


def of_type(items: list[Any], cls: type) -> list[Any]:
    return [item for item in items if isinstance(item, cls)]


def responses(items: list[Any], command: str) -> list[Response]:
    return [item for item in items if isinstance(item, Response) and item.command == command]


def walk(value: Any) -> Iterator[Any]:
    """Every struct, list item and dict value inside `value` (depth first)."""
    yield value
    if isinstance(value, msgspec.Struct):
        for field in value.__struct_fields__:
            yield from walk(getattr(value, field))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from walk(item)


def test_every_stream_was_recorded() -> None:
    assert sorted(STREAMS) == sorted(STREAM_NAMES)
    total = sum(path.stat().st_size for path in STREAMS.values())
    assert total < 2_500_000


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_stream_decodes_fully_typed(name: str) -> None:
    for index, raw in enumerate(stream_lines(STREAMS[name])):
        record = decode(raw)
        where = f"{name}.jsonl line {index + 1}"
        assert not isinstance(record, (ProtocolError, Unknown, UnknownUIRequest)), (where, record)
        for inner in walk(record):
            assert not isinstance(inner, (UnknownBlock, UnknownMessage, UnknownEntry, UnknownAssistantEvent)), (where, inner)
        if isinstance(record, Response):
            assert record.data_error is None, (where, record.data_error)
            expected = DATA_TYPES.get(record.command)
            if record.success and expected is not None and record.data is not None:
                assert isinstance(record.data, expected), (where, record.command, type(record.data))


def test_streams_cover_every_event_ui_request_and_command() -> None:
    seen: Counter[type] = Counter()
    commands: set[str] = set()
    for name in STREAMS:
        for record in records(name):
            seen[type(record)] += 1
            if isinstance(record, Response):
                commands.add(record.command)
    assert set(typing.get_args(EventUnion)) <= set(seen), set(typing.get_args(EventUnion)) - set(seen)
    assert set(typing.get_args(UIRequestUnion)) <= set(seen)
    assert {command_name(cls) for cls in ALL_COMMANDS} <= commands
    assert "parse" in commands


def test_markdown_stream() -> None:
    items = records("markdown")
    deltas = [r.assistant_message_event for r in of_type(items, MessageUpdate) if isinstance(r.assistant_message_event, TextDelta)]
    ends = [r.assistant_message_event for r in of_type(items, MessageUpdate) if isinstance(r.assistant_message_event, TextEnd)]
    assert len(deltas) > 10 and len(ends) == 1
    text = "".join(d.delta for d in deltas)
    assert text == ends[0].content
    assert "```python" in text and "| Field | Meaning |" in text
    assert LS in text and PS in text and "\U0001f680" in text
    final = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)]
    assert len(final) == 1
    assert final[0].content == [TextContent(text=text)]
    assert final[0].stop_reason == "stop"
    assert final[0].provider == "scripted" and final[0].model == "scripted-demo"
    assert final[0].usage.total_tokens > 0 and final[0].usage.cost.total > 0
    assert final[0].duration_ms is not None and final[0].timestamp > 1_600_000_000_000
    system = [r.message for r in of_type(items, MessageStart) if isinstance(r.message, SystemMessage)]
    assert system and system[0].sections and "preamble" in system[0].sections
    assert system[0].tools_added and {tool["name"] for tool in system[0].tools_added} >= {"read", "bash"}
    user = [r.message for r in of_type(items, MessageStart) if isinstance(r.message, UserMessage)]
    assert user[0].content == [TextContent(text="Explain how to read a JSONL stream, with code.")]
    assert responses(items, "prompt")[0].data.disposition == "started"
    assert of_type(items, AgentSettled) == [AgentSettled(aborted=False)]
    # start-pending message, then the authoritative one
    starts = [r.message for r in of_type(items, MessageStart) if isinstance(r.message, AssistantMessage)]
    assert starts[0].stop_reason == "pending" and starts[0].content == []


def test_thinking_tools_stream() -> None:
    items = records("thinking_tools")
    events = [r.assistant_message_event for r in of_type(items, MessageUpdate)]
    kinds = Counter(type(e) for e in events)
    for cls in (ThinkingStart, ThinkingDelta, ThinkingEnd, TextStart, TextDelta, TextEnd, ToolCallStart, ToolCallDelta, ToolCallEnd):
        assert kinds[cls] >= 1, cls
    thinking = "".join(e.delta for e in events if isinstance(e, ThinkingDelta))
    assert thinking == next(e.content for e in events if isinstance(e, ThinkingEnd))
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.tool_name) for s in starts] == [("call_bash_1", "bash"), ("call_read_1", "read")]
    assert [s.content_index for s in starts] == [2, 3]
    calls = [e.tool_call for e in events if isinstance(e, ToolCallEnd)]
    assert calls[0].name == "bash" and calls[0].arguments["command"].startswith("for i in 1 2 3")
    assert calls[1] == ToolCall(id="call_read_1", name="read", arguments={"path": "README.md"})
    args = "".join(e.delta for e in events if isinstance(e, ToolCallDelta) and e.content_index == 2)
    assert json.loads(args) == calls[0].arguments

    first = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)][0]
    assert [type(block) for block in first.content] == [ThinkingContent, TextContent, ToolCall, ToolCall]
    assert first.stop_reason == "toolUse" and first.raw_stop_reason == "tool_calls"
    assert first.thinking_level == "medium"

    assert [(s.tool_call_id, s.tool_name) for s in of_type(items, ToolExecutionStart)] == [("call_bash_1", "bash"), ("call_read_1", "read")]
    updates = of_type(items, ToolExecutionUpdate)
    assert all(u.tool_call_id == "call_bash_1" for u in updates)
    assert updates[-1].partial_result.content == [TextContent(text="line 1\nline 2\nline 3\n")]
    assert updates[-1].args == {"command": calls[0].arguments["command"]}
    ends = {e.tool_call_id: e for e in of_type(items, ToolExecutionEnd)}
    assert ends["call_bash_1"].is_error is False
    assert ends["call_bash_1"].duration_ms is not None and ends["call_bash_1"].duration_ms >= 600  # three 0.3 s sleeps
    assert ends["call_read_1"].duration_ms is not None and ends["call_read_1"].duration_ms >= 0
    assert ends["call_bash_1"].result.structured_content["exit_code"] == 0
    assert ends["call_read_1"].result.content[0].text.startswith("# Fixture project")
    results = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, ToolResultMessage)]
    assert {(m.tool_call_id, m.tool_name, m.is_error) for m in results} == {("call_bash_1", "bash", False), ("call_read_1", "read", False)}
    turn = of_type(items, TurnEnd)[0]
    assert isinstance(turn.message, AssistantMessage) and len(turn.tool_results) == 2
    assert all(isinstance(m, ToolResultMessage) for m in turn.tool_results)
    last = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)][-1]
    assert "Fixture project" in last.content[0].text and last.stop_reason == "stop"


def test_error_401_stream() -> None:
    items = records("error_401")
    final = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)]
    assert len(final) == 1
    assert final[0].stop_reason == "error"
    assert final[0].error_message is not None and final[0].error_message.startswith("401")
    assert "Incorrect API key" in final[0].error_message
    assert final[0].content == []
    assert of_type(items, AgentSettled) == [AgentSettled(aborted=False)]
    assert not of_type(items, AutoRetryStart)  # 401 is not retried


def test_steer_abort_stream() -> None:
    items = records("steer_abort")
    queues = [(q.steering, q.follow_up) for q in of_type(items, QueueUpdate)]
    assert queues == [
        (["Actually, be brief."], []),
        (["Actually, be brief."], ["Then summarize."]),
        (["Actually, be brief."], ["Then summarize.", "And list sources."]),
        ([], []),
    ]
    assert responses(items, "steer")[0].data.disposition == "queued"
    assert responses(items, "follow_up")[0].data.disposition == "queued"
    prompts = responses(items, "prompt")
    assert [p.data.disposition for p in prompts if p.success] == ["started", "queued"]
    failed = [p for p in prompts if not p.success]
    assert len(failed) == 1 and failed[0].data is None and "streamingBehavior" in (failed[0].error or "")
    cleared = responses(items, "clear_queue")[0].data
    assert cleared == QueueContents(steering=["Actually, be brief."], follow_up=["Then summarize.", "And list sources."])
    assert responses(items, "abort")[0].success is True
    assert of_type(items, AgentSettled) == [AgentSettled(aborted=True)]
    final = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)][-1]
    assert final.stop_reason == "aborted"
    assert len(of_type(items, AgentEnd)) == 1


def test_commands_stream() -> None:
    items = records("commands")
    by_id = {r.id: r for r in of_type(items, Response) if r.id}

    state = responses(items, "get_state")[0].data
    assert isinstance(state, SessionState)
    assert state.model is not None and state.model.id == "scripted-demo" and state.model.provider == "scripted"
    assert state.model.reasoning is True and state.model.context_window == 128_000
    assert state.model.cost.cache_write == 1.25 and state.model.compat == {"supportsUsageInStreaming": True}
    assert state.session_file and state.session_file.endswith(".jsonl") and state.session_id
    assert state.message_count == 5 and state.is_streaming is False and state.thinking_level == "medium"

    messages = responses(items, "get_messages")[0].data
    assert isinstance(messages, MessageList)
    assert [type(m) for m in messages.messages] == [SystemMessage, UserMessage, AssistantMessage, UserMessage, AssistantMessage]

    stats = responses(items, "get_session_stats")
    assert isinstance(stats[0].data, SessionStats)
    assert stats[0].data.user_messages == 2 and stats[0].data.assistant_messages == 2
    assert stats[0].data.tokens.total == stats[0].data.tokens.input + stats[0].data.tokens.output > 0
    assert stats[0].data.context_usage is not None and stats[0].data.context_usage.tokens
    assert stats[1].data.context_usage is not None and stats[1].data.context_usage.tokens is None  # after compaction
    assert stats[1].data.context_usage.percent is None

    models = responses(items, "get_available_models")[0].data
    assert isinstance(models, ModelList)
    assert [m.id for m in models.models] == ["scripted-demo", "scripted-demo-mini"]
    assert responses(items, "get_available_thinking_levels")[0].data.levels == ["off", "minimal", "low", "medium", "high"]

    commands = responses(items, "get_commands")[0].data
    assert isinstance(commands, CommandList)
    review = commands.commands[0]
    assert (review.name, review.description, review.source) == ("review", "Review the staged changes", "prompt")
    assert review.source_info is not None and review.source_info.scope == "user" and review.source_info.path.endswith("review.md")

    entries = responses(items, "get_entries")
    assert isinstance(entries[0].data, EntryList)
    kinds = [type(e) for e in entries[0].data.entries]
    assert kinds[:3] == [ModelChangeEntry, ThinkingLevelChangeEntry, MessageEntry]
    assert entries[0].data.leaf_id == entries[0].data.entries[-1].id
    assert entries[0].data.entries[0].parent_id is None
    assert entries[0].data.entries[0].model_id == "scripted-demo"
    assert entries[0].data.entries[1].thinking_level == "medium"
    assert re.match(r"\d{4}-\d\d-\d\dT", entries[0].data.entries[0].timestamp)
    assert [e.id for e in entries[1].data.entries] == [e.id for e in entries[0].data.entries][-len(entries[1].data.entries):]

    tree = responses(items, "get_tree")[0].data
    assert isinstance(tree, Tree) and len(tree.tree) == 1
    depth, node = 1, tree.tree[0]
    while node.children:
        assert isinstance(node, TreeNode) and len(node.children) == 1
        node, depth = node.children[0], depth + 1
    assert depth == len(entries[0].data.entries) and node.entry.id == tree.leaf_id

    fork_messages = responses(items, "get_fork_messages")[0].data
    assert isinstance(fork_messages, ForkMessages)
    assert [m.text for m in fork_messages.messages] == ["How is this project built?", "How are the tests run?"]
    texts = responses(items, "get_last_assistant_text")
    assert texts[0].data.text == "Second answer: tests run with pytest."
    assert texts[1].data.text is None  # a new, empty session

    assert of_type(items, ThinkingLevelChanged)[0].level == "high"
    cycles = responses(items, "cycle_thinking_level")
    assert cycles[0].data.level == "off" and cycles[1].data is None and cycles[1].success
    assert responses(items, "set_model")[0].data.id == "scripted-demo-mini"
    cycled = responses(items, "cycle_model")[0].data
    assert cycled.model.id == "scripted-demo" and cycled.is_scoped is False

    bash = responses(items, "bash")
    assert isinstance(bash[0].data, BashResult)
    updates = [u for u in of_type(items, BashExecutionUpdate) if u.id == bash[0].id]
    assert len(updates) >= 2
    assert "".join(u.delta for u in updates) == bash[0].data.output == f"alpha\nbeta {LS} gamma\nerr\n"
    assert bash[0].data.exit_code == 0 and bash[0].data.truncated is False
    assert bash[1].data.exit_code == 3 and bash[1].data.output == ""

    assert of_type(items, SessionInfoChanged) == [SessionInfoChanged(name="Fixture session")]
    assert of_type(items, CompactionStart) == [CompactionStart(reason="manual")]
    end = of_type(items, CompactionEnd)[0]
    assert end.result is not None and end.aborted is False and end.will_retry is False
    assert end.result.tokens_before > 0 and end.result.first_kept_entry_id
    assert end.result.summary.startswith("## Goal") and end.result.details == {"readFiles": [], "modifiedFiles": []}
    assert end.result.usage is not None and end.result.usage.total_tokens > 0
    compact = responses(items, "compact")[0].data
    assert compact == end.result

    assert responses(items, "export_html")[0].data.path.endswith("/export/session.html")
    assert responses(items, "fork")[0].data == ForkResult(text="How are the tests run?", cancelled=False)
    for command in ("new_session", "switch_session"):
        assert responses(items, command)[0].data == Cancellable(cancelled=False)
    clones = responses(items, "clone")
    assert clones[0].data == Cancellable(cancelled=False)
    assert clones[1].success is False and "not been saved" in (clones[1].error or "")

    failures = {r.command: r for r in of_type(items, Response) if not r.success}
    assert failures["get_entries"].error == "Entry not found: no-such-entry"
    assert failures["set_model"].error == "Model not found: nope/missing"
    assert failures["set_session_name"].error == "Session name cannot be empty"
    assert failures["no_such_command"].error == "Unknown command: no_such_command"
    parses = responses(items, "parse")
    assert len(parses) == 2
    for parse in parses:
        assert parse.id is None and parse.success is False and parse.data is None
        assert (parse.error or "").startswith("Failed to parse command")
    for request_id, response in by_id.items():
        assert request_id.startswith("req-") and response.command


def test_extension_ui_stream() -> None:
    items = records("extension_ui")
    ui = [r for r in items if isinstance(r, tuple(typing.get_args(UIRequestUnion)))]
    assert all(r.id for r in ui) and len({r.id for r in ui}) == len(ui)
    by_type = {type(r): r for r in reversed(ui)}  # the first of each
    assert by_type[SetTitleRequest].title == "pideck fixture"
    assert by_type[SetStatusRequest].status_key == "fixture" and by_type[SetStatusRequest].status_text == "running ui-demo"
    widget = by_type[SetWidgetRequest]
    assert widget.widget_lines == ["--- fixture widget ---", "line 2"] and widget.widget_placement == "belowEditor"
    assert by_type[SetEditorTextRequest].text == "prefilled by the fixture extension"
    assert by_type[SelectRequest].options == ["Allow", "Block"] and by_type[SelectRequest].timeout == 60000
    assert by_type[ConfirmRequest].message == "This is a fixture." and by_type[ConfirmRequest].title == "Really?"
    assert by_type[InputRequest].placeholder == "type here..." and by_type[InputRequest].timeout is None
    assert by_type[EditorRequest].prefill == "Line 1\nLine 2"
    notes = of_type(items, NotifyRequest)
    assert notes[0].notify_type == "warning" and f"input=Ada {LS} Lovelace" in notes[0].message
    assert notes[1].message == "done" and notes[1].notify_type == "info"
    cleared = [r for r in ui if isinstance(r, (SetStatusRequest, SetWidgetRequest))][-2:]
    assert cleared[0].status_text is None  # type: ignore[union-attr]
    assert cleared[1].widget_lines is None and cleared[1].widget_placement == "aboveEditor"  # type: ignore[union-attr]

    appended = of_type(items, EntryAppended)[0].entry
    assert isinstance(appended, CustomEntry)
    assert appended.custom_type == "fixture-state" and appended.data == {"count": 42, "choice": "Allow"}
    errors = of_type(items, ExtensionError)
    assert (errors[0].extension_path, errors[0].event, errors[0].error) == ("command:boom", "command", "fixture command failed")
    assert errors[1].event == "turn_start" and errors[1].extension_path.endswith("fixture-ui.ts")
    assert [r.data.disposition for r in responses(items, "prompt")] == ["handled", "handled", "started"]
    listed = responses(items, "get_commands")[0].data.commands
    assert {(c.name, c.source) for c in listed} == {("ui-demo", "extension"), ("boom", "extension")}
    assert listed[0].source_info is not None and listed[0].source_info.scope == "temporary"


def test_retry_stream() -> None:
    items = records("retry")
    starts = of_type(items, AutoRetryStart)
    assert [(s.attempt, s.max_attempts, s.delay_ms) for s in starts] == [(1, 2, 50), (1, 2, 50), (2, 2, 100)]
    assert "503" in starts[0].error_message
    ends = of_type(items, AutoRetryEnd)
    assert ends[0] == AutoRetryEnd(success=True, attempt=1)
    assert ends[1].success is False and ends[1].attempt == 2 and "still overloaded" in (ends[1].final_error or "")
    edits = [e.entry for e in of_type(items, EntryAppended)]
    assert edits and all(isinstance(e, ContextEditEntry) and e.replacement is None and e.target_id for e in edits)
    scheduled = of_type(items, SummarizationRetryScheduled)[0]
    assert (scheduled.attempt, scheduled.max_attempts, scheduled.delay_ms) == (1, 2, 50)
    assert of_type(items, SummarizationRetryAttemptStart) == [SummarizationRetryAttemptStart(source="compaction", reason="manual")]
    assert len(of_type(items, SummarizationRetryFinished)) == 1
    assert of_type(items, CompactionEnd)[0].result.summary == "## Goal\nSummarized after a retry."  # type: ignore[union-attr]
    assert [a.will_retry for a in of_type(items, AgentEnd)] == [True, False, True, True, False]


def test_long_3000_stream() -> None:
    items = records("long_3000")
    updates = of_type(items, MessageUpdate)
    deltas = [u.assistant_message_event for u in updates if isinstance(u.assistant_message_event, TextDelta)]
    assert len(deltas) == 3000
    assert deltas[0].delta == "t0\n" and deltas[1].delta == "t1 " and deltas[-1].delta == "t2999 "
    text = "".join(d.delta for d in deltas)
    assert next(u.assistant_message_event.content for u in updates if isinstance(u.assistant_message_event, TextEnd)) == text
    final = [r.message for r in of_type(items, MessageEnd) if isinstance(r.message, AssistantMessage)][0]
    assert final.content[0].text == text
    assert all(isinstance(u.usage, Usage) for u in updates)


# --- hand-written records: every event type -----------------------------------------------

USAGE = {
    "input": 100, "output": 20, "cacheRead": 5, "cacheWrite": 1, "cacheWrite1h": 1, "reasoning": 7, "totalTokens": 126,
    "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0.01, "cacheWrite": 0.02, "total": 0.33, "totalFromProvider": True},
}  # fmt: skip
USER = {"role": "user", "content": "Hello", "timestamp": 1733234401000}
ASSISTANT = {
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig", "redacted": False},
        {"type": "text", "text": "Hi!", "textSignature": "ts"},
        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}, "thoughtSignature": "t", "namespace": "ns"},
    ],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "claude-sonnet-4-5",
    "responseModel": "claude-sonnet-4-5-20250929",
    "responseId": "msg_1",
    "providerThinkingLevel": "high",
    "thinkingLevel": "medium",
    "diagnostics": [{"kind": "note"}],
    "usage": USAGE,
    "stopReason": "toolUse",
    "rawStopReason": "tool_use",
    "endTurn": False,
    "timestamp": 1733234402000,
    "durationMs": 812,
}
TOOL_RESULT = {
    "role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
    "content": [{"type": "text", "text": "out"}, {"type": "image", "data": "iVBO", "mimeType": "image/jpeg"}],
    "details": {"exitCode": 0}, "usage": USAGE, "isError": True, "timestamp": 1733234403000, "durationMs": 40,
    "nestedCalls": {"calls": [{"id": "n1", "name": "read", "status": "ok"}], "complete": True},
}  # fmt: skip
TOOL_RESULT_VALUE = {"content": [{"type": "text", "text": "complete output"}], "details": {"n": 1}, "structuredContent": {"ok": True}}


def check_assistant(message: Any) -> None:
    assert isinstance(message, AssistantMessage)
    thinking, text, call = message.content
    assert thinking == ThinkingContent(thinking="hmm", thinking_signature="sig", redacted=False)
    assert text == TextContent(text="Hi!", text_signature="ts")
    assert call == ToolCall(id="call_1", name="bash", arguments={"command": "ls"}, thought_signature="t", namespace="ns")
    assert (message.api, message.provider, message.model) == ("anthropic-messages", "anthropic", "claude-sonnet-4-5")
    assert message.response_model == "claude-sonnet-4-5-20250929" and message.response_id == "msg_1"
    assert message.provider_thinking_level == "high" and message.thinking_level == "medium"
    assert message.diagnostics == [{"kind": "note"}] and message.end_turn is False
    assert message.stop_reason == "toolUse" and message.raw_stop_reason == "tool_use"
    assert message.timestamp == 1733234402000 and message.duration_ms == 812
    check_usage(message.usage)


def check_usage(usage: Any) -> None:
    assert isinstance(usage, Usage)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (100, 20, 5, 1, 126)
    assert usage.cache_write1h == 1 and usage.reasoning == 7
    assert usage.cost.total == 0.33 and usage.cost.cache_read == 0.01 and usage.cost.total_from_provider is True


def check_tool_result(message: Any) -> None:
    assert isinstance(message, ToolResultMessage)
    assert (message.tool_call_id, message.tool_name, message.is_error, message.duration_ms) == ("call_1", "bash", True, 40)
    assert message.content == [TextContent(text="out"), ImageContent(data="iVBO", mime_type="image/jpeg")]
    assert message.details == {"exitCode": 0} and message.nested_calls["complete"] is True
    check_usage(message.usage)


def check_agent_end(record: AgentEnd) -> None:
    assert isinstance(record.messages[0], UserMessage) and record.messages[0].content == "Hello"
    check_assistant(record.messages[1])
    assert record.will_retry is True


def check_turn_end(record: TurnEnd) -> None:
    check_assistant(record.message)
    check_tool_result(record.tool_results[0])


def check_message_update(record: MessageUpdate) -> None:
    check_usage(record.usage)
    assert record.assistant_message_event == TextDelta(content_index=1, delta="Hello ")


def check_tool_execution_end(record: ToolExecutionEnd) -> None:
    assert (record.tool_call_id, record.tool_name, record.is_error, record.duration_ms) == ("c1", "bash", True, 12.5)
    assert record.result.content == [TextContent(text="complete output")]
    assert record.result.details == {"n": 1} and record.result.structured_content == {"ok": True}


def check_compaction_end(record: CompactionEnd) -> None:
    assert (record.reason, record.aborted, record.will_retry, record.error_message) == ("overflow", False, True, None)
    assert record.result is not None
    assert (record.result.summary, record.result.first_kept_entry_id) == ("Summary...", "abc123")
    assert (record.result.tokens_before, record.result.estimated_tokens_after, record.result.details) == (150000, 32000, {})
    check_usage(record.result.usage)


# (class, body without "type", the expected record or a function that checks it)
EVENT_CASES: list[tuple[type, dict[str, Any], Any]] = [
    (AgentStart, {}, AgentStart()),
    (AgentEnd, {"messages": [USER, ASSISTANT], "willRetry": True}, check_agent_end),
    (AgentSettled, {"aborted": True}, AgentSettled(aborted=True)),
    (TurnStart, {}, TurnStart()),
    (TurnEnd, {"message": ASSISTANT, "toolResults": [TOOL_RESULT]}, check_turn_end),
    (MessageStart, {"message": USER}, MessageStart(message=UserMessage(content="Hello", timestamp=1733234401000))),
    (MessageUpdate, {"usage": USAGE, "assistantMessageEvent": {"type": "text_delta", "contentIndex": 1, "delta": "Hello "}}, check_message_update),
    (MessageEnd, {"message": ASSISTANT}, lambda record: check_assistant(record.message)),
    (ToolExecutionStart, {"toolCallId": "c1", "toolName": "bash", "args": {"command": "ls -la"}, "parentToolCallId": "p0"},
     ToolExecutionStart(tool_call_id="c1", tool_name="bash", args={"command": "ls -la"}, parent_tool_call_id="p0")),
    (ToolExecutionUpdate, {"toolCallId": "c1", "toolName": "bash", "args": {}, "partialResult": {"content": [{"type": "text", "text": "partial"}], "details": {}}},
     ToolExecutionUpdate(tool_call_id="c1", tool_name="bash", args={}, partial_result=ToolResult(content=[TextContent(text="partial")], details={}))),
    (ToolExecutionEnd, {"toolCallId": "c1", "toolName": "bash", "result": TOOL_RESULT_VALUE, "isError": True, "durationMs": 12.5}, check_tool_execution_end),
    (QueueUpdate, {"steering": ["a"], "followUp": ["b", "c"]}, QueueUpdate(steering=["a"], follow_up=["b", "c"])),
    (EntryAppended, {"entry": {"type": "custom", "id": "h8i9j0k1", "parentId": "g7h8i9j0", "timestamp": "2024-12-03T14:20:00.000Z", "customType": "my-ext", "data": {"count": 42}}},
     EntryAppended(entry=CustomEntry(id="h8i9j0k1", parent_id="g7h8i9j0", timestamp="2024-12-03T14:20:00.000Z", custom_type="my-ext", data={"count": 42}))),
    (SessionInfoChanged, {"name": "Refactor auth"}, SessionInfoChanged(name="Refactor auth")),
    (ThinkingLevelChanged, {"level": "xhigh"}, ThinkingLevelChanged(level="xhigh")),
    (CompactionStart, {"reason": "threshold"}, CompactionStart(reason="threshold")),
    (CompactionEnd, {"reason": "overflow", "aborted": False, "willRetry": True, "result": {
        "summary": "Summary...", "firstKeptEntryId": "abc123", "tokensBefore": 150000, "estimatedTokensAfter": 32000, "usage": USAGE, "details": {}}},
     check_compaction_end),
    (AutoRetryStart, {"attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "529 overloaded"},
     AutoRetryStart(attempt=1, max_attempts=3, delay_ms=2000, error_message="529 overloaded")),
    (AutoRetryEnd, {"success": False, "attempt": 3, "finalError": "gave up"}, AutoRetryEnd(success=False, attempt=3, final_error="gave up")),
    (SummarizationRetryScheduled, {"attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "terminated"},
     SummarizationRetryScheduled(attempt=1, max_attempts=3, delay_ms=2000, error_message="terminated")),
    (SummarizationRetryAttemptStart, {"source": "branchSummary"}, SummarizationRetryAttemptStart(source="branchSummary", reason=None)),
    (SummarizationRetryFinished, {}, SummarizationRetryFinished()),
    (BashExecutionUpdate, {"id": "req-1", "delta": "total 48\n"}, BashExecutionUpdate(id="req-1", delta="total 48\n")),
    (ExtensionError, {"extensionPath": "/path/to/extension.ts", "event": "tool_call", "error": "Error message"},
     ExtensionError(extension_path="/path/to/extension.ts", event="tool_call", error="Error message")),
]  # fmt: skip

# events whose required fields make a bare {"type": ...} a protocol error
REQUIRED_FIELDS = {"message_start", "message_end", "message_update", "entry_appended", "tool_execution_start", "tool_execution_update", "tool_execution_end"}


def test_event_cases_cover_the_event_union() -> None:
    assert [case[0] for case in EVENT_CASES] == list(typing.get_args(EventUnion))


@pytest.mark.parametrize("cls, body, expected", EVENT_CASES, ids=[c[0].__struct_config__.tag for c in EVENT_CASES])
def test_every_event_type(cls: type, body: dict[str, Any], expected: Any) -> None:
    tag = cls.__struct_config__.tag
    record = decode(line({"type": tag, **body}))
    assert type(record) is cls, record
    if callable(expected) and not isinstance(expected, msgspec.Struct):
        expected(record)
    else:
        assert record == expected
    bare = decode(line({"type": tag}))
    assert isinstance(bare, ProtocolError) if tag in REQUIRED_FIELDS else type(bare) is cls


def test_optional_event_fields_default() -> None:
    assert decode(b'{"type":"agent_end"}') == AgentEnd(messages=[], will_retry=False)
    assert decode(b'{"type":"session_info_changed"}') == SessionInfoChanged(name=None)  # name cleared
    end = decode(b'{"type":"compaction_end","reason":"manual","aborted":false,"willRetry":false,"errorMessage":"boom"}')
    assert isinstance(end, CompactionEnd) and end.result is None and end.error_message == "boom"
    tool_end = decode(b'{"type":"tool_execution_end","toolCallId":"x"}')
    assert isinstance(tool_end, ToolExecutionEnd) and tool_end.duration_ms is None and tool_end.result.content == []
    update = decode(b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}')
    assert isinstance(update, MessageUpdate) and update.usage is None
    assert update.assistant_message_event == TextDelta(content_index=0, delta="x")


# --- all 12 assistantMessageEvent kinds ---------------------------------------------------

ASSISTANT_EVENT_CASES: list[tuple[type, dict[str, Any], Any]] = [
    (StreamStart, {"type": "start"}, StreamStart()),
    (TextStart, {"type": "text_start", "contentIndex": 1}, TextStart(content_index=1)),
    (TextDelta, {"type": "text_delta", "contentIndex": 1, "delta": f"a{LS}b"}, TextDelta(content_index=1, delta=f"a{LS}b")),
    (TextEnd, {"type": "text_end", "contentIndex": 1, "content": "ab"}, TextEnd(content_index=1, content="ab")),
    (ThinkingStart, {"type": "thinking_start", "contentIndex": 0}, ThinkingStart()),
    (ThinkingDelta, {"type": "thinking_delta", "contentIndex": 0, "delta": "hm"}, ThinkingDelta(delta="hm")),
    (ThinkingEnd, {"type": "thinking_end", "contentIndex": 0, "content": "hmm"}, ThinkingEnd(content="hmm")),
    (ToolCallStart, {"type": "toolcall_start", "contentIndex": 2, "id": "c1", "toolName": "read"}, ToolCallStart(content_index=2, id="c1", tool_name="read")),
    (ToolCallDelta, {"type": "toolcall_delta", "contentIndex": 2, "delta": '{"pa'}, ToolCallDelta(content_index=2, delta='{"pa')),
    (ToolCallEnd, {"type": "toolcall_end", "contentIndex": 2, "toolCall": {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}},
     ToolCallEnd(content_index=2, tool_call=ToolCall(id="c1", name="read", arguments={"path": "a"}))),
    (StreamDone, {"type": "done", "reason": "stop", "message": {"role": "assistant", "content": [], "stopReason": "stop"}},
     StreamDone(reason="stop", message=AssistantMessage(stop_reason="stop"))),
    (StreamError, {"type": "error", "reason": "aborted", "error": {"role": "assistant", "stopReason": "aborted"}},
     StreamError(reason="aborted", error={"role": "assistant", "stopReason": "aborted"})),
]  # fmt: skip


def test_assistant_event_cases_cover_the_union() -> None:
    assert [case[0] for case in ASSISTANT_EVENT_CASES] == list(typing.get_args(AssistantEventUnion))


@pytest.mark.parametrize("cls, body, expected", ASSISTANT_EVENT_CASES, ids=[c[1]["type"] for c in ASSISTANT_EVENT_CASES])
def test_every_assistant_event_kind(cls: type, body: dict[str, Any], expected: Any) -> None:
    record = decode(line({"type": "message_update", "usage": USAGE, "assistantMessageEvent": body}))
    assert isinstance(record, MessageUpdate)
    assert type(record.assistant_message_event) is cls
    assert record.assistant_message_event == expected
    check_usage(record.usage)


# --- all 8 message roles ------------------------------------------------------------------

MESSAGE_CASES: list[tuple[dict[str, Any], Any]] = [
    ({"role": "system", "content": "", "sections": {"preamble": "You are...", "skills": None}, "toolsAdded": [{"name": "read", "description": "...", "parameters": {}}],
      "toolsRemoved": [{"name": "write"}], "timestamp": 1},
     SystemMessage(content="", sections={"preamble": "You are...", "skills": None}, tools_added=[{"name": "read", "description": "...", "parameters": {}}],
                   tools_removed=[{"name": "write"}], timestamp=1)),
    ({"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "timestamp": 2},
     UserMessage(content=[TextContent(text="look"), ImageContent(data="AAAA", mime_type="image/png")], timestamp=2)),
    (ASSISTANT, None),
    (TOOL_RESULT, None),
    ({"role": "bashExecution", "command": "ls", "output": "a\n", "exitCode": None, "cancelled": True, "truncated": True,
      "fullOutputPath": "/tmp/pi-bash.log", "excludeFromContext": True, "timestamp": 3},
     BashExecutionMessage(command="ls", output="a\n", exit_code=None, cancelled=True, truncated=True, full_output_path="/tmp/pi-bash.log",
                          exclude_from_context=True, timestamp=3)),
    ({"role": "custom", "customType": "my-ext", "content": "Injected", "display": False, "details": {"k": 1}, "timestamp": 4},
     CustomMessage(custom_type="my-ext", content="Injected", display=False, details={"k": 1}, timestamp=4)),
    ({"role": "branchSummary", "summary": "Branch explored A", "fromId": None, "timestamp": 5}, BranchSummaryMessage(summary="Branch explored A", from_id=None, timestamp=5)),
    ({"role": "compactionSummary", "summary": "Earlier work", "tokensBefore": 50000, "timestamp": 6},
     CompactionSummaryMessage(summary="Earlier work", tokens_before=50000, timestamp=6)),
]  # fmt: skip


def test_message_cases_cover_every_role() -> None:
    roles = [body["role"] for body, _ in MESSAGE_CASES]
    assert roles == [cls.__struct_config__.tag for cls in typing.get_args(MessageUnion)]


@pytest.mark.parametrize("body, expected", MESSAGE_CASES, ids=[c[0]["role"] for c in MESSAGE_CASES])
@pytest.mark.parametrize("kind", ["message_start", "message_end"])
def test_every_message_role(kind: str, body: dict[str, Any], expected: Any) -> None:
    record = decode(line({"type": kind, "message": body}))
    assert type(record) is (MessageStart if kind == "message_start" else MessageEnd)
    if body["role"] == "assistant":
        check_assistant(record.message)
    elif body["role"] == "toolResult":
        check_tool_result(record.message)
    else:
        assert record.message == expected
    # and inside get_messages
    response = decode(line({"type": "response", "command": "get_messages", "success": True, "data": {"messages": [body, body]}}))
    assert isinstance(response.data, MessageList) and response.data_error is None
    assert [type(m) for m in response.data.messages] == [type(record.message)] * 2


# --- every session entry type -------------------------------------------------------------

ENTRY_CASES: list[tuple[dict[str, Any], Any]] = [
    ({"type": "message", "id": "b2c3d4e5", "parentId": "a1b2c3d4", "timestamp": "2024-12-03T14:00:02.000Z", "message": USER},
     MessageEntry(id="b2c3d4e5", parent_id="a1b2c3d4", timestamp="2024-12-03T14:00:02.000Z", message=UserMessage(content="Hello", timestamp=1733234401000))),
    ({"type": "model_change", "id": "d4e5f6g7", "parentId": "c3d4e5f6", "timestamp": "t", "provider": "openai", "modelId": "gpt-4o"},
     ModelChangeEntry(id="d4e5f6g7", parent_id="c3d4e5f6", timestamp="t", provider="openai", model_id="gpt-4o")),
    ({"type": "thinking_level_change", "id": "e5", "parentId": "d4", "timestamp": "t", "thinkingLevel": "high"},
     ThinkingLevelChangeEntry(id="e5", parent_id="d4", timestamp="t", thinking_level="high")),
    ({"type": "usage", "id": "f6", "parentId": "e5", "timestamp": "t", "kind": "cache_warm", "provider": "anthropic", "model": "m", "usage": USAGE}, None),
    ({"type": "compaction", "id": "f6g7", "parentId": "e5f6", "timestamp": "t", "summary": "User discussed X", "firstKeptEntryId": "c3d4",
      "tokensBefore": 50000, "systemMessage": {"role": "system", "content": "You are a coding assistant.", "toolsAdded": [], "timestamp": 1733235000000},
      "details": {"readFiles": ["a"], "modifiedFiles": []}, "fromHook": False},
     CompactionEntry(id="f6g7", parent_id="e5f6", timestamp="t", summary="User discussed X", first_kept_entry_id="c3d4", tokens_before=50000,
                     system_message=SystemMessage(content="You are a coding assistant.", tools_added=[], timestamp=1733235000000),
                     details={"readFiles": ["a"], "modifiedFiles": []}, from_hook=False)),
    ({"type": "context_edit", "id": "g6", "parentId": "f6", "timestamp": "t", "targetId": "c3", "replacement": "new text"},
     ContextEditEntry(id="g6", parent_id="f6", timestamp="t", target_id="c3", replacement="new text")),
    ({"type": "branch_summary", "id": "g7", "parentId": "a1", "timestamp": "t", "fromId": "f6", "summary": "Branch explored approach A"},
     BranchSummaryEntry(id="g7", parent_id="a1", timestamp="t", from_id="f6", summary="Branch explored approach A")),
    ({"type": "custom", "id": "h8", "parentId": "g7", "timestamp": "t", "customType": "my-extension", "data": {"count": 42}},
     CustomEntry(id="h8", parent_id="g7", timestamp="t", custom_type="my-extension", data={"count": 42})),
    ({"type": "custom_message", "id": "i9", "parentId": "h8", "timestamp": "t", "customType": "my-extension", "content": [{"type": "text", "text": "ctx"}], "display": True},
     CustomMessageEntry(id="i9", parent_id="h8", timestamp="t", custom_type="my-extension", content=[TextContent(text="ctx")], display=True)),
    ({"type": "label", "id": "j0", "parentId": "i9", "timestamp": "t", "targetId": "a1", "label": "checkpoint-1"},
     LabelEntry(id="j0", parent_id="i9", timestamp="t", target_id="a1", label="checkpoint-1")),
    ({"type": "session_info", "id": "k1", "parentId": "j0", "timestamp": "t", "name": "Refactor auth module"},
     SessionInfoEntry(id="k1", parent_id="j0", timestamp="t", name="Refactor auth module")),
]  # fmt: skip


def test_entry_cases_cover_every_entry_type() -> None:
    assert [body["type"] for body, _ in ENTRY_CASES] == [cls.__struct_config__.tag for cls in typing.get_args(EntryUnion)]


@pytest.mark.parametrize("body, expected", ENTRY_CASES, ids=[c[0]["type"] for c in ENTRY_CASES])
def test_every_entry_type(body: dict[str, Any], expected: Any) -> None:
    appended = decode(line({"type": "entry_appended", "entry": body}))
    assert isinstance(appended, EntryAppended)
    listed = decode(line({"type": "response", "command": "get_entries", "success": True, "data": {"entries": [body], "leafId": body["id"]}}))
    assert isinstance(listed.data, EntryList) and listed.data.leaf_id == body["id"]
    tree = decode(line({"type": "response", "command": "get_tree", "success": True,
                        "data": {"tree": [{"entry": body, "children": [{"entry": body, "children": []}], "label": "x", "labelTimestamp": "t"}], "leafId": None}}))
    assert isinstance(tree.data, Tree) and tree.data.tree[0].label == "x" and tree.data.tree[0].label_timestamp == "t"
    for entry in (appended.entry, listed.data.entries[0], tree.data.tree[0].entry, tree.data.tree[0].children[0].entry):
        if expected is None:  # usage
            assert isinstance(entry, UsageEntry) and entry.kind == "cache_warm" and entry.model == "m"
            check_usage(entry.usage)
        else:
            assert entry == expected


# --- all 9 extension UI methods -----------------------------------------------------------

UI_CASES: list[tuple[dict[str, Any], Any]] = [
    ({"method": "select", "title": "Allow?", "options": ["Allow", "Block"], "timeout": 10000},
     SelectRequest(id="u1", title="Allow?", options=["Allow", "Block"], timeout=10000)),
    ({"method": "confirm", "title": "Clear?", "message": "All lost.", "timeout": 5000}, ConfirmRequest(id="u1", title="Clear?", message="All lost.", timeout=5000)),
    ({"method": "input", "title": "Enter", "placeholder": "type..."}, InputRequest(id="u1", title="Enter", placeholder="type...")),
    ({"method": "editor", "title": "Edit", "prefill": "Line 1\nLine 2"}, EditorRequest(id="u1", title="Edit", prefill="Line 1\nLine 2")),
    ({"method": "notify", "message": "Blocked", "notifyType": "warning"}, NotifyRequest(id="u1", message="Blocked", notify_type="warning")),
    ({"method": "setStatus", "statusKey": "my-ext", "statusText": "Turn 3"}, SetStatusRequest(id="u1", status_key="my-ext", status_text="Turn 3")),
    ({"method": "setWidget", "widgetKey": "my-ext", "widgetLines": ["a", "b"], "widgetPlacement": "belowEditor"},
     SetWidgetRequest(id="u1", widget_key="my-ext", widget_lines=["a", "b"], widget_placement="belowEditor")),
    ({"method": "setTitle", "title": "pi - project"}, SetTitleRequest(id="u1", title="pi - project")),
    ({"method": "set_editor_text", "text": "prefilled"}, SetEditorTextRequest(id="u1", text="prefilled")),
]  # fmt: skip


def test_ui_cases_cover_every_method() -> None:
    assert [type(expected) for _, expected in UI_CASES] == list(typing.get_args(UIRequestUnion))


@pytest.mark.parametrize("body, expected", UI_CASES, ids=[c[0]["method"] for c in UI_CASES])
def test_every_ui_method(body: dict[str, Any], expected: Any) -> None:
    assert decode(line({"type": "extension_ui_request", "id": "u1", **body})) == expected


def test_ui_defaults() -> None:
    assert decode(b'{"type":"extension_ui_request","id":"u","method":"notify","message":"m"}') == NotifyRequest(id="u", message="m", notify_type="info")
    widget = decode(b'{"type":"extension_ui_request","id":"u","method":"setWidget","widgetKey":"k"}')
    assert widget == SetWidgetRequest(id="u", widget_key="k", widget_lines=None, widget_placement="aboveEditor")


# --- responses ----------------------------------------------------------------------------


def test_response_data_typing() -> None:
    ok = decode(b'{"id":"r1","type":"response","command":"bash","success":true,"data":{"output":"x","exitCode":0,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/p.log"}}')
    assert isinstance(ok, Response) and ok.id == "r1" and ok.data == BashResult(output="x", exit_code=0, truncated=True, full_output_path="/tmp/p.log")
    # a command without typed data keeps what pi sent
    assert decode(b'{"type":"response","command":"set_thinking_level","success":true}').data is None
    assert decode(b'{"type":"response","command":"mystery","success":true,"data":[1,2]}').data == [1, 2]
    # data of the wrong shape is kept untyped, with the reason, never an exception
    bad = decode(b'{"type":"response","command":"get_state","success":true,"data":{"isStreaming":"yes"}}')
    assert isinstance(bad, Response) and bad.data == {"isStreaming": "yes"} and "isStreaming" in (bad.data_error or "")
    # a failure has no typed data
    failed = decode(b'{"id":"r2","type":"response","command":"set_model","success":false,"error":"Model not found: x/y"}')
    assert isinstance(failed, Response) and failed.success is False and failed.error == "Model not found: x/y" and failed.data is None
    # cycle_* with one option: data null
    assert decode(b'{"type":"response","command":"cycle_model","success":true,"data":null}').data is None


def test_get_state_without_model_or_session_name() -> None:
    state = decode(b'{"type":"response","command":"get_state","success":true,"data":{"thinkingLevel":"off","isStreaming":false,'
                   b'"isCompacting":false,"steeringMode":"all","followUpMode":"one-at-a-time","sessionId":"abc",'
                   b'"autoCompactionEnabled":true,"messageCount":0,"pendingMessageCount":0}}').data  # fmt: skip
    assert isinstance(state, SessionState) and state.model is None and state.session_name is None and state.session_file is None


# --- JSON numbers -------------------------------------------------------------------------


def _all_records(cls: type = Record) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_records(sub)


def test_no_record_field_is_an_int_that_a_json_number_would_fail() -> None:
    """pi's `number` may be a float where an int is meant; only list positions stay int."""
    ints = {
        (cls.__name__, field.name)
        for cls in _all_records()
        for field in msgspec.structs.fields(cls)
        if field.type is int or (int in typing.get_args(field.type) and float not in typing.get_args(field.type))
    }
    assert {name for _, name in ints} == {"content_index"}, sorted(ints)


def test_a_float_where_pi_means_an_int_is_still_a_number() -> None:
    model = {"id": "m", "provider": "p", "contextWindow": 131072.5, "maxTokens": 8192.0}
    state = decode(line({"type": "response", "command": "get_state", "success": True,
                         "data": {"model": model, "messageCount": 2.0, "pendingMessageCount": 0.0}}))
    assert isinstance(state, Response) and state.data_error is None
    assert state.data.model.context_window == 131072.5 and state.data.message_count == 2
    models = decode(line({"type": "response", "command": "get_available_models", "success": True, "data": {"models": [model]}}))
    assert isinstance(models.data, ModelList) and models.data.models[0].max_tokens == 8192
    tokens = {"input": 1.5, "output": 2, "cacheRead": 0.0, "cacheWrite": 0, "total": 3.5}
    stats = decode(line({"type": "response", "command": "get_session_stats", "success": True,
                         "data": {"userMessages": 1.0, "tokens": tokens, "contextUsage": {"tokens": 10.5, "contextWindow": 131072.5}}}))
    assert isinstance(stats.data, SessionStats) and stats.data.tokens.total == 3.5 and stats.data.context_usage.tokens == 10.5
    usage = {"input": 10.5, "output": 2.0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 12.5}
    end = decode(line({"type": "message_end", "message": {"role": "assistant", "content": [], "usage": usage, "timestamp": 1.7e12}}))
    assert isinstance(end, MessageEnd) and isinstance(end.message, AssistantMessage) and end.message.usage.total_tokens == 12.5
    retry = decode(line({"type": "auto_retry_start", "attempt": 1.0, "maxAttempts": 3, "delayMs": 1500.5, "errorMessage": "x"}))
    assert isinstance(retry, AutoRetryStart) and retry.delay_ms == 1500.5
    compaction = decode(line({"type": "compaction_end", "reason": "threshold",
                              "result": {"summary": "s", "firstKeptEntryId": "e", "tokensBefore": 150000.5}}))
    assert isinstance(compaction, CompactionEnd) and compaction.result is not None and compaction.result.tokens_before == 150000.5
    dialog = decode(line({"type": "extension_ui_request", "id": "u", "method": "confirm", "title": "t", "timeout": 1500.5}))
    assert isinstance(dialog, ConfirmRequest) and dialog.timeout == 1500.5


def test_a_command_that_documents_data_but_sends_none_has_a_data_error() -> None:
    assert decode(b'{"type":"response","command":"get_state","success":true}').data_error == "no data"
    assert decode(b'{"type":"response","command":"get_messages","success":true,"data":null}').data_error == "no data"
    assert decode(b'{"type":"response","command":"cycle_thinking_level","success":true,"data":null}').data_error is None
    assert decode(b'{"type":"response","command":"abort","success":true}').data_error is None


# --- tolerance ----------------------------------------------------------------------------


def test_unknown_record_type_is_kept() -> None:
    raw = {"type": "future_event", "payload": {"x": [1, 2]}, "n": 3}
    record = decode(line(raw))
    assert record == Unknown(type="future_event", raw=raw)


def test_unknown_message_role_inside_message_end() -> None:
    message = {"role": "hookMessage2", "content": "x", "timestamp": 1, "extra": {"a": 1}}
    record = decode(line({"type": "message_end", "message": message}))
    assert isinstance(record, MessageEnd) and isinstance(record.message, UnknownMessage)
    assert record.message.raw == message and record.message.role == "hookMessage2"
    # and among known messages, which stay typed
    end = decode(line({"type": "agent_end", "messages": [USER, message, ASSISTANT]}))
    assert isinstance(end, AgentEnd)
    assert [type(m) for m in end.messages] == [UserMessage, UnknownMessage, AssistantMessage]


def test_message_of_known_role_with_bad_fields_is_wrapped_not_rejected() -> None:
    message = {"role": "user", "content": 42, "timestamp": "yesterday"}
    record = decode(line({"type": "message_start", "message": message}))
    assert isinstance(record, MessageStart) and record.message == UnknownMessage(raw=message)


def test_unknown_content_block_keeps_the_other_blocks() -> None:
    blocks = [
        {"type": "text", "text": "before"},
        {"type": "audio", "data": "UklGR", "format": "wav"},
        {"type": "toolCall", "id": "c", "name": "bash", "arguments": {}},
        {"type": "text", "text": 42},  # a known type that does not fit is kept too
        {"no": "type"},
    ]
    message = {**ASSISTANT, "content": blocks}
    record = decode(line({"type": "message_end", "message": message}))
    assert isinstance(record, MessageEnd) and isinstance(record.message, AssistantMessage)
    before, audio, call, bad_text, untyped = record.message.content
    assert before == TextContent(text="before")
    assert isinstance(audio, UnknownBlock) and audio.type == "audio" and audio.raw == blocks[1]
    assert call == ToolCall(id="c", name="bash", arguments={})
    assert bad_text == UnknownBlock(raw=blocks[3]) and untyped == UnknownBlock(raw=blocks[4]) and untyped.type == "?"
    check_usage(record.message.usage)
    # a user message's content blocks too
    user = decode(line({"type": "message_start", "message": {**USER, "content": [{"type": "video", "url": "u"}, {"type": "text", "text": "t"}]}}))
    assert isinstance(user.message, UserMessage)
    assert user.message.content == [UnknownBlock(raw={"type": "video", "url": "u"}), TextContent(text="t")]


def test_a_block_that_is_not_an_object_makes_its_message_unknown() -> None:
    message = {**ASSISTANT, "content": [{"type": "text", "text": "ok"}, "not an object"]}
    record = decode(line({"type": "message_end", "message": message}))
    assert isinstance(record, MessageEnd) and record.message == UnknownMessage(raw=message)


def test_unknown_entry_type_keeps_the_other_entries() -> None:
    entries = [ENTRY_CASES[1][0], {"type": "bookmark_v9", "id": "z9", "parentId": "d4e5f6g7", "timestamp": "t", "x": 1}, ENTRY_CASES[2][0]]
    record = decode(line({"type": "response", "command": "get_entries", "success": True, "data": {"entries": entries, "leafId": "z9"}}))
    assert isinstance(record.data, EntryList) and record.data_error is None
    first, odd, third = record.data.entries
    assert isinstance(first, ModelChangeEntry) and isinstance(third, ThinkingLevelChangeEntry)
    assert isinstance(odd, UnknownEntry) and odd.type == "bookmark_v9" and odd.id == "z9" and odd.parent_id == "d4e5f6g7"
    appended = decode(line({"type": "entry_appended", "entry": entries[1]}))
    assert isinstance(appended, EntryAppended) and appended.entry == UnknownEntry(raw=entries[1])


def test_unknown_assistant_event_kind() -> None:
    inner = {"type": "citation_delta", "contentIndex": 4, "citation": {"url": "https://x"}}
    record = decode(line({"type": "message_update", "usage": USAGE, "assistantMessageEvent": inner}))
    assert isinstance(record, MessageUpdate)
    assert record.assistant_message_event == UnknownAssistantEvent(raw=inner, content_index=4)
    check_usage(record.usage)
    # without a contentIndex, or with a usage that does not fit
    odd = decode(line({"type": "message_update", "usage": "n/a", "assistantMessageEvent": {"type": "x"}}))
    assert isinstance(odd, MessageUpdate) and odd.assistant_message_event.content_index == -1 and odd.usage is None


def test_unknown_ui_method() -> None:
    raw = {"type": "extension_ui_request", "id": "u9", "method": "showToast", "text": "hi", "ttl": 3}
    assert decode(line(raw)) == UnknownUIRequest(id="u9", method="showToast", raw=raw)
    # without a usable id it cannot be answered or shown: a protocol error
    assert isinstance(decode(b'{"type":"extension_ui_request","method":"showToast"}'), ProtocolError)
    assert isinstance(decode(b'{"type":"extension_ui_request","id":"u","method":7}'), ProtocolError)
    # a dialog of a shape pideck cannot show is refused (and answered), a broken notify is an error
    assert decode(b'{"type":"extension_ui_request","id":"u","method":"select","options":"A,B"}') == RefusedDialogRequest(
        id="u", method="select", reason="Expected `array`, got `str` - at `$.options`")
    assert isinstance(decode(b'{"type":"extension_ui_request","id":7,"method":"select","title":[]}'), ProtocolError)
    assert isinstance(decode(b'{"type":"extension_ui_request","id":"u","method":"notify","message":[]}'), ProtocolError)


def test_dialog_scalars_where_text_belongs() -> None:
    """pi forwards what the extension passed: numbers, booleans and null are kept, shown as JavaScript writes them."""
    select = decode(b'{"type":"extension_ui_request","id":"u","method":"select","title":null,"options":[1,2.5,null,true,"x"],"timeout":3000.5}')
    assert select == SelectRequest(id="u", title=None, options=[1, 2.5, None, True, "x"], timeout=3000.5)
    assert [as_text(o, null="null") for o in select.options] == ["1", "2.5", "null", "true", "x"]
    assert as_text(select.title) == "" and as_text(3.0) == "3"
    assert decode(b'{"type":"extension_ui_request","id":"u","method":"input","placeholder":42}') == InputRequest(id="u", placeholder=42)
    for bad in (b'"title":{"a":1}', b'"options":[[1]]', b'"timeout":"5000"'):
        record = decode(b'{"type":"extension_ui_request","id":"u","method":"select",' + bad + b"}")
        assert isinstance(record, RefusedDialogRequest) and record.reason.startswith("Expected"), record


def test_dialog_deadline_follows_node_timers() -> None:
    assert SelectRequest(timeout=None).deadline(100.0) is None
    assert SelectRequest(timeout=0).deadline(100.0) is None  # falsy: pi sets no timer
    assert SelectRequest(timeout=1500.5).deadline(100.0) == 100.0 + 1.5005
    for at_once in (-5, 0.5, 2**31):  # Node runs these after 1 ms
        assert SelectRequest(timeout=at_once).deadline(100.0) == 100.001


def test_unknown_extra_fields_are_ignored_everywhere() -> None:
    record = decode(line({
        "type": "message_end", "future": 1,
        "message": {**ASSISTANT, "future": {"x": 1}, "usage": {**USAGE, "future": 2, "cost": {**USAGE["cost"], "future": 3}},
                    "content": [{**ASSISTANT["content"][1], "future": 4}]},
    }))  # fmt: skip
    assert isinstance(record, MessageEnd) and isinstance(record.message, AssistantMessage)
    assert record.message.content == [TextContent(text="Hi!", text_signature="ts")]
    check_usage(record.message.usage)
    ui = decode(b'{"type":"extension_ui_request","id":"u","method":"setTitle","title":"t","future":[1]}')
    assert ui == SetTitleRequest(id="u", title="t")
    response = decode(b'{"type":"response","command":"get_fork_messages","success":true,"future":1,"data":{"messages":[{"entryId":"e","text":"t","future":2}],"f":3}}')
    assert response.data == ForkMessages(messages=[ForkMessage(entry_id="e", text="t")]) and response.data_error is None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"message_start"}',
        b'{"type":"message_end","message":null}',
        b'{"type":"message_update","usage":{}}',
        b'{"type":"tool_execution_start","toolName":"bash"}',
        b'{"type":"tool_execution_update"}',
        b'{"type":"tool_execution_end","result":{}}',
        b'{"type":"entry_appended"}',
        b'{"type":"agent_settled","aborted":"yes"}',
        b'{"type":"queue_update","steering":"a"}',
        b'{"type":"message_start","message":"hello"}',
        b'{"type":"response","command":"x","success":"true"}',
    ],
)
def test_missing_or_mistyped_required_fields_are_protocol_errors(raw: bytes) -> None:
    record = decode(raw)
    assert isinstance(record, ProtocolError), record
    assert record.raw == raw and record.error


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"not json",
        b'{"type":"agent_start"',
        b'{"type":"agent_start"}}',
        b'{"type":"agent_start"} {"type":"turn_start"}',
        b'{"type":"text","text":"\xff\xfe"}',
        b'{"type":"agent_start","x":"\xc3"}',
        b"\xef\xbb\xbf{}",
        b"[1,2,3]",
        b'[{"type":"agent_start"}]',
        b"42",
        b"-1.5e3",
        b'"agent_start"',
        b"null",
        b"true",
        b"{}",
        b'{"type":null}',
        b'{"type":5}',
        b'{"type":["agent_start"]}',
        b"\x00\x01",
    ],
)
def test_unreadable_lines_are_protocol_errors_keeping_raw_bytes(raw: bytes) -> None:
    record = decode(raw)
    assert isinstance(record, ProtocolError), record
    assert record.raw == raw and type(record.raw) is bytes
    assert record.error


def test_invalid_utf8_in_an_ignored_field_is_a_protocol_error() -> None:
    raw = b'{"type":"agent_start","ignored":"\xc3"}'
    assert isinstance(decode(raw), ProtocolError) and decode(raw).raw == raw
    assert decode('{"type":"agent_start","ignored":"\u00e9\u4e2d"}'.encode()) == AgentStart()


@pytest.mark.parametrize(
    "escaped, text",
    [
        (rb"\ud83d", "\ufffd"),  # half of a split emoji, as JSON.stringify writes it
        (rb"a\ude80b", "a\ufffdb"),  # a low surrogate alone
        (rb"\ud83d\ude80", "\U0001f680"),  # a proper pair is untouched
        (rb"\ud83d\ud83d\ude80", "\ufffd\U0001f680"),
        (rb"\uD83D!", "\ufffd!"),
        (rb"\\ud83d", "\\ud83d"),  # an escaped backslash, then plain text
        (rb"\\\ud83d", "\\\ufffd"),
    ],
)
def test_lone_surrogate_escapes_become_replacement_characters(escaped: bytes, text: str) -> None:
    raw = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"' + escaped + b'"}}'
    record = decode(raw)
    assert isinstance(record, MessageUpdate), record
    assert record.assistant_message_event == TextDelta(delta=text)
    text.encode()  # the result can always be written out as UTF-8


def test_lone_surrogates_in_unknown_records_and_broken_lines() -> None:
    assert decode(b'{"type":"future","s":"\\udc00"}') == Unknown(type="future", raw={"type": "future", "s": "\ufffd"})
    broken = b'{"type":"agent_start","s":"\\ud800"'
    record = decode(broken)
    assert isinstance(record, ProtocolError) and record.raw == broken


def test_decode_accepts_bytearray_and_memoryview() -> None:
    for raw in (bytearray(b'{"type":"agent_start"}'), memoryview(b'{"type":"agent_start"}')):
        assert decode(raw) == AgentStart()  # type: ignore[arg-type]
    bad = decode(bytearray(b"nope"))  # type: ignore[arg-type]
    assert isinstance(bad, ProtocolError) and bad.raw == b"nope" and type(bad.raw) is bytes


def test_decode_never_raises_on_deep_nesting() -> None:
    raw = b'{"type":"x","v":' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert isinstance(decode(raw), (Unknown, ProtocolError))


def test_unicode_separators_survive_decoding() -> None:
    record = decode(line({"type": "bash_execution_update", "delta": f"a{LS}b{PS}c\u0085d"}))
    assert record == BashExecutionUpdate(delta=f"a{LS}b{PS}c\u0085d")
    escaped = decode(b'{"type":"bash_execution_update","delta":"a\\u2028b"}')
    assert escaped == BashExecutionUpdate(delta=f"a{LS}b")


# --- encoding the 33 commands -------------------------------------------------------------

IMAGE = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")

# every field of every command set to a non-default value; the wire names each must produce
FULL_COMMANDS: dict[type[Command], tuple[dict[str, Any], dict[str, Any]]] = {
    Prompt: ({"message": "Hi", "images": [IMAGE], "streaming_behavior": "followUp"},
             {"message": "Hi", "images": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], "streamingBehavior": "followUp"}),
    NewSession: ({"parent_session": "/p/s.jsonl"}, {"parentSession": "/p/s.jsonl"}),
    SetModel: ({"provider": "anthropic", "model_id": "claude"}, {"provider": "anthropic", "modelId": "claude"}),
    Compact: ({"custom_instructions": "Focus"}, {"customInstructions": "Focus"}),
    Bash: ({"command": "ls -la", "exclude_from_context": True}, {"command": "ls -la", "excludeFromContext": True}),
    ExportHtml: ({"output_path": "/tmp/s.html"}, {"outputPath": "/tmp/s.html"}),
    SwitchSession: ({"session_path": "/p/s.jsonl"}, {"sessionPath": "/p/s.jsonl"}),
    Fork: ({"entry_id": "abc123"}, {"entryId": "abc123"}),
}  # fmt: skip

SAMPLE_VALUES: dict[str, Any] = {
    "message": "Hello", "images": [IMAGE], "streaming_behavior": "steer", "parent_session": "/p.jsonl", "provider": "p",
    "model_id": "m", "level": "high", "mode": "all", "custom_instructions": "c", "enabled": True, "command": "ls",
    "exclude_from_context": True, "output_path": "/o.html", "session_path": "/s.jsonl", "entry_id": "e1", "since": "e0",
    "name": "n",
}  # fmt: skip


def required_fields(cls: type[Command]) -> list[str]:
    fields = cls.__struct_fields__
    return list(fields[: len(fields) - len(cls.__struct_defaults__)])


def test_all_commands_are_the_33_documented_in_rpc_commands_md() -> None:
    from app.runtime import ensure_runtime

    doc = ensure_runtime().docs / "rpc-commands.md"
    documented = re.findall(r"^### ([a-z_]+)\s*$", doc.read_text(), flags=re.MULTILINE)
    assert len(documented) == 33 and len(set(documented)) == 33
    names = [command_name(cls) for cls in ALL_COMMANDS]
    assert len(names) == 33 and len(set(names)) == 33
    assert set(names) == set(documented)
    assert command_name(Prompt(message="x")) == "prompt"


@pytest.mark.parametrize("cls", ALL_COMMANDS, ids=command_name)
def test_every_command_encodes_to_one_line(cls: type[Command]) -> None:
    required = required_fields(cls)
    minimal = cls(**{name: SAMPLE_VALUES[name] for name in required})
    data = encode(minimal)
    assert data.endswith(b"\n") and data.count(b"\n") == 1 and b"\r" not in data
    obj = json.loads(data)
    assert obj["type"] == command_name(cls)
    # defaults (including id=None) are omitted: only the type and the required fields
    wire_names = dict(zip(cls.__struct_fields__, cls.__struct_encode_fields__))
    assert set(obj) == {"type", *(wire_names[name] for name in required)}
    # an id goes through
    with_id = json.loads(encode(cls(id="req-7", **{name: SAMPLE_VALUES[name] for name in required})))
    assert with_id["id"] == "req-7"
    # every field set: camelCase on the wire, never snake_case
    full = cls(id="x", **{name: SAMPLE_VALUES[name] for name in cls.__struct_fields__ if name != "id"})
    full_obj = json.loads(encode(full))
    assert all("_" not in key for key in full_obj if key != "type")
    assert set(full_obj) == {"type", *wire_names.values()}
    # pi's framing reads it back as exactly one line
    framer = LineFramer()
    assert framer.feed(encode(full)) == [encode(full)[:-1]] and framer.flush() is None


@pytest.mark.parametrize("cls", list(FULL_COMMANDS), ids=command_name)
def test_camel_case_field_names(cls: type[Command]) -> None:
    kwargs, expected = FULL_COMMANDS[cls]
    assert json.loads(encode(cls(**kwargs))) == {"type": command_name(cls), **expected}


def test_documented_command_examples() -> None:
    examples = [
        (Prompt(id="req-1", message="Hello, world!"), {"id": "req-1", "type": "prompt", "message": "Hello, world!"}),
        (Prompt(message="New instruction", streaming_behavior="steer"), {"type": "prompt", "message": "New instruction", "streamingBehavior": "steer"}),
        (Bash(id="req-1", command="ls -la"), {"id": "req-1", "type": "bash", "command": "ls -la"}),
        (SetModel(provider="anthropic", model_id="claude-sonnet-4-20250514"), {"type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4-20250514"}),
        (Compact(custom_instructions="Focus on code changes"), {"type": "compact", "customInstructions": "Focus on code changes"}),
        (ExportHtml(output_path="/tmp/session.html"), {"type": "export_html", "outputPath": "/tmp/session.html"}),
        (NewSession(parent_session="/path/to/parent-session.jsonl"), {"type": "new_session", "parentSession": "/path/to/parent-session.jsonl"}),
        (Fork(entry_id="abc123"), {"type": "fork", "entryId": "abc123"}),
        (SwitchSession(session_path="/path/to/session.jsonl"), {"type": "switch_session", "sessionPath": "/path/to/session.jsonl"}),
        (Bash(command="ls", exclude_from_context=False), {"type": "bash", "command": "ls"}),
    ]  # fmt: skip
    for command, expected in examples:
        assert json.loads(encode(command)) == expected, command


def test_unicode_separators_are_not_line_breaks_on_the_wire() -> None:
    data = encode(Prompt(message=f"one{LS}two{PS}three\nfour\r\u0085"))
    assert data.count(b"\n") == 1 and data.endswith(b"\n") and b"\r" not in data
    assert LS.encode() in data or b"\\u2028" in data
    assert json.loads(data)["message"] == f"one{LS}two{PS}three\nfour\r\u0085"
    framer = LineFramer()
    assert framer.feed(data[:7]) == [] and len(framer.feed(data[7:])) == 1


def test_extension_ui_response_shapes() -> None:
    assert json.loads(encode(ExtensionUIResponse(id="uuid-1", value="Allow"))) == {"type": "extension_ui_response", "id": "uuid-1", "value": "Allow"}
    assert json.loads(encode(ExtensionUIResponse(id="uuid-2", confirmed=True))) == {"type": "extension_ui_response", "id": "uuid-2", "confirmed": True}
    assert json.loads(encode(ExtensionUIResponse(id="uuid-2", confirmed=False))) == {"type": "extension_ui_response", "id": "uuid-2", "confirmed": False}
    assert json.loads(encode(ExtensionUIResponse(id="uuid-3", cancelled=True))) == {"type": "extension_ui_response", "id": "uuid-3", "cancelled": True}
    assert json.loads(encode(ExtensionUIResponse(id="u", value=""))) == {"type": "extension_ui_response", "id": "u", "value": ""}
    data = encode(ExtensionUIResponse(id="u", value=f"multi\nline{LS}"))
    assert data.count(b"\n") == 1 and json.loads(data)["value"] == f"multi\nline{LS}"


def test_recorded_commands_match_what_encode_writes() -> None:
    """The stdin logs of the recordings were written by json.dumps; encode() agrees on their shape."""
    mapping = {command_name(cls): cls for cls in ALL_COMMANDS}
    checked = 0
    for path in sorted(Path(STREAMS["commands"]).parent.glob("*.commands.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            cls = mapping.get(obj.get("type"))
            if cls is None:
                continue
            command = msgspec.convert(obj, cls)
            assert json.loads(encode(command)) == obj
            checked += 1
    assert checked > 40
