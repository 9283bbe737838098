"""The response envelope and the typed `data` of each command that documents one."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.wire.base import AnyEntry, AnyMessage, Number, Record
from protocol.wire.entries import TreeNode
from protocol.wire.events import CompactionResult


class Response(Record, tag_field="type", tag="response"):
    """`data` holds the typed payload for `command` (see `DATA_TYPES`), a plain value when
    the command has no typed payload, or None. `data_error` says why typing failed, if it did."""

    command: str = ""
    success: bool = False
    id: str | None = None
    error: str | None = None
    data: Any = None
    data_error: str | None = None


class ModelCost(Record):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(Record):
    id: str = ""
    name: str = ""
    api: str = ""
    provider: str = ""
    base_url: str = ""
    reasoning: bool = False
    input: list[str] = []
    context_window: Number = 0
    max_tokens: Number = 0
    cost: ModelCost = msgspec.field(default_factory=ModelCost)
    compat: Any = None  # provider-specific compatibility flags, e.g. {"supportsUsageInStreaming": true}


class SessionState(Record):
    model: Model | None = None
    thinking_level: str = "off"
    is_streaming: bool = False
    is_compacting: bool = False
    steering_mode: str = "one-at-a-time"
    follow_up_mode: str = "one-at-a-time"
    session_file: str | None = None
    session_id: str = ""
    session_name: str | None = None
    auto_compaction_enabled: bool = True
    message_count: Number = 0
    pending_message_count: Number = 0


class TokenTotals(Record):
    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    total: Number = 0


class ContextUsage(Record):
    tokens: Number | None = None
    context_window: Number = 0
    percent: float | None = None


class SessionStats(Record):
    session_file: str | None = None
    session_id: str = ""
    user_messages: Number = 0
    assistant_messages: Number = 0
    tool_calls: Number = 0
    tool_results: Number = 0
    total_messages: Number = 0
    tokens: TokenTotals = msgspec.field(default_factory=TokenTotals)
    cost: float = 0.0
    context_usage: ContextUsage | None = None


class Disposition(Record):
    """prompt/steer/follow_up: "started", "queued" or "handled"."""

    disposition: str = ""


class QueueContents(Record):
    """clear_queue: the removed steering and follow-up texts."""

    steering: list[str] = []
    follow_up: list[str] = []


class Cancellable(Record):
    """new_session, switch_session, clone."""

    cancelled: bool = False


class ForkResult(Record):
    text: str | None = None
    cancelled: bool = False


class CycleModelResult(Record):
    model: Model = msgspec.field(default_factory=Model)
    thinking_level: str = "off"
    is_scoped: bool = False


class ThinkingLevelResult(Record):
    level: str = ""


class ModelList(Record):
    models: list[Model] = []


class ThinkingLevels(Record):
    levels: list[str] = []


class SourceInfo(Record):
    path: str = ""
    source: str = ""
    scope: str = ""
    origin: str = ""
    base_dir: str | None = None


class CommandInfo(Record):
    name: str = ""
    description: str | None = None
    source: str = ""
    source_info: SourceInfo | None = None


class CommandList(Record):
    commands: list[CommandInfo] = []


class MessageList(Record):
    messages: list[AnyMessage] = []


class EntryList(Record):
    entries: list[AnyEntry] = []
    leaf_id: str | None = None


class Tree(Record):
    tree: list[TreeNode] = []
    leaf_id: str | None = None


class ForkMessage(Record):
    entry_id: str = ""
    text: str = ""


class ForkMessages(Record):
    messages: list[ForkMessage] = []


class BashResult(Record):
    output: str = ""
    exit_code: Number | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None


class ExportResult(Record):
    path: str = ""


class LastAssistantText(Record):
    text: str | None = None


# command name -> type of `data` on success. A success without data is an error, except for
# the commands in OPTIONAL_DATA (cycle_* answer null when there is one option only).
DATA_TYPES: dict[str, Any] = {
    "prompt": Disposition,
    "steer": Disposition,
    "follow_up": Disposition,
    "clear_queue": QueueContents,
    "new_session": Cancellable,
    "get_state": SessionState,
    "get_messages": MessageList,
    "set_model": Model,
    "cycle_model": CycleModelResult,
    "get_available_models": ModelList,
    "cycle_thinking_level": ThinkingLevelResult,
    "get_available_thinking_levels": ThinkingLevels,
    "compact": CompactionResult,
    "bash": BashResult,
    "get_session_stats": SessionStats,
    "export_html": ExportResult,
    "switch_session": Cancellable,
    "fork": ForkResult,
    "clone": Cancellable,
    "get_fork_messages": ForkMessages,
    "get_entries": EntryList,
    "get_tree": Tree,
    "get_last_assistant_text": LastAssistantText,
    "get_commands": CommandList,
}
OPTIONAL_DATA: frozenset[str] = frozenset({"cycle_model", "cycle_thinking_level"})
