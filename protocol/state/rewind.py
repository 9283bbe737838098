"""`/rewind`'s points: the user messages of the session's current branch, each with the
file-changing tool calls (edit, write, bash) made after it on that branch (from pi's
`get_entries`), so the files they changed can be put back as they were before the message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.state.branch_calls import BranchCall, branch, branch_calls
from protocol.wire.entries import Entry
from protocol.wire.responses import ForkMessage

FILE_TOOLS = ("edit", "write", "bash")


@dataclass(frozen=True, slots=True)
class Point:
    entry_id: str
    text: str
    calls: tuple[BranchCall, ...]  # the edits, writes and bash commands after it, in order


def rewind_points(entries: Sequence[Entry], leaf_id: str | None, messages: Sequence[ForkMessage]) -> list[Point]:
    """The fork messages on the current branch, in its order, each with the successful
    edits and writes and the bash commands after it (a failed command may have changed files)."""
    texts = {message.entry_id: message.text for message in messages}
    path = branch(entries, leaf_id)
    at = {entry.id: position for position, entry in enumerate(path)}
    calls = [(at[call.key.entry_id], call) for call in branch_calls(path)
             if call.name in FILE_TOOLS and call.done and (not call.is_error or call.name == "bash")]
    return [Point(entry.id, texts[entry.id], tuple(call for position, call in calls if position > at[entry.id]))
            for entry in path if entry.id in texts]
