"""Session events on stdout (pi docs/json.md), including the RPC-only ones."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.wire.base import AnyEntry, AnyMessage, Number, Record
from protocol.wire.messages import ToolCall, ToolResult, Usage


class Event(Record, tag_field="type"):
    pass


# --- assistantMessageEvent kinds inside message_update (all 12) ---------------------------


class AssistantEvent(Record, tag_field="type"):
    content_index: int = 0


class StreamStart(AssistantEvent, tag="start"):
    pass


class TextStart(AssistantEvent, tag="text_start"):
    pass


class TextDelta(AssistantEvent, tag="text_delta"):
    delta: str = ""


class TextEnd(AssistantEvent, tag="text_end"):
    content: str = ""


class ThinkingStart(AssistantEvent, tag="thinking_start"):
    pass


class ThinkingDelta(AssistantEvent, tag="thinking_delta"):
    delta: str = ""


class ThinkingEnd(AssistantEvent, tag="thinking_end"):
    content: str = ""


class ToolCallStart(AssistantEvent, tag="toolcall_start"):
    id: str = ""
    tool_name: str = ""


class ToolCallDelta(AssistantEvent, tag="toolcall_delta"):
    delta: str = ""


class ToolCallEnd(AssistantEvent, tag="toolcall_end"):
    tool_call: ToolCall = msgspec.field(default_factory=ToolCall)


class StreamDone(AssistantEvent, tag="done"):
    reason: str = ""
    message: AnyMessage | None = None


class StreamError(AssistantEvent, tag="error"):
    reason: str = ""
    error: Any = None


class UnknownAssistantEvent(Record):
    """An assistantMessageEvent kind pideck does not know; `raw` keeps it."""

    raw: dict[str, Any]
    content_index: int = -1


AssistantEventUnion = (
    StreamStart
    | TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | StreamDone
    | StreamError
)


# --- agent and turn -----------------------------------------------------------------------


class AgentStart(Event, tag="agent_start"):
    pass


class AgentEnd(Event, tag="agent_end"):
    messages: list[AnyMessage] = []
    will_retry: bool = False


class AgentSettled(Event, tag="agent_settled"):
    aborted: bool = False


class TurnStart(Event, tag="turn_start"):
    pass


class TurnEnd(Event, tag="turn_end"):
    message: AnyMessage | None = None
    tool_results: list[AnyMessage] = []


# --- messages -----------------------------------------------------------------------------


class MessageStart(Event, tag="message_start"):
    message: AnyMessage


class MessageUpdate(Event, tag="message_update"):
    """Delta-only streaming update. A kind pideck does not know arrives as UnknownAssistantEvent
    (built by `codec.decode`'s fallback, which msgspec's tagged union cannot express)."""

    assistant_message_event: AssistantEventUnion
    usage: Usage | None = None


class MessageEnd(Event, tag="message_end"):
    message: AnyMessage


# --- tools --------------------------------------------------------------------------------


class ToolExecutionStart(Event, tag="tool_execution_start"):
    tool_call_id: str
    tool_name: str = ""
    args: Any = None
    parent_tool_call_id: str | None = None  # set for calls a tool made through ctx.executeTool()


class ToolExecutionUpdate(Event, tag="tool_execution_update"):
    tool_call_id: str
    tool_name: str = ""
    args: Any = None
    partial_result: ToolResult = msgspec.field(default_factory=ToolResult)
    parent_tool_call_id: str | None = None


class ToolExecutionEnd(Event, tag="tool_execution_end"):
    tool_call_id: str
    tool_name: str = ""
    result: ToolResult = msgspec.field(default_factory=ToolResult)
    is_error: bool = False
    duration_ms: float | None = None
    parent_tool_call_id: str | None = None


# --- queue and state ----------------------------------------------------------------------


class QueueUpdate(Event, tag="queue_update"):
    steering: list[str] = []
    follow_up: list[str] = []


class EntryAppended(Event, tag="entry_appended"):
    entry: AnyEntry


class SessionInfoChanged(Event, tag="session_info_changed"):
    name: str | None = None


class ThinkingLevelChanged(Event, tag="thinking_level_changed"):
    level: str = ""


# --- compaction and retry -----------------------------------------------------------------


class CompactionResult(Record):
    summary: str = ""
    first_kept_entry_id: str = ""
    tokens_before: Number = 0
    estimated_tokens_after: Number | None = None
    usage: Usage | None = None
    details: Any = None


class CompactionStart(Event, tag="compaction_start"):
    reason: str = ""


class CompactionEnd(Event, tag="compaction_end"):
    reason: str = ""
    result: CompactionResult | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None


class AutoRetryStart(Event, tag="auto_retry_start"):
    attempt: Number = 0
    max_attempts: Number = 0
    delay_ms: Number = 0
    error_message: str = ""


class AutoRetryEnd(Event, tag="auto_retry_end"):
    success: bool = False
    attempt: Number = 0
    final_error: str | None = None


class SummarizationRetryScheduled(Event, tag="summarization_retry_scheduled"):
    attempt: Number = 0
    max_attempts: Number = 0
    delay_ms: Number = 0
    error_message: str = ""


class SummarizationRetryAttemptStart(Event, tag="summarization_retry_attempt_start"):
    source: str = ""
    reason: str | None = None


class SummarizationRetryFinished(Event, tag="summarization_retry_finished"):
    pass


# --- RPC-only -----------------------------------------------------------------------------


class BashExecutionUpdate(Event, tag="bash_execution_update"):
    delta: str = ""
    id: str | None = None


class ExtensionError(Event, tag="extension_error"):
    extension_path: str = ""
    event: str = ""
    error: str = ""


EventUnion = (
    AgentStart
    | AgentEnd
    | AgentSettled
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | QueueUpdate
    | EntryAppended
    | SessionInfoChanged
    | ThinkingLevelChanged
    | CompactionStart
    | CompactionEnd
    | AutoRetryStart
    | AutoRetryEnd
    | SummarizationRetryScheduled
    | SummarizationRetryAttemptStart
    | SummarizationRetryFinished
    | BashExecutionUpdate
    | ExtensionError
)
