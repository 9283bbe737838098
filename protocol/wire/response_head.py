"""Which request an unreadable response line answers.

A response line that does not decode (nested deeper than the decoder goes, truncated,
invalid UTF-8, or too long to keep) must still fail the request waiting for it, rather
than leave it to time out. pi writes `{"id":...,"type":"response","command":...,
"success":...` before `data`, so the id is among the scalar members at the start of the
top-level object. Only those are scanned, within the first HEAD bytes, without
recursing into any value: whatever follows can be arbitrarily broken.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import msgspec

HEAD = 65536

_STRING = rb'"(?:[^"\\\x00-\x1f]|\\.)*"'
_OPEN = re.compile(rb"\s*\{")
_MEMBER = re.compile(
    rb"\s*(" + _STRING + rb")\s*:\s*(" + _STRING + rb"|true|false|null|-?[0-9][0-9.eE+-]*)\s*([,}])",
    re.DOTALL,
)


class ResponseHead(NamedTuple):
    id: str
    command: str


def response_head(raw: bytes) -> ResponseHead | None:
    """`id` and `command` of a response line, read from the scalar members that open
    its object; None when the line does not start as a response with a string id."""
    head = raw[:HEAD]
    start = _OPEN.match(head)
    if start is None:
        return None
    fields: dict[str, str] = {}
    position = start.end()
    while (member := _MEMBER.match(head, position)) is not None:
        key, value, end = member.groups()
        name, text = _string(key), _string(value)
        if name is not None and text is not None:
            fields[name] = text
        if end == b"}" or {"type", "id", "command"} <= fields.keys():
            break
        position = member.end()
    if fields.get("type") != "response" or "id" not in fields:
        return None
    return ResponseHead(fields["id"], fields.get("command", ""))


def _string(value: bytes) -> str | None:
    """A JSON string's text; None for any other value or a string that does not decode."""
    if not value.startswith(b'"'):
        return None
    try:
        return msgspec.json.decode(value, type=str)
    except msgspec.DecodeError:
        return None
