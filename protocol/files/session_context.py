"""The messages of a session file's active branch, as pi builds them when it opens the file.

pi 1.6.0's `buildSessionContext` (core/session-manager): the leaf is the last entry; the
branch is its chain of `parentId`s up to a root. After the branch's latest compaction only
its summary stands for what came before `firstKeptEntryId`; `branch_summary` and
`custom_message` entries become messages of their own, and a `context_edit` replaces the
content of the entry it targets (null: leaves it out). This is what pi's `get_messages`
answers after `--session FILE`, so a viewed file shows as `/resume` shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from protocol.wire.base import UnknownMessage
from protocol.wire.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from protocol.wire.messages import (
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)


def branch_ids(parents: Mapping[str, str | None], leaf: str | None) -> list[str]:
    """The ids from the root down to `leaf`, following `parents` (id -> parentId); a cycle
    or a missing parent ends the chain, as a missing parent does in pi."""
    path: list[str] = []
    seen: set[str] = set()
    current = leaf
    while current is not None and current in parents and current not in seen:
        seen.add(current)
        path.append(current)
        current = parents[current]
    path.reverse()
    return path


def branch_messages(path: Sequence[Any]) -> list[Any]:
    """The messages pi's context holds for the entries of one branch, root first."""
    compaction_at = max((i for i, entry in enumerate(path) if isinstance(entry, CompactionEntry)), default=-1)
    entries = list(path)
    if compaction_at >= 0:
        compaction = path[compaction_at]
        kept: list[Any] = [compaction]
        found = False
        for entry in path[:compaction_at]:
            found = found or entry.id == compaction.first_kept_entry_id
            if found and not (isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)):
                kept.append(entry)
        entries = [*kept, *path[compaction_at + 1 :]]
    edits = {entry.target_id: entry for entry in entries if isinstance(entry, ContextEditEntry)}
    messages: list[Any] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, CompactionEntry) and index > 0:
            continue  # an earlier compaction kept after the latest one stands for nothing
        messages.extend(_edited(_messages_of(entry), edits.get(entry.id)))
    return messages


def branch_settings(path: Sequence[Any]) -> tuple[str | None, str | None, str | None]:
    """(provider, model id, thinking level) in force at the end of the branch, as pi reads them."""
    provider = model = thinking = None
    for entry in path:
        if isinstance(entry, ThinkingLevelChangeEntry):
            thinking = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            provider, model = entry.provider, entry.model_id
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            provider, model = entry.message.provider, entry.message.model
    return provider, model, thinking


def session_name(entries: Sequence[Any]) -> str | None:
    """The name the latest `session_info` entry gives (None when cleared or never set)."""
    for entry in reversed(entries):
        if isinstance(entry, SessionInfoEntry):
            return (entry.name or "").strip() or None
    return None


def _messages_of(entry: Any) -> list[Any]:
    if isinstance(entry, MessageEntry):
        return [entry.message] if entry.message is not None else []
    if isinstance(entry, CustomMessageEntry):
        return [CustomMessage(custom_type=entry.custom_type, content=entry.content, display=entry.display,
                              details=entry.details, timestamp=_millis(entry.timestamp))]
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return [BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id, timestamp=_millis(entry.timestamp))]
    if isinstance(entry, CompactionEntry):
        summary = CompactionSummaryMessage(summary=entry.summary, tokens_before=entry.tokens_before,
                                           timestamp=_millis(entry.timestamp))
        return [entry.system_message, summary] if entry.system_message is not None else [summary]
    return []


def _edited(messages: list[Any], edit: ContextEditEntry | None) -> list[Any]:
    """A context edit's replacement content on user, assistant, tool result and custom messages."""
    if edit is None:
        return messages
    replacement = edit.replacement
    if replacement is None:
        return []
    content = replacement.get("content") if isinstance(replacement, dict) else None
    if content is None:
        return messages
    out: list[Any] = []
    for message in messages:
        if isinstance(message, (AssistantMessage, ToolResultMessage)) and isinstance(content, str):
            out.append(_replace(message, [TextContent(text=content)]))
        elif isinstance(message, (UserMessage, CustomMessage)) and isinstance(content, str):
            out.append(_replace(message, content))
        else:
            out.append(message)  # a block list pideck would have to decode again: kept as it was
    return out


def _replace(message: Any, content: Any) -> Any:
    return msgspec.structs.replace(message, content=content)


def _millis(stamp: str) -> int:
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0


def session_file_lines(header: SessionHeader, messages: Sequence[Any]) -> list[bytes]:
    """A session file holding `messages` as one branch (for pi's `--export` of a run that has
    no session file of its own, a JSON-mode one)."""
    lines = [msgspec.json.encode(header)]
    parent: str | None = None
    for number, message in enumerate(messages):
        entry_id = f"{number:08x}"
        body = message.raw if isinstance(message, UnknownMessage) else message
        lines.append(msgspec.json.encode({"type": "message", "id": entry_id, "parentId": parent,
                                          "timestamp": header.timestamp, "message": body}))
        parent = entry_id
    return lines
