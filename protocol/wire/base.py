"""Base classes shared by every protocol record.

Open unions (content blocks, messages, session entries) are annotated with a
slot-less marker class. msgspec hands such fields to `codec.dec_hook`, which
decodes the known shapes and wraps anything else in an `Unknown*` record, so an
unknown role or block type never loses the rest of the record.
"""

from __future__ import annotations

from typing import Any

import msgspec


# A JSON number. pi is TypeScript: its `number` fields (tokens, costs, counts, timestamps,
# contextWindow) may hold a float where an int is meant (pi takes `"contextWindow": 131072.5`
# in models.json), so a field typed `int` would fail on a value pi really sends.
Number = int | float


class Record(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True, gc=False):
    """A protocol object: snake_case in Python, camelCase on the wire, unknown fields ignored.

    `gc=False`: records are trees of values decoded from JSON, never parts of reference
    cycles, so the garbage collector need not track them; this makes decoding the stream
    (thousands of records a second) measurably cheaper. Do not build cycles through records.
    """


class AnyBlock:
    """Marker for a content block: TextContent, ImageContent, ThinkingContent, ToolCall or UnknownBlock."""

    __slots__ = ()


class AnyMessage:
    """Marker for an AgentMessage of any role, or UnknownMessage."""

    __slots__ = ()


class AnyEntry:
    """Marker for a session entry of any type, or UnknownEntry."""

    __slots__ = ()


class UnknownBlock(Record, AnyBlock):
    """A content block whose `type` pideck does not know; `raw` keeps it whole."""

    raw: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.raw.get("type", "?"))


class UnknownMessage(Record, AnyMessage):
    """A message whose `role` pideck does not know; `raw` keeps it whole."""

    raw: dict[str, Any]

    @property
    def role(self) -> str:
        return str(self.raw.get("role", "?"))


class UnknownEntry(Record, AnyEntry):
    """A session entry whose `type` pideck does not know; `raw` keeps it whole."""

    raw: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.raw.get("type", "?"))

    @property
    def id(self) -> str:
        return str(self.raw.get("id", ""))

    @property
    def parent_id(self) -> str | None:
        return self.raw.get("parentId")
