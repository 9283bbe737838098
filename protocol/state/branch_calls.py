"""The tool calls of a session's current branch, from pi's entries (`get_entries`, or a
session file), each with where it is and its result; a user's `!command` is one too (a
`bash` call at index -1 of its own entry, as pideck's checkpoint extension names it).

pi's tool call ids are the provider's and may repeat (`call_0` on every turn), so a call
is named by where it is (`CallKey`): the entry of the assistant message that holds it and
its block's content index, as pideck's checkpoint extension (app/pi/checkpoints.ts) names
its records. A result answers the oldest call of its id still open; a later assistant
message closes the calls of earlier ones (pi answers every call of a message before the
next one starts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.wire.entries import Entry, MessageEntry
from protocol.wire.messages import AssistantMessage, BashExecutionMessage, ToolCall, ToolResultMessage

USER_BASH = -1  # the index of a `!command`'s call: its entry holds no other

MAX_DEPTH = 1_000_000  # entries followed from the leaf to the root


@dataclass(frozen=True, slots=True)
class CallKey:
    """Where a tool call is: the assistant message's entry id and the call's content index
    (its tool call id alongside, which alone may repeat)."""

    entry_id: str
    index: int
    tool_call_id: str


@dataclass(slots=True)
class BranchCall:
    """A tool call and its result (None: not answered yet)."""

    key: CallKey
    name: str
    args: Any
    result: ToolResultMessage | None = None
    result_entry_id: str = ""
    run_key: str = ""  # the session model's run of it (tool_runs.run_key), when known

    @property
    def tool_call_id(self) -> str:
        return self.key.tool_call_id

    @property
    def done(self) -> bool:
        return self.result is not None

    @property
    def is_error(self) -> bool:
        return self.result is not None and self.result.is_error

    @property
    def details(self) -> Any:
        return self.result.details if self.result is not None else None


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


def branch_calls(path: Sequence[Entry]) -> list[BranchCall]:
    """The tool calls of `path` (a branch, root first) in order, each with its result."""
    calls: list[BranchCall] = []
    open_calls: dict[str, list[BranchCall]] = {}
    for entry in path:
        message = entry.message if isinstance(entry, MessageEntry) else None
        if isinstance(message, AssistantMessage) and isinstance(message.content, list):
            open_calls.clear()
            for index, part in enumerate(message.content):
                if isinstance(part, ToolCall):
                    call = BranchCall(CallKey(entry.id, index, part.id), part.name, part.arguments)
                    calls.append(call)
                    open_calls.setdefault(part.id, []).append(call)
        elif isinstance(message, ToolResultMessage) and (waiting := open_calls.get(message.tool_call_id)):
            answered = waiting.pop(0)
            answered.result, answered.result_entry_id = message, entry.id
        elif isinstance(message, BashExecutionMessage):
            result = ToolResultMessage(tool_name="bash", is_error=message.exit_code not in (0, None))
            calls.append(BranchCall(CallKey(entry.id, USER_BASH, ""), "bash", {"command": message.command}, result, entry.id))
    return calls


def run_call(run: Any) -> BranchCall:
    """A session model's tool run (tool_runs.ToolRun) as a call, where pi's entries cannot
    be read (a JSON stream viewed): named by its order, with no checkpoint to find."""
    result = ToolResultMessage(tool_call_id=run.tool_call_id, tool_name=run.name, content=run.result.content,
                               details=run.result.details, is_error=run.is_error) if run.done and run.result else None
    return BranchCall(CallKey("", run.order, run.tool_call_id), run.name, run.args, result, run_key=run.key)


def with_runs(calls: Sequence[BranchCall], runs: Sequence[Any]) -> None:
    """Give each call the key of its run in the session model (`runs`, in order): the model
    holds the end of the branch (a loaded session, then what pi sent), so the calls of one
    id are matched from the last back."""
    shown: dict[str, list[str]] = {}
    for run in runs:
        if ":" in run.key and not run.key.startswith("run:"):
            shown.setdefault(run.tool_call_id, []).append(run.key)
    for call in reversed(calls):
        keys = shown.get(call.tool_call_id)
        if keys:
            call.run_key = keys.pop()


def unique_ids(entries: Sequence[Entry]) -> frozenset[str]:
    """The tool call ids only one call of the session has, on any branch: a record named by
    its id alone can only be that call's (pideck's checkpoints before they were named by place)."""
    counts: dict[str, int] = {}
    for entry in entries:
        message = entry.message if isinstance(entry, MessageEntry) else None
        if isinstance(message, AssistantMessage) and isinstance(message.content, list):
            for part in message.content:
                if isinstance(part, ToolCall):
                    counts[part.id] = counts.get(part.id, 0) + 1
    return frozenset(call_id for call_id, count in counts.items() if count == 1)
