"""A session's tool runs, each paired with the toolCall block it runs.

pi's tool call ids are the provider's: some servers send `call_0` on every turn, or twice
in one message. So a run is keyed by where its call is, the message and the block's
content index (`run_key`), never by its id alone. A call is open from the moment a
message shows it until its `toolResult` message arrives; pi's tool events (which carry
only the id) go to the oldest open call of that id, and a result answers it. A call of a
later message closes the open calls of earlier ones with the same id: pi answers every
call of a message before the next message starts. Runs pi reports without a call shown
(a call another tool made) are `loose`, keyed by their order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from protocol.wire.messages import ToolResult


@dataclass
class ToolRun:
    tool_call_id: str
    name: str
    args: Any
    started: float
    order: int
    output: str = ""
    result: ToolResult | None = None
    is_error: bool = False
    done: bool = False
    duration_ms: float | None = None
    key: str = ""  # `run_key` of its call, or "run:N" for a run without a call shown

    def elapsed_ms(self, now: float | None = None) -> float | None:
        """How long it ran, or has run so far; None if it ended without saying (a run
        loaded from a session file with no `durationMs`)."""
        if self.duration_ms is not None or self.done:
            return self.duration_ms
        return ((now or time.monotonic()) - self.started) * 1000


def run_key(item_key: int, index: int) -> str:
    """The key of the run of the toolCall block at content `index` of message `item_key`."""
    return f"{item_key}:{index}"


def call_place(key: str) -> tuple[int, int] | None:
    """The message key and content index of a run's call; None for a loose run."""
    item, _, index = key.partition(":")
    return (int(item), int(index)) if item.isdigit() and index.isdigit() else None


class ToolRuns:
    """The runs by key, and which open call each tool event or result is about."""

    def __init__(self) -> None:
        self.runs: dict[str, ToolRun] = {}
        self._open: dict[str, list[str]] = {}  # tool call id -> keys of its calls awaiting a result, oldest first
        self._noted: dict[str, str] = {}  # key -> tool call id, of every call shown
        self._last: dict[str, str] = {}  # tool call id -> key of its latest run (late or repeated events land there)
        self._answered: set[str] = set()  # keys of loose runs whose result message came

    def clear(self) -> None:
        self.runs.clear()
        self._open.clear()
        self._noted.clear()
        self._last.clear()
        self._answered.clear()

    def note(self, item_key: int, index: int, call_id: str) -> str:
        """A message shows a call (streamed or whole): it is open until its result; its key."""
        key = run_key(item_key, index)
        if self._noted.get(key) == call_id:
            return key
        if (before := self._noted.get(key)) is not None and key in self._open.get(before, ()):
            self._open[before].remove(key)
        self._noted[key] = call_id
        keys = [known for known in self._open.get(call_id, ()) if (call_place(known) or (None,))[0] == item_key]
        keys.append(key)
        self._open[call_id] = keys
        return key

    def close(self, key: str) -> None:
        """A call that will get no result (its message was aborted or failed before it ran)."""
        keys = self._open.get(self._noted.get(key, ""))
        if keys and key in keys:
            keys.remove(key)

    def _add(self, key: str, call_id: str, name: str, args: Any, **values: Any) -> ToolRun:
        run = self.runs[key] = ToolRun(call_id, name, args, time.monotonic(), len(self.runs), key=key, **values)
        self._last[call_id] = key
        return run

    def add_call(self, key: str, call_id: str, name: str, args: Any, **values: Any) -> ToolRun:
        """A run for the call at `key` (which has none yet)."""
        return self._add(key, call_id, name, args, **values)

    def start(self, call_id: str, name: str, args: Any) -> ToolRun:
        """pi starts running `call_id`: the run of its oldest open call that has none yet."""
        key = next((key for key in self._open.get(call_id, ()) if key not in self.runs), None)
        if key is None:
            told = self.runs.get(self._last.get(call_id, ""))
            if told is not None and not told.done:
                return told  # a start told twice
            key = f"run:{len(self.runs)}"
        return self._add(key, call_id, name, args)

    def running(self, call_id: str) -> ToolRun | None:
        """The run an update or end of `call_id` is about: its oldest unfinished open run,
        else its latest run (a late or repeated event, which lands where it did before)."""
        for key in self._open.get(call_id, ()):
            run = self.runs.get(key)
            if run is not None and not run.done:
                return run
        return self.runs.get(self._last.get(call_id, ""))

    def answer(self, call_id: str) -> tuple[str | None, ToolRun | None]:
        """A toolResult message of `call_id` arrived: the key of the call it answers (None: a
        call not shown) and its run, if it has one yet."""
        keys = self._open.get(call_id)
        if keys:
            key = keys.pop(0)
            return key, self.runs.get(key)
        last = self._last.get(call_id, "")
        if call_place(last) is None and last in self.runs and last not in self._answered:
            self._answered.add(last)
            return None, self.runs[last]
        return None, None

    def add_answered(self, call_id: str, name: str, args: Any, **values: Any) -> ToolRun:
        """A loose run known only from its result message."""
        key = f"run:{len(self.runs)}"
        self._answered.add(key)
        return self._add(key, call_id, name, args, **values)

    def ordered(self) -> list[ToolRun]:
        return sorted(self.runs.values(), key=lambda run: run.order)
