"""The 33 stdin commands of pi RPC (pi docs/rpc-commands.md) and the extension UI response.

Every command takes an optional `id`; `protocol.wire.client.RpcClient` assigns one.
Optional fields left at their defaults are omitted on the wire.
"""

from __future__ import annotations

from typing import Literal

from protocol.wire.base import Record
from protocol.wire.extension_ui import Scalar
from protocol.wire.messages import ImageContent

StreamingBehavior = Literal["steer", "followUp"]
QueueMode = Literal["all", "one-at-a-time"]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class Command(Record, tag_field="type", kw_only=True):
    id: str | None = None


# prompting
class Prompt(Command, tag="prompt"):
    message: str
    images: list[ImageContent] | None = None
    streaming_behavior: StreamingBehavior | None = None


class Steer(Command, tag="steer"):
    message: str
    images: list[ImageContent] | None = None


class FollowUp(Command, tag="follow_up"):
    message: str
    images: list[ImageContent] | None = None


class Abort(Command, tag="abort"):
    pass


class ClearQueue(Command, tag="clear_queue"):
    pass


# state
class NewSession(Command, tag="new_session"):
    parent_session: str | None = None


class GetState(Command, tag="get_state"):
    pass


class GetMessages(Command, tag="get_messages"):
    pass


# model
class SetModel(Command, tag="set_model"):
    provider: str
    model_id: str


class CycleModel(Command, tag="cycle_model"):
    pass


class GetAvailableModels(Command, tag="get_available_models"):
    pass


# thinking
class SetThinkingLevel(Command, tag="set_thinking_level"):
    level: str


class CycleThinkingLevel(Command, tag="cycle_thinking_level"):
    pass


class GetAvailableThinkingLevels(Command, tag="get_available_thinking_levels"):
    pass


# queue modes
class SetSteeringMode(Command, tag="set_steering_mode"):
    mode: QueueMode


class SetFollowUpMode(Command, tag="set_follow_up_mode"):
    mode: QueueMode


# compaction and retry
class Compact(Command, tag="compact"):
    custom_instructions: str | None = None


class SetAutoCompaction(Command, tag="set_auto_compaction"):
    enabled: bool


class SetAutoRetry(Command, tag="set_auto_retry"):
    enabled: bool


class AbortRetry(Command, tag="abort_retry"):
    pass


# bash
class Bash(Command, tag="bash"):
    command: str
    exclude_from_context: bool = False


class AbortBash(Command, tag="abort_bash"):
    pass


# session
class GetSessionStats(Command, tag="get_session_stats"):
    pass


class ExportHtml(Command, tag="export_html"):
    output_path: str | None = None


class SwitchSession(Command, tag="switch_session"):
    session_path: str


class Fork(Command, tag="fork"):
    entry_id: str


class Clone(Command, tag="clone"):
    pass


class GetForkMessages(Command, tag="get_fork_messages"):
    pass


class GetEntries(Command, tag="get_entries"):
    since: str | None = None


class GetTree(Command, tag="get_tree"):
    pass


class GetLastAssistantText(Command, tag="get_last_assistant_text"):
    pass


class SetSessionName(Command, tag="set_session_name"):
    name: str


class GetCommands(Command, tag="get_commands"):
    pass


ALL_COMMANDS: tuple[type[Command], ...] = (
    Prompt, Steer, FollowUp, Abort, ClearQueue, NewSession, GetState, GetMessages,
    SetModel, CycleModel, GetAvailableModels, SetThinkingLevel, CycleThinkingLevel,
    GetAvailableThinkingLevels, SetSteeringMode, SetFollowUpMode, Compact, SetAutoCompaction,
    SetAutoRetry, AbortRetry, Bash, AbortBash, GetSessionStats, ExportHtml, SwitchSession,
    Fork, Clone, GetForkMessages, GetEntries, GetTree, GetLastAssistantText, SetSessionName,
    GetCommands,
)  # fmt: skip


def command_name(command: Command | type[Command]) -> str:
    """The wire `type` of a command (also the `command` field of its response)."""
    cls = command if isinstance(command, type) else type(command)
    return str(cls.__struct_config__.tag)


class ExtensionUIResponse(Record, tag_field="type", tag="extension_ui_response"):
    """Answer to a dialog request: exactly one of value, confirmed or cancelled. A select's
    `value` is the option as the extension passed it (a number stays a number)."""

    id: str
    value: Scalar = None
    confirmed: bool | None = None
    cancelled: bool | None = None
