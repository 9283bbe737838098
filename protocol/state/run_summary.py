"""What the stats pane shows of a run pideck reads without pi (`pideck view`): the state and
stats pi would answer, made from the session model, and how the run ended.

pi's JSON mode exits 0 even when the model call failed or was aborted, so the outcome names
the last assistant message's `stopReason` (and its error) rather than trusting the exit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from protocol.wire.entries import SessionHeader
from protocol.wire.events import MessageEnd, SessionInfoChanged, ThinkingLevelChanged
from protocol.wire.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from protocol.wire.responses import Model, SessionState, SessionStats, TokenTotals
from protocol.state.session_model import MessageItem, SessionModel


ERROR_CHARS = 160  # of the error shown in the stats pane (the transcript shows it whole)


@dataclass(frozen=True)
class Outcome:
    text: str
    severity: str  # "success", "warning" or "error"


def last_assistant(session: SessionModel) -> AssistantMessage | None:
    for item in reversed(session.items):
        if isinstance(item, MessageItem) and isinstance(item.message, AssistantMessage):
            return item.message
    return None


@dataclass
class Said:
    """The run's settings as its records said them, the latest of each: the thinking level
    (`thinking_level_changed`, a reply's `thinkingLevel`) and the session's name
    (`session_info_changed`; `named` once one came, its name None when it was cleared)."""

    thinking_level: str | None = None
    name: str | None = None
    named: bool = False

    def take(self, records: Iterable[Any]) -> None:
        for record in records:
            kind = type(record)
            if kind is ThinkingLevelChanged and record.level:
                self.thinking_level = record.level
            elif kind is MessageEnd and isinstance(record.message, AssistantMessage) and record.message.thinking_level:
                self.thinking_level = record.message.thinking_level
            elif kind is SessionInfoChanged:
                self.name, self.named = record.name, True


def view_state(session: SessionModel, header: SessionHeader | None, path: str | None, *,
               provider: str | None = None, model: str | None = None, thinking_level: str | None = None,
               name: str | None = None) -> SessionState:
    """pi's get_state for the viewed run, of what it said: the model of its last reply (else
    the one given), the thinking level given (else its last reply's; "" when none said it)."""
    last = last_assistant(session)
    if last is not None and last.model:
        provider, model = last.provider, last.model
    level = thinking_level or (last.thinking_level if last is not None else None) or ""
    return SessionState(
        model=Model(id=model, name=model, provider=provider or "", api=last.api if last is not None else "")
        if model else None,
        thinking_level=level, is_streaming=session.running, session_file=path,
        session_id=header.id if header is not None else "", session_name=name,
        message_count=sum(isinstance(item, MessageItem) for item in session.items),
    )


def view_stats(session: SessionModel, header: SessionHeader | None, path: str | None) -> SessionStats:
    """pi's get_session_stats for the viewed run, counted from the messages shown."""
    users = assistants = calls = results = 0
    for item in session.items:
        if not isinstance(item, MessageItem):
            continue
        message = item.message
        if isinstance(message, UserMessage):
            users += 1
        elif isinstance(message, AssistantMessage):
            assistants += 1
            calls += sum(isinstance(block, ToolCall) for block in message.content)
        elif isinstance(message, ToolResultMessage):
            results += 1
    totals = session.totals
    return SessionStats(
        session_file=path, session_id=header.id if header is not None else "", user_messages=users,
        assistant_messages=assistants, tool_calls=calls, tool_results=results,
        total_messages=sum(isinstance(item, MessageItem) for item in session.items),
        tokens=TokenTotals(input=totals.input, output=totals.output, cache_read=totals.cache_read,
                           cache_write=totals.cache_write,
                           total=totals.input + totals.output + totals.cache_read + totals.cache_write),
        cost=totals.cost,
    )


def outcome(session: SessionModel, *, following: bool = False, writer_gone: bool = False) -> Outcome:
    """How the run ended, by its last reply's stopReason: `following` while the stream is still
    read, `writer_gone` when its writer closed it before the run settled."""
    if session.running and following:
        return Outcome("running…", "warning")
    last = last_assistant(session)
    reason = last.stop_reason if last is not None else None
    gone = " · the writer went away before the run settled" if writer_gone else ""
    if reason == "error":
        error = " ".join(((last.error_message if last else None) or "the model call failed").split())
        return Outcome(f"error: {error[:ERROR_CHARS]}{'…' if len(error) > ERROR_CHARS else ''}{gone}", "error")
    if reason == "aborted":
        return Outcome(f"aborted{gone}", "error")
    if writer_gone:
        return Outcome(f"cut short: {reason or 'no reply'}{gone}", "error")
    if reason is None:
        return Outcome("no reply", "warning")
    if reason == "length":
        return Outcome("length: the reply hit the token limit", "warning")
    return Outcome(reason, "success")
