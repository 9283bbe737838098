"""Messages, content blocks and usage (pi docs/message-types.md)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from protocol.wire.base import AnyBlock, AnyMessage, Number, Record

StopReason = Literal["pending", "stop", "length", "toolUse", "error", "aborted", "deferred"]


class TextContent(Record, AnyBlock, tag_field="type", tag="text"):
    text: str = ""
    text_signature: str | None = None


class ImageContent(Record, AnyBlock, tag_field="type", tag="image"):
    data: str = ""
    mime_type: str = "image/png"


class ThinkingContent(Record, AnyBlock, tag_field="type", tag="thinking"):
    thinking: str = ""
    thinking_signature: str | None = None
    redacted: bool = False


class ToolCall(Record, AnyBlock, tag_field="type", tag="toolCall"):
    id: str = ""
    name: str = ""
    arguments: dict[str, Any] = {}
    thought_signature: str | None = None
    namespace: str | None = None


BlockUnion = TextContent | ImageContent | ThinkingContent | ToolCall


class Cost(Record):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0
    total_from_provider: bool | None = None  # True: `total` is the provider's billed cost


class Usage(Record):
    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    # rename="camel" alone would make this "cacheWrite1H"
    cache_write1h: Number | None = msgspec.field(default=None, name="cacheWrite1h")
    reasoning: Number | None = None
    total_tokens: Number = 0
    cost: Cost = msgspec.field(default_factory=Cost)


class SystemMessage(Record, AnyMessage, tag_field="role", tag="system"):
    content: str | list[AnyBlock] = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[dict[str, Any]] | None = None
    tools_removed: list[dict[str, Any]] | None = None
    timestamp: Number = 0


class UserMessage(Record, AnyMessage, tag_field="role", tag="user"):
    content: str | list[AnyBlock] = ""
    timestamp: Number = 0


class AssistantMessage(Record, AnyMessage, tag_field="role", tag="assistant"):
    content: list[AnyBlock] = []
    api: str = ""
    provider: str = ""
    model: str = ""
    response_model: str | None = None
    response_id: str | None = None
    provider_thinking_level: str | None = None
    thinking_level: str | None = None
    diagnostics: list[Any] | None = None
    usage: Usage = msgspec.field(default_factory=Usage)
    stop_reason: str = "stop"
    deferred: dict[str, Any] | None = None  # DeferredHandle when stop_reason == "deferred"
    error_message: str | None = None
    raw_stop_reason: str | None = None
    end_turn: bool | None = None
    timestamp: Number = 0
    duration_ms: float | None = None


class ToolResultMessage(Record, AnyMessage, tag_field="role", tag="toolResult"):
    tool_call_id: str = ""
    tool_name: str = ""
    content: list[AnyBlock] = []
    details: Any = None
    usage: Usage | None = None
    nested_calls: Any = None  # NestedToolCalls: {calls: [...], complete: bool}
    is_error: bool = False
    duration_ms: float | None = None
    timestamp: Number = 0


class BashExecutionMessage(Record, AnyMessage, tag_field="role", tag="bashExecution"):
    command: str = ""
    output: str = ""
    exit_code: Number | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool = False
    timestamp: Number = 0


class CustomMessage(Record, AnyMessage, tag_field="role", tag="custom"):
    custom_type: str = ""
    content: str | list[AnyBlock] = ""
    display: bool = True
    details: Any = None
    timestamp: Number = 0


class BranchSummaryMessage(Record, AnyMessage, tag_field="role", tag="branchSummary"):
    summary: str = ""
    from_id: str | None = None
    timestamp: Number = 0


class CompactionSummaryMessage(Record, AnyMessage, tag_field="role", tag="compactionSummary"):
    summary: str = ""
    tokens_before: Number = 0
    timestamp: Number = 0


MessageUnion = (
    SystemMessage
    | UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
)


class ToolResult(Record):
    """A tool's (partial) result in tool_execution_update/end."""

    content: list[AnyBlock] = []
    details: Any = None
    structured_content: Any = None
    usage: Usage | None = None


def text_of(content: str | list[Any]) -> str:
    """The plain text of a content value (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))
