"""Session entries and the session tree (pi docs/session-format.md).

Entry timestamps are ISO 8601 strings; the nested message timestamps are Unix ms.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.wire.base import AnyBlock, AnyEntry, AnyMessage, Number, Record
from protocol.wire.messages import Usage


class SessionHeader(Record, tag_field="type", tag="session"):
    """First line of a session file; not part of the tree."""

    id: str = ""
    version: Number = 1
    timestamp: str = ""
    cwd: str = ""
    parent_session: str | None = None


class Entry(Record, AnyEntry, tag_field="type"):
    id: str = ""
    parent_id: str | None = None
    timestamp: str = ""


class MessageEntry(Entry, tag="message"):
    message: AnyMessage | None = None


class ModelChangeEntry(Entry, tag="model_change"):
    provider: str = ""
    model_id: str = ""


class ThinkingLevelChangeEntry(Entry, tag="thinking_level_change"):
    thinking_level: str = ""


class UsageEntry(Entry, tag="usage"):
    kind: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = msgspec.field(default_factory=Usage)


class CompactionEntry(Entry, tag="compaction"):
    summary: str = ""
    first_kept_entry_id: str = ""
    tokens_before: Number = 0
    system_message: AnyMessage | None = None
    usage: Usage | None = None
    details: Any = None
    from_hook: bool | None = None


class ContextEditEntry(Entry, tag="context_edit"):
    target_id: str = ""
    replacement: Any = None


class BranchSummaryEntry(Entry, tag="branch_summary"):
    from_id: str | None = None
    summary: str = ""
    usage: Usage | None = None
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(Entry, tag="custom"):
    custom_type: str = ""
    data: Any = None


class CustomMessageEntry(Entry, tag="custom_message"):
    custom_type: str = ""
    content: str | list[AnyBlock] = ""
    display: bool = True
    details: Any = None


class LabelEntry(Entry, tag="label"):
    target_id: str = ""
    label: str | None = None


class SessionInfoEntry(Entry, tag="session_info"):
    name: str | None = None


EntryUnion = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | UsageEntry
    | CompactionEntry
    | ContextEditEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
)


class TreeNode(Record):
    entry: AnyEntry
    children: list[TreeNode] = []
    label: str | None = None
    label_timestamp: str | None = None
