"""The session model: a pure reducer from protocol records to what the screen shows.

`SessionModel.apply(record)` folds one record into the state and notes what changed
in `changes`; the UI applies a batch of records per frame, then calls
`take_changes()` and updates only what the `Changes` name. No Textual here. Every
record pi sends passes here, the ones the app must act on too: what it must do (show an
extension dialog, decline a request, refresh the stats after a run, tell that pi exited)
comes out in `Changes` as data. pi's life cycle (`life`, protocol/state/life_cycle.py)
is model state as well.

Streaming rules (pi docs/json.md): `message_update` carries deltas only, routed by
`contentIndex` (block order is not guaranteed); `*_end` replaces its block;
`message_end` replaces the whole message. `running` lasts from `agent_start`
until `agent_settled`, not `agent_end`.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from protocol.wire.base import UnknownBlock, UnknownMessage
from protocol.wire.client import ChildExited
from protocol.wire.codec import ProtocolError, Unknown
from protocol.wire.collector import collector_paused
from protocol.state.life_cycle import Crash, LifeCycle
from protocol.wire.events import (
    AgentEnd,
    AgentSettled,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    BashExecutionUpdate,
    CompactionEnd,
    CompactionResult,
    CompactionStart,
    EntryAppended,
    ExtensionError,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    QueueUpdate,
    SessionInfoChanged,
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
    TurnStart,
    UnknownAssistantEvent,
)
from protocol.wire.extension_ui import (
    DIALOG_REQUESTS,
    CaughtUp,
    DialogAnswered,
    DialogRequest,
    NotifyRequest,
    RefusedDialogRequest,
    SetEditorTextRequest,
    SetStatusRequest,
    SetTitleRequest,
    SetWidgetRequest,
    UnknownUIRequest,
)
from protocol.state.formatting import tokens
from protocol.state.tool_runs import ToolRun, ToolRuns, call_place, run_key
from protocol.state.joined_text import CleanedText, JoinedText
from protocol.wire.messages import (
    AssistantMessage,
    BashExecutionMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    text_of,
)
from protocol.wire.responses import BashResult, SessionState, SessionStats

# --- state pieces ---------------------------------------------------------------------------


class Block:
    """One content block of a message: kind is text, thinking, toolCall, image or unknown.
    Streamed text is joined when read (`JoinedText`). A `cleaned` block (the text and
    thinking of every message but tool results and `!command` output, which keep their
    colours for the view to read) holds its text cleaned of control sequences, however
    the deltas cut them (`CleanedText`): cleaned once, here."""

    __slots__ = ("_text", "done", "kind", "raw", "tool_call")

    def __init__(
        self, kind: str, text: str = "", tool_call: ToolCall | None = None, done: bool = False, raw: Any = None,
        *, cleaned: bool = False,
    ) -> None:
        self.kind, self._text = kind, CleanedText(text) if cleaned else JoinedText(text)
        self.tool_call, self.done, self.raw = tool_call, done, raw

    @property
    def text(self) -> str:
        return str(self._text)

    @text.setter
    def text(self, value: str) -> None:
        self._text = type(self._text)(value)

    def append(self, delta: str) -> str:
        """Add a delta; returns what it adds to the text (for a cleaned block: cleaned)."""
        return self._text.append(delta)

    def finish(self, text: str) -> bool:
        """The block's final text (a `*_end` record's): True if it is not what streamed."""
        final = type(self._text)(text)
        changed = str(final) != self.text
        self._text = final
        return changed

    def _key(self) -> tuple[Any, ...]:
        return (self.kind, self.text, self.tool_call, self.done, self.raw)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Block) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Block(kind={self.kind!r}, text={self.text!r}, tool_call={self.tool_call!r}, done={self.done!r})"


@dataclass
class MessageItem:
    """A transcript message. `blocks` is keyed by contentIndex; `message` is the latest
    authoritative record (message_start's until message_end replaces it)."""

    key: int
    role: str
    message: Any
    blocks: dict[int, Block] = field(default_factory=dict)
    streaming: bool = False
    usage: Usage | None = None

    def ordered_blocks(self) -> list[tuple[int, Block]]:
        return sorted(self.blocks.items())


@dataclass
class Banner:
    """A notice in the transcript: retry, compaction, extension or protocol error."""

    key: int
    kind: str
    title: str
    detail: str = ""
    outcome: str = ""
    active: bool = True


@dataclass
class Widget:
    lines: list[str]
    placement: str


@dataclass
class Totals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def add(self, usage: Usage) -> None:
        self.input += usage.input
        self.output += usage.output
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        self.cost += usage.cost.total


@dataclass
class Changes:
    """What changed since the last `take_changes()`.

    `appended[(key, index)]` lists text deltas for a block that the view already shows;
    blocks of items in `added` or in `replaced` must be rendered whole instead.
    """

    added: list[int] = field(default_factory=list)
    appended: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    replaced: set[tuple[int, int]] = field(default_factory=set)
    items: set[int] = field(default_factory=set)
    tools: list[str] = field(default_factory=list)
    queue: bool = False
    run: bool = False
    usage: bool = False
    session: bool = False
    extension_ui: bool = False
    reset: bool = False
    editor_text: str | None = None
    title: str | None = None
    notifications: list[tuple[str, str]] = field(default_factory=list)
    protocol_errors: int = 0
    status: bool = False  # `life` changed: the status line and the crash bar
    dialogs: list[DialogRequest] = field(default_factory=list)  # extension dialogs to show, in order
    answered: list[str] = field(default_factory=list)  # ids of dialogs another window answered (a held pi)
    caught_up: bool = False  # drawn again from a held pi's cut: the dialogs shown go (the cut asks them again)
    declines: list[UnknownUIRequest | RefusedDialogRequest] = field(default_factory=list)  # to answer "cancelled"
    settled: AgentSettled | None = None  # a run ended (pi's record, not a crash)
    stats_stale: bool = False  # ask pi for the stats and state again
    exited: ChildExited | None = None  # pi exited

    def __bool__(self) -> bool:
        return bool(
            self.added or self.appended or self.replaced or self.items or self.tools or self.queue
            or self.run or self.usage or self.session or self.extension_ui or self.reset
            or self.editor_text is not None or self.title is not None or self.notifications
            or self.protocol_errors or self.status or self.dialogs or self.answered or self.caught_up or self.declines
            or self.settled is not None or self.stats_stale or self.exited is not None
        )  # fmt: skip


_BLOCK_KIND = {TextContent: "text", ThinkingContent: "thinking", ToolCall: "toolCall", ImageContent: "image"}


def blocks_from_content(content: Any, cleaned: bool = True) -> dict[int, Block]:
    """Blocks for a complete message's content (a string or a list of content blocks);
    `cleaned`: text and thinking blocks are cleaned (`Block`)."""
    if isinstance(content, str):
        return {0: Block("text", content, done=True, cleaned=cleaned)} if content else {}
    blocks: dict[int, Block] = {}
    for index, part in enumerate(content or ()):
        kind = _BLOCK_KIND.get(type(part), "unknown")
        if kind == "text":
            blocks[index] = Block(kind, part.text, done=True, cleaned=cleaned)
        elif kind == "thinking":
            blocks[index] = Block(kind, part.thinking, done=True, cleaned=cleaned)
        elif kind == "toolCall":
            blocks[index] = Block(kind, "", tool_call=part, done=True)
        else:
            blocks[index] = Block(kind, "", done=True, raw=part.raw if isinstance(part, UnknownBlock) else part)
    return blocks


CANCELLED_RETRY = "Retry cancelled"  # pi's final error of a retry stopped while it waited


def blocks_of(message: Any) -> dict[int, Block]:
    """Blocks for a message: its content, or the summary of a summary-role message."""
    summary = getattr(message, "summary", None)
    if isinstance(summary, str):
        return {0: Block("text", summary, done=True, cleaned=True)}
    if isinstance(message, UnknownMessage):
        return _unknown_message_blocks(message.raw.get("content"))
    if isinstance(message, BashExecutionMessage):  # a `!command` loaded from the session: its output
        return {0: Block("text", message.output, done=True)}
    return blocks_from_content(getattr(message, "content", None), cleaned=not isinstance(message, ToolResultMessage))


def _same_text(streamed: Block | None, final: Block) -> bool:
    """A text or thinking block whose final text is what streamed: its view shows it already
    (comparing is cheap; cleaning and rendering a long reply again is not)."""
    return (
        streamed is not None and streamed.kind == final.kind and final.kind in ("text", "thinking")
        and streamed.text == final.text
    )


def _unknown_message_blocks(content: Any) -> dict[int, Block]:
    """A message of an unknown role still shows its text (a string, or blocks with a `text`)."""
    if isinstance(content, str):
        return {0: Block("text", content, done=True, cleaned=True)} if content else {}
    blocks: dict[int, Block] = {}
    for index, part in enumerate(content if isinstance(content, list) else ()):
        text = part.get("text") if isinstance(part, dict) else None
        blocks[index] = Block("text", text, done=True, cleaned=True) if isinstance(text, str) else Block("unknown", done=True, raw=part)
    return blocks


def _result_text(result: ToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


class SessionModel:
    def __init__(self) -> None:
        self.items: list[MessageItem | Banner] = []
        self._by_key: dict[int, MessageItem | Banner] = {}
        self._next_key = 0
        self._open: MessageItem | None = None
        self._runs = ToolRuns()
        self.tools: dict[str, ToolRun] = self._runs.runs  # by run key (tool_runs.run_key)
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.running = False
        # A prompt was sent that starts a run whose agent_start is not read yet: pi runs it from
        # its answer on, and refuses another prompt without a streamingBehavior meanwhile.
        self.run_asked = False
        self.turns = 0  # turns of the current run (agent_start after agent_settled starts one)
        self.will_retry = False
        self.retry: Banner | None = None
        self.compaction: Banner | None = None
        self.totals = Totals()
        self.state: SessionState | None = None
        self.cwd = ""  # pi's working directory, that tool paths are shown relative to (set by the App)
        self.stats: SessionStats | None = None
        self.auto_retry: bool | None = None  # get_state does not report it: known once pideck set it
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, Widget] = {}
        self.title: str | None = None
        self.protocol_errors = 0
        self.unknown_records = 0
        self.odd_records = 0  # readable but out of place: a duplicate message_end, a delta after its block ended
        self._bash: dict[str, MessageItem] = {}
        self._bash_ended: dict[str, None] = {}  # recent ended `!command` ids: their late updates are dropped
        self._in_call: set[int] = set()  # keys of the toolResult messages shown inside their call
        self.image_names: dict[str, str] = {}  # images.image_key -> file name, for images pideck sent
        self.life = LifeCycle()
        self.changes = Changes()
        self._told = (False, LifeCycle())  # the run and pi's life as last taken (take_urgent)

    # --- bookkeeping ----------------------------------------------------------------------

    def take_changes(self) -> Changes:
        self._told = (self.running, replace(self.life))
        changes, self.changes = self.changes, Changes()
        return changes

    def take_urgent(self) -> Changes:
        """What cannot wait for a session not shown to be drawn (dialogs, requests to decline,
        a run's end, stats to read, pi's exit, notifications); the rest stays in `changes`.
        `run` and `status` say the run or pi's life changed since last told; both are kept
        for the session's screen to draw when shown."""
        pending = self.changes
        urgent = Changes(
            dialogs=pending.dialogs, answered=pending.answered, declines=pending.declines, settled=pending.settled,
            stats_stale=pending.stats_stale, exited=pending.exited, notifications=pending.notifications,
            run=self.running != self._told[0], status=pending.status and self.life != self._told[1],
        )  # fmt: skip
        self._told = (self.running, replace(self.life))
        pending.dialogs, pending.answered, pending.declines, pending.notifications = [], [], [], []
        pending.settled, pending.stats_stale, pending.exited = None, False, None
        return urgent

    def item(self, key: int) -> MessageItem | Banner | None:
        return self._by_key.get(key)

    def shown_in_call(self, item: MessageItem) -> bool:
        """A toolResult message whose result shows inside its call's block."""
        return item.key in self._in_call

    def _call(self, key: str) -> ToolCall | None:
        """The call of a run's key (None: a run without a call shown)."""
        place = call_place(key)
        item = self._by_key.get(place[0]) if place is not None else None
        block = item.blocks.get(place[1]) if isinstance(item, MessageItem) and place is not None else None
        return block.tool_call if block is not None else None

    @property
    def busy(self) -> bool:
        """pi is running a prompt, or about to (a message sent now is a steer or a follow-up)."""
        return self.running or self.run_asked

    def prompt_sent(self) -> None:
        """A prompt that starts a run was sent (pi not busy): busy from now on."""
        self.run_asked = True

    def prompt_answered(self, disposition: str | None) -> None:
        """pi's answer to a prompt sent while it was not busy: only "started" starts a run
        (an extension's command is "handled"; None: refused or unread)."""
        if disposition != "started":
            self.run_asked = False

    @property
    def bash_running(self) -> bool:
        """A user `!command` is running (begun, not yet ended)."""
        return bool(self._bash)

    def _note_calls(self, item: MessageItem) -> None:
        for index, block in item.blocks.items():
            if block.tool_call is not None:
                self._runs.note(item.key, index, block.tool_call.id)
        message = item.message
        if not item.streaming and isinstance(message, AssistantMessage) and message.stop_reason in ("aborted", "error"):
            self._end_calls_not_run(item, "Operation aborted" if message.stop_reason == "aborted"
                                    else message.error_message or "Error")

    def _end_calls_not_run(self, item: MessageItem, reason: str) -> None:
        """pi runs no call of a reply that was aborted or failed: each ends as an error
        with the reason, as pi's TUI shows it (instead of waiting to start for ever)."""
        for index, block in item.blocks.items():
            call, key = block.tool_call, run_key(item.key, index)
            if call is not None and key not in self.tools:
                self._runs.close(key)
                self._runs.add_call(key, call.id, call.name, call.arguments, output=reason, is_error=True, done=True)
                self.changes.tools.append(key)

    def _add(self, item: MessageItem | Banner) -> None:
        self.items.append(item)
        self._by_key[item.key] = item
        self.changes.added.append(item.key)

    def _key(self) -> int:
        self._next_key += 1
        return self._next_key

    def _new_message(self, message: Any, streaming: bool) -> MessageItem:
        item = MessageItem(self._key(), _role(message), message, streaming=streaming)
        item.blocks = blocks_of(message)
        self._note_calls(item)
        if isinstance(message, AssistantMessage):
            item.usage = message.usage
        elif isinstance(message, ToolResultMessage):
            self._answer(item, message)
        self._add(item)
        return item

    def _answer(self, item: MessageItem, message: ToolResultMessage) -> None:
        """A toolResult message: the run of the call it answers, made from it when pi ran it
        unseen (a loaded session)."""
        key, run = self._runs.answer(message.tool_call_id)
        if key is not None:
            self._in_call.add(item.key)
        if run is not None:
            return
        values = dict(output=text_of(message.content), is_error=message.is_error, done=True,
                      duration_ms=message.duration_ms, result=ToolResult(content=message.content, details=message.details))
        if key is None:
            run = self._runs.add_answered(message.tool_call_id, message.tool_name, None, **values)
        else:
            call = self._call(key)
            run = self._runs.add_call(key, message.tool_call_id, message.tool_name, call.arguments if call else None, **values)
        self.changes.tools.append(run.key)

    def banner(self, kind: str, title: str, detail: str = "", *, active: bool = False) -> Banner:
        banner = Banner(self._key(), kind, title, detail, active=active)
        self._add(banner)
        return banner

    def _touch(self, item: MessageItem | Banner) -> None:
        self.changes.items.add(item.key)

    # --- records ----------------------------------------------------------------------------

    def apply_all(self, records: Iterable[Any]) -> None:
        for record in records:
            self.apply(record)

    def apply(self, record: Any) -> None:
        handler = _HANDLERS.get(type(record))
        if handler is not None:
            handler(self, record)

    def _message_start(self, event: MessageStart) -> None:
        message = event.message
        if isinstance(message, SystemMessage):
            return
        if self._open is not None:  # a message that never ended: keep what it has
            self._open.streaming = False
            self._touch(self._open)
        self._open = self._new_message(message, streaming=True)

    def _message_update(self, event: MessageUpdate) -> None:
        item = self._open
        if item is None:  # an update with no message_start: start an assistant message
            item = self._open = self._new_message(AssistantMessage(stop_reason="pending"), streaming=True)
        if event.usage is not None:
            item.usage = event.usage
            self.changes.usage = True
        update = event.assistant_message_event
        kind = type(update)
        index = update.content_index
        if kind is TextDelta or kind is ThinkingDelta:
            block = item.blocks.get(index)
            if block is None:
                block = item.blocks[index] = Block("text" if kind is TextDelta else "thinking", cleaned=True)
                self.changes.replaced.add((item.key, index))
            if block.done:
                self.odd_records += 1
                return  # the *_end content is authoritative
            if added := block.append(update.delta):
                self.changes.appended.setdefault((item.key, index), []).append(added)
        elif kind is TextStart or kind is ThinkingStart:
            if index not in item.blocks:
                item.blocks[index] = Block("text" if kind is TextStart else "thinking", cleaned=True)
                self.changes.replaced.add((item.key, index))
        elif kind is TextEnd or kind is ThinkingEnd:
            block = item.blocks.setdefault(index, Block("text" if kind is TextEnd else "thinking", cleaned=True))
            if block.finish(update.content):  # usually what streamed: nothing to show again
                self.changes.replaced.add((item.key, index))
            block.done = True
        elif kind is ToolCallStart:
            block = item.blocks.setdefault(index, Block("toolCall"))
            block.tool_call = block.tool_call or ToolCall(id=update.id, name=update.tool_name)
            self._runs.note(item.key, index, block.tool_call.id)
            self.changes.replaced.add((item.key, index))
        elif kind is ToolCallDelta:
            block = item.blocks.setdefault(index, Block("toolCall"))
            if not block.done:
                block.append(update.delta)
                self.changes.replaced.add((item.key, index))
        elif kind is ToolCallEnd:
            block = item.blocks.setdefault(index, Block("toolCall"))
            block.tool_call = update.tool_call
            block.text = ""
            block.done = True
            self._runs.note(item.key, index, update.tool_call.id)
            self.changes.replaced.add((item.key, index))
        elif kind is UnknownAssistantEvent:
            self.unknown_records += 1

    def _message_end(self, event: MessageEnd) -> None:
        message = event.message
        if isinstance(message, SystemMessage):
            return
        item = self._open
        self._open = None
        if item is None:
            last = self.items[-1] if self.items else None
            if isinstance(last, MessageItem) and _same_message(last.message, message):
                item = last  # a duplicate message_end: replace, do not add twice
                self.odd_records += 1
            else:
                self._count_usage(self._new_message(message, streaming=False).message)
                return
        else:
            self._count_usage(message)
        item.message = message
        item.role = _role(message)
        item.streaming = False
        streamed, item.blocks = item.blocks, blocks_of(message)
        self._note_calls(item)
        if isinstance(message, AssistantMessage):
            item.usage = message.usage
        self.changes.replaced.update(
            (item.key, index) for index, block in item.blocks.items() if not _same_text(streamed.get(index), block)
        )
        self._touch(item)

    def _count_usage(self, message: Any) -> None:
        if isinstance(message, AssistantMessage):
            self.totals.add(message.usage)
            self.changes.usage = True

    def _agent_start(self, _: AgentStart) -> None:
        if not self.running:  # a new run (a retry or a queued message goes on with the same one)
            self.turns = 0
        self.running = True
        self.run_asked = False
        self.will_retry = False
        self.changes.run = True

    def _agent_end(self, event: AgentEnd) -> None:
        self.will_retry = event.will_retry
        self.changes.run = True

    def _agent_settled(self, event: AgentSettled) -> None:
        self.running = False
        self.will_retry = False
        if self._open is not None:
            self._open.streaming = False
            if event.aborted:
                self._end_calls_not_run(self._open, "Operation aborted")
            self._touch(self._open)
            self._open = None
        for run in self.tools.values():
            if not run.done:
                run.duration_ms = run.elapsed_ms()
                run.done = True
                run.is_error = run.is_error or event.aborted
                self.changes.tools.append(run.key)
        for banner in (self.retry, self.compaction):
            if banner is not None and banner.active:
                banner.active = False
                banner.outcome = banner.outcome or ("aborted" if event.aborted else "ended")
                self._touch(banner)
        self.retry = None
        self.changes.run = True

    def _turn_start(self, _: TurnStart) -> None:
        self.turns += 1
        self.changes.run = True

    def _tool_start(self, event: ToolExecutionStart) -> None:
        run = self._runs.start(event.tool_call_id, event.tool_name, event.args)
        self.changes.tools.append(run.key)

    def _tool_update(self, event: ToolExecutionUpdate) -> None:
        run = self._runs.running(event.tool_call_id) or self._runs.start(event.tool_call_id, event.tool_name, event.args)
        if run.done:
            return
        run.result = event.partial_result
        run.output = _result_text(event.partial_result)
        self.changes.tools.append(run.key)

    def _tool_end(self, event: ToolExecutionEnd) -> None:
        run = self._runs.running(event.tool_call_id) or self._runs.start(event.tool_call_id, event.tool_name, None)
        run.result = event.result
        run.output = _result_text(event.result)
        run.is_error = event.is_error
        run.done = True
        run.duration_ms = event.duration_ms if event.duration_ms is not None else run.elapsed_ms()
        self.changes.tools.append(run.key)

    def _queue(self, event: QueueUpdate) -> None:
        self.steering = list(event.steering)
        self.follow_up = list(event.follow_up)
        self.changes.queue = True

    def _session_info(self, event: SessionInfoChanged) -> None:
        if self.state is not None:
            self.state.session_name = event.name
        self.changes.session = True

    def _thinking_level(self, event: ThinkingLevelChanged) -> None:
        if self.state is not None:
            self.state.thinking_level = event.level
        self.changes.session = True

    def _compaction_start(self, event: CompactionStart) -> None:
        self.compaction = self.banner("compaction", f"Compacting context ({event.reason or 'manual'})", active=True)
        self.changes.run = True

    def _compaction_end(self, event: CompactionEnd) -> None:
        banner = self.compaction or self.banner("compaction", f"Compaction ({event.reason})")
        self.compaction = None
        banner.active = False
        if event.result is not None:
            banner.outcome = f"done: {compaction_outcome(event.result)}"
            banner.detail = event.result.summary
        elif event.aborted:
            banner.outcome = "aborted"
        else:
            banner.outcome = f"failed: {event.error_message or 'unknown error'}"
        if event.will_retry:
            banner.outcome += "; retrying the prompt"
        self._touch(banner)
        self.changes.run = True

    def _retry_start(self, event: AutoRetryStart) -> None:
        title = f"Retrying ({event.attempt}/{event.max_attempts}) in {event.delay_ms / 1000:g}s"
        if self.retry is None or not self.retry.active:
            self.retry = self.banner("retry", title, event.error_message, active=True)
        else:
            self.retry.title, self.retry.detail = title, event.error_message
            self._touch(self.retry)
        self.changes.run = True

    def _retry_end(self, event: AutoRetryEnd) -> None:
        banner = self.retry or self.banner("retry", "Retry")
        self.retry = None
        banner.active = False
        retries = event.attempt  # pi counts the retries, not the first try
        if event.final_error == CANCELLED_RETRY:  # the retry waiting was stopped, never sent
            banner.outcome = "cancelled"
        else:
            if retries > 0:
                banner.title = f"Retried {'once' if retries == 1 else f'{retries:g} times'}"
            banner.outcome = "succeeded" if event.success else f"gave up: {event.final_error or 'failed'}"
        self._touch(banner)
        self.changes.run = True

    def _summary_retry(self, event: Any) -> None:
        if isinstance(event, SummarizationRetryScheduled):
            self._retry_start(AutoRetryStart(attempt=event.attempt, max_attempts=event.max_attempts,
                                             delay_ms=event.delay_ms, error_message=event.error_message))
        elif isinstance(event, SummarizationRetryAttemptStart) and self.retry is not None:
            self.retry.detail = f"retrying {event.source}"
            self._touch(self.retry)
        elif isinstance(event, SummarizationRetryFinished) and self.retry is not None:
            self.retry.active = False
            self.retry.outcome = "finished"
            self._touch(self.retry)
            self.retry = None

    def _bash_update(self, event: BashExecutionUpdate) -> None:
        if (event.id or "") in self._bash_ended:
            return  # pi's answer (applied at once) already gave the whole output
        item = self._bash.get(event.id or "")
        if item is None:
            item = self.begin_bash(event.id or "", "")
        item.blocks[0].append(event.delta)
        self.changes.appended.setdefault((item.key, 0), []).append(event.delta)

    def _extension_error(self, event: ExtensionError) -> None:
        self.banner("extension-error", f"Extension error in {event.event}", f"{event.extension_path}: {event.error}")

    def _entry_appended(self, _: EntryAppended) -> None:
        self.changes.session = True

    def _notify(self, request: NotifyRequest) -> None:
        self.changes.notifications.append((request.notify_type or "info", request.message))

    def _set_status(self, request: SetStatusRequest) -> None:
        if request.status_text:
            self.statuses[request.status_key] = request.status_text
        else:
            self.statuses.pop(request.status_key, None)
        self.changes.extension_ui = True

    def _set_widget(self, request: SetWidgetRequest) -> None:
        if request.widget_lines is None:
            self.widgets.pop(request.widget_key, None)
        else:
            self.widgets[request.widget_key] = Widget(list(request.widget_lines), request.widget_placement or "aboveEditor")
        self.changes.extension_ui = True

    def _set_title(self, request: SetTitleRequest) -> None:
        self.title = request.title
        self.changes.title = request.title

    def _set_editor_text(self, request: SetEditorTextRequest) -> None:
        self.changes.editor_text = request.text

    def _protocol_error(self, _: ProtocolError) -> None:
        self.protocol_errors += 1
        self.changes.protocol_errors += 1

    def _unknown(self, _: Any) -> None:
        self.unknown_records += 1

    def _unknown_request(self, request: UnknownUIRequest) -> None:
        """An extension asked with a method pideck does not know: counted, and answered
        "cancelled" so that it does not wait for ever."""
        self.unknown_records += 1
        self.changes.declines.append(request)

    def _refused_dialog(self, request: RefusedDialogRequest) -> None:
        self.changes.declines.append(request)

    def _dialog(self, request: DialogRequest) -> None:
        self.changes.dialogs.append(request)

    def _dialog_answered(self, answered: DialogAnswered) -> None:
        """Another window answered a dialog: not shown here if it is still to be, closed if it is."""
        self.changes.dialogs = [request for request in self.changes.dialogs if request.id != answered.id]
        self.changes.answered.append(answered.id)

    def _caught_up(self, caught: CaughtUp) -> None:
        """This window is drawn again from a held pi's cut: the transcript is the messages before
        the run in progress, no run is under way until the run's records (which follow) say so,
        and the dialogs it showed are asked again by the cut if they are still open."""
        self.running = False
        self.will_retry = False
        self.retry = self.compaction = None
        self.load_messages(caught.history)
        self.changes.dialogs = []
        self.changes.caught_up = True
        self.changes.run = True

    def _settled(self, event: AgentSettled) -> None:
        self._agent_settled(event)
        self.changes.settled = event
        self.changes.stats_stale = True

    def _child_exited(self, exited: ChildExited) -> None:
        """pi is gone: what it was doing ends as aborted, and a banner says why."""
        self.run_asked = False
        if self.running or self._open is not None:
            self._agent_settled(AgentSettled(aborted=True))
        self.banner("error", exit_reason(exited), exited.stderr_tail[-1500:] or "(nothing on stderr)")
        self.changes.exited = exited

    # --- pi's life cycle ------------------------------------------------------------------

    def _life_changed(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self.life, name, value)
        self.changes.status = True

    def starting(self, since: float) -> None:
        """pi was started and has not answered yet."""
        self._life_changed(starting_since=since)

    def started(self) -> None:
        self._life_changed(starting_since=None)

    def loading(self, since: float | None, received: int = 0) -> None:
        """A session's messages are being read (`since` None: they are shown)."""
        self._life_changed(loading_since=since, loading_bytes=received)

    def could_not_start(self, reason: str) -> None:
        self._life_changed(starting_since=None, notice="pi could not start", startup_error=reason)

    def crashed(self, reason: str, detail: str) -> None:
        self._life_changed(crash=Crash(reason, detail), notice="pi is not running — ctrl+r restarts it")

    def restarting(self, under_way: bool) -> None:
        self._life_changed(restarting=under_way)

    def restarted(self) -> None:
        self._life_changed(crash=None, notice="")

    def say(self, notice: str, role: str = "error") -> None:
        """What the status line says instead of "ready" (a read-only view's state)."""
        self._life_changed(notice=notice, notice_role=role)

    def problems_seen(self, problems: str) -> None:
        if problems != self.life.problems:
            self._life_changed(problems=problems)

    # --- calls from the app ---------------------------------------------------------------

    def begin_bash(self, request_id: str, command: str, exclude_from_context: bool = False) -> MessageItem:
        """A user `!command` started: show it as a streaming bashExecution message."""
        message = BashExecutionMessage(command=command, exclude_from_context=exclude_from_context,
                                       timestamp=int(time.time() * 1000))
        item = self._new_message(message, streaming=True)
        item.blocks = {0: Block("text")}
        self._bash[request_id] = item
        return item

    def end_bash(self, request_id: str, result: BashResult | None, error: str | None = None) -> None:
        """pi answered a `!command`. The answer resolves at once, while the output updates
        read before it may still wait for the next frame: the answer's output is the whole
        output, so it replaces what streamed and later updates for the command are dropped."""
        item = self._bash.pop(request_id, None)
        if item is None:
            return
        self._bash_ended[request_id] = None
        while len(self._bash_ended) > 64:
            del self._bash_ended[next(iter(self._bash_ended))]
        message = item.message
        if result is not None:
            message.exit_code = result.exit_code
            message.cancelled = result.cancelled
            message.truncated = result.truncated
            message.full_output_path = result.full_output_path
            if result.output and item.blocks[0].text != result.output:
                item.blocks[0].text = result.output
                self.changes.replaced.add((item.key, 0))
            message.output = item.blocks[0].text
        elif error:
            item.blocks[0].text += f"\n{error}"
            self.changes.replaced.add((item.key, 0))
        item.streaming = False
        self._touch(item)

    def set_state(self, state: SessionState) -> None:
        model = state.model
        if model is not None and model.provider == model.id == model.api == "unknown":
            state = msgspec.structs.replace(state, model=None)  # pi's stand-in when it has no model
        self.state = state
        self.changes.session = True

    def set_stats(self, stats: SessionStats) -> None:
        self.stats = stats
        self.changes.usage = True

    def set_auto_retry(self, enabled: bool) -> None:
        self.auto_retry = enabled
        self.changes.session = True

    def load_messages(self, messages: Iterable[Any]) -> None:
        """Replace the transcript with a session's messages (after start, switch, fork...)."""
        self.items.clear()
        self._by_key.clear()
        self._open = None
        self._runs.clear()
        self._bash.clear()
        self._in_call.clear()
        self.totals = Totals()
        # the views are built afresh; what else is pending still is (a dialog, the new state)
        self.changes = replace(self.changes, added=[], appended={}, replaced=set(), items=set(), tools=[], reset=True)
        with collector_paused():  # a long session: hundreds of thousands of new objects
            for message in messages:
                if isinstance(message, SystemMessage):
                    continue
                self._count_usage(self._new_message(message, streaming=False).message)
        self.changes.added.clear()  # reset covers them

    def tool_runs(self) -> list[ToolRun]:
        return self._runs.ordered()

    def run_at(self, item_key: int, index: int) -> ToolRun | None:
        """The run of the toolCall block at content `index` of message `item_key`."""
        return self.tools.get(run_key(item_key, index))


def compaction_outcome(result: CompactionResult) -> str:
    """What a compaction did: "150k tokens → ~32k" (no estimate after it when pi gives none)."""
    after = result.estimated_tokens_after
    return f"{tokens(result.tokens_before)} tokens" + (f" → ~{tokens(after)}" if after is not None else "")


def exit_reason(exited: ChildExited) -> str:
    """A title for the banner: how pi ended, or why it could not be started."""
    if exited.error:
        return f"pi could not be started: {exited.error}"
    if exited.stopped_by:
        return f"pi was stopped by `{exited.stopped_by}`"
    code = exited.returncode
    if code is not None and code < 0:
        try:
            return f"pi was killed ({signal.Signals(-code).name}, code {code})"
        except ValueError:
            return f"pi was killed by signal {-code}"
    return f"pi exited (code {code})"


def _role(message: Any) -> str:
    if isinstance(message, UnknownMessage):
        return message.role
    return str(type(message).__struct_config__.tag)


def _same_message(a: Any, b: Any) -> bool:
    return type(a) is type(b) and getattr(a, "timestamp", None) == getattr(b, "timestamp", None)


_HANDLERS: dict[type, Any] = {
    MessageStart: SessionModel._message_start,
    MessageUpdate: SessionModel._message_update,
    MessageEnd: SessionModel._message_end,
    AgentStart: SessionModel._agent_start,
    AgentEnd: SessionModel._agent_end,
    AgentSettled: SessionModel._settled,
    TurnStart: SessionModel._turn_start,
    ToolExecutionStart: SessionModel._tool_start,
    ToolExecutionUpdate: SessionModel._tool_update,
    ToolExecutionEnd: SessionModel._tool_end,
    QueueUpdate: SessionModel._queue,
    SessionInfoChanged: SessionModel._session_info,
    ThinkingLevelChanged: SessionModel._thinking_level,
    CompactionStart: SessionModel._compaction_start,
    CompactionEnd: SessionModel._compaction_end,
    AutoRetryStart: SessionModel._retry_start,
    AutoRetryEnd: SessionModel._retry_end,
    SummarizationRetryScheduled: SessionModel._summary_retry,
    SummarizationRetryAttemptStart: SessionModel._summary_retry,
    SummarizationRetryFinished: SessionModel._summary_retry,
    BashExecutionUpdate: SessionModel._bash_update,
    ExtensionError: SessionModel._extension_error,
    EntryAppended: SessionModel._entry_appended,
    NotifyRequest: SessionModel._notify,
    SetStatusRequest: SessionModel._set_status,
    SetWidgetRequest: SessionModel._set_widget,
    SetTitleRequest: SessionModel._set_title,
    SetEditorTextRequest: SessionModel._set_editor_text,
    ProtocolError: SessionModel._protocol_error,
    Unknown: SessionModel._unknown,
    UnknownUIRequest: SessionModel._unknown_request,
    RefusedDialogRequest: SessionModel._refused_dialog,
    ChildExited: SessionModel._child_exited,
    DialogAnswered: SessionModel._dialog_answered,
    CaughtUp: SessionModel._caught_up,
    **dict.fromkeys(DIALOG_REQUESTS, SessionModel._dialog),
}
