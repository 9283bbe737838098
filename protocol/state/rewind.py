"""`/rewind`'s points: the user messages of the session's current branch, each with the
file-changing tool calls (edit, write, bash) made after it on that branch (from pi's `get_entries`), so the
files they changed can be put back as they were before the message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.wire.entries import Entry, MessageEntry
from protocol.wire.messages import ToolResultMessage
from protocol.wire.responses import ForkMessage

FILE_TOOLS = ("edit", "write", "bash")
MAX_DEPTH = 1_000_000  # entries followed from the leaf to the root


@dataclass(frozen=True, slots=True)
class Point:
    entry_id: str
    text: str
    calls: tuple[str, ...]  # the tool call ids of the edits, writes and bash commands after it, in order


def branch(entries: Sequence[Entry], leaf_id: str | None) -> list[Entry]:
    """The entries from the root to `leaf_id` (the current branch), in order."""
    by_id = {entry.id: entry for entry in entries if entry.id}
    path: list[Entry] = []
    seen: set[str] = set()
    at = by_id.get(leaf_id or "")
    while at is not None and at.id not in seen and len(path) < MAX_DEPTH:
        seen.add(at.id)
        path.append(at)
        at = by_id.get(at.parent_id or "")
    path.reverse()
    return path


def rewind_points(entries: Sequence[Entry], leaf_id: str | None, messages: Sequence[ForkMessage]) -> list[Point]:
    """The fork messages on the current branch, in its order, each with the successful
    edits and writes and the bash commands after it."""
    texts = {message.entry_id: message.text for message in messages}
    path = branch(entries, leaf_id)
    calls: list[str] = []
    starts: list[tuple[str, int]] = []  # a point's entry id and how many calls came before it
    for entry in path:
        if entry.id in texts:
            starts.append((entry.id, len(calls)))
        message = entry.message if isinstance(entry, MessageEntry) else None
        if (isinstance(message, ToolResultMessage) and message.tool_name in FILE_TOOLS and message.tool_call_id
                and (not message.is_error or message.tool_name == "bash")):  # a failed command may have changed files
            calls.append(message.tool_call_id)
    return [Point(entry_id, texts[entry_id], tuple(calls[before:])) for entry_id, before in starts]
