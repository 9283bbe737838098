"""Decoding stdout records and encoding stdin commands.

`decode` never raises: a record of a type pideck does not know becomes `Unknown`;
a line that is not JSON, not UTF-8, not an object, or fails typing becomes
`ProtocolError` with the raw bytes kept. Lone UTF-16 surrogate escapes (which
JSON.stringify writes for half of a split emoji) are read as U+FFFD. One typed
`Decoder` is built at import; the slow paths (re-decode as a dict) run only when
the fast one fails. A response of more than BIG_LINE bytes (a long session's
get_messages) is decoded straight into its typed data, with the collector paused.
"""

from __future__ import annotations

import codecs
import functools
import re
import typing
from typing import Any

import msgspec

from protocol.wire.base import AnyBlock, AnyEntry, AnyMessage, UnknownBlock, UnknownEntry, UnknownMessage
from protocol.wire.collector import collector_paused
from protocol.wire.commands import Command, ExtensionUIResponse
from protocol.wire.entries import EntryUnion
from protocol.wire.events import AssistantEventUnion, EventUnion, MessageUpdate, UnknownAssistantEvent
from protocol.wire.extension_ui import DIALOG_REQUESTS, RefusedDialogRequest, UIRequestUnion, UnknownUIRequest
from protocol.wire.messages import BlockUnion, MessageUnion, Usage
from protocol.wire.response_head import response_head
from protocol.wire.responses import DATA_TYPES, OPTIONAL_DATA, Response


class Unknown(msgspec.Struct, frozen=True):
    """A record whose `type` (or extension UI `method`) pideck does not know."""

    type: str
    raw: dict[str, Any]


class ProtocolError(msgspec.Struct, frozen=True):
    """A line that could not be read as a record: not UTF-8, not JSON, or failed typing."""

    raw: bytes
    error: str


def _by_tag(union: Any) -> dict[Any, type]:
    """tag value -> Struct class, for a tagged union."""
    return {cls.__struct_config__.tag: cls for cls in typing.get_args(union)}


# marker -> (tag field on the wire, tag -> class, wrapper for what does not fit). Converting to the
# one class the tag names is much cheaper than `msgspec.convert(obj, union)`, which rebuilds the
# union's type info on every call; a wrong tag or a failed conversion is wrapped just the same.
_OPEN: dict[type, tuple[str, dict[Any, type], type]] = {
    AnyBlock: ("type", _by_tag(BlockUnion), UnknownBlock),
    AnyMessage: ("role", _by_tag(MessageUnion), UnknownMessage),
    AnyEntry: ("type", _by_tag(EntryUnion), UnknownEntry),
}
_UI_BY_METHOD: dict[Any, type] = _by_tag(UIRequestUnion)
_ASSISTANT_BY_TYPE: dict[Any, type] = _by_tag(AssistantEventUnion)


def dec_hook(tp: type, obj: Any) -> Any:
    """Decode the open unions; what does not fit is wrapped, not rejected."""
    open_union = _OPEN.get(tp)
    if open_union is None:
        raise NotImplementedError(f"no decoder for {tp!r}")
    if not isinstance(obj, dict):
        raise msgspec.ValidationError(f"expected an object, got {type(obj).__name__}")
    tag_field, classes, unknown = open_union
    tag = obj.get(tag_field)
    cls = classes.get(tag) if isinstance(tag, str) else None
    if cls is None:
        return unknown(raw=obj)
    try:
        return msgspec.convert(obj, cls, dec_hook=dec_hook)
    except msgspec.ValidationError:
        return unknown(raw=obj)


KNOWN_TYPES: frozenset[str] = frozenset(
    cls.__struct_config__.tag for cls in typing.get_args(EventUnion | Response)
) | {"extension_ui_request"}

_decoder = msgspec.json.Decoder(EventUnion | Response, dec_hook=dec_hook)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()

Decoded = Any  # an Event, Response, UIRequest, UnknownUIRequest, RefusedDialogRequest, Unknown or ProtocolError


def _type_data(response: Response) -> Response:
    data_type = DATA_TYPES.get(response.command)
    if data_type is None or not response.success:
        return response
    if response.data is None:
        if response.command not in OPTIONAL_DATA:
            response.data_error = "no data"
        return response
    try:
        response.data = msgspec.convert(response.data, data_type, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        response.data_error = str(exc)
    except RecursionError:
        response.data_error = "nested too deeply"
    return response


# A line longer than this is decoded with the collector paused (its millions of new objects
# would start full collections, each walking all of them), and a response that long straight
# into its typed data: the general path first builds the whole answer as dicts and lists,
# which for hundreds of MB doubles the time and the memory.
BIG_LINE = 1 << 20
UTF8_SLICE = 1 << 20  # bytes checked at a time: a whole line decoded to str could take 4x its size


def decode(line: bytes) -> Decoded:
    """One record from one LF-free line of pi's stdout."""
    if type(line) is not bytes:
        line = bytes(line)
    if len(line) <= BIG_LINE:
        return _decode(line)
    with collector_paused():
        return _decode(line, _typed_response(line))


def _decode(line: bytes, typed: Response | None = None) -> Decoded:
    record: Any = typed
    if record is None:
        try:
            record = _decoder.decode(line)
        except msgspec.DecodeError as exc:
            return _decode_slow(line, exc)
        except RecursionError:
            return ProtocolError(raw=line, error="not readable: nested too deeply")
    # msgspec skips the values of fields it ignores without checking their UTF-8
    if not line.isascii() and (error := _utf8_error(line)) is not None:
        return ProtocolError(raw=line, error=f"not UTF-8: {error}")
    if type(record) is Response and typed is None:
        return _type_data(record)
    return record


@functools.cache
def _response_decoder(command: str) -> msgspec.json.Decoder[Any]:
    """A decoder of `command`'s successful response whose `data` is typed as it is read."""
    fields = [("command", str, ""), ("success", bool, False), ("id", str | None, None),
              ("data", DATA_TYPES[command] | None, None)]
    typed = msgspec.defstruct(f"TypedResponse_{command}", fields, tag_field="type", tag="response",
                              kw_only=True, gc=False)
    return msgspec.json.Decoder(typed, dec_hook=dec_hook)


def _typed_response(line: bytes) -> Response | None:
    """A successful response with its typed data, decoded in one pass; None when the line
    is no such response or does not fit (the general path then says why)."""
    head = response_head(line)
    if head is None or head.command not in DATA_TYPES:
        return None
    try:
        typed = _response_decoder(head.command).decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    if not typed.success or typed.data is None or typed.command != head.command:
        return None
    return Response(command=typed.command, success=True, id=typed.id, data=typed.data)


def _utf8_error(line: bytes) -> UnicodeDecodeError | None:
    """Why `line` is not UTF-8 (a long line is checked a slice at a time); None if it is."""
    try:
        if len(line) <= UTF8_SLICE:
            line.decode()
            return None
        decoder = codecs.getincrementaldecoder("utf-8")()
        with memoryview(line) as view:
            for start in range(0, len(line), UTF8_SLICE):
                decoder.decode(view[start : start + UTF8_SLICE])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        return exc
    return None


# A lone UTF-16 surrogate escape such as "\ud83d": JSON.stringify writes one for half of a
# split emoji, and msgspec rejects the whole line. Escaped backslashes are consumed as a pair,
# so a literal backslash followed by "ud83d" is left alone.
_ESCAPE = re.compile(
    rb"\\(?:u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"  # high surrogate (+ its low one)
    rb"|u[dD][c-fC-F][0-9a-fA-F]{2}"  # a low surrogate alone
    rb"|.)",  # any other escape, e.g. an escaped backslash
    re.DOTALL,
)


def _replace_lone_surrogate(match: re.Match[bytes]) -> bytes:
    escape = match.group(0)
    if match.group(1) is not None:
        return escape if match.group(2) else rb"\ufffd"
    if len(escape) == 6:  # a low surrogate without its high one
        return rb"\ufffd"
    return escape


def _decode_slow(line: bytes, first_error: msgspec.DecodeError) -> Decoded:
    try:
        obj = _any_decoder.decode(line)
    except msgspec.DecodeError as exc:
        if b"\\u" in line:
            patched = _ESCAPE.sub(_replace_lone_surrogate, line)
            if patched != line:  # lone surrogates become U+FFFD; the rest is read as usual
                record = decode(patched)
                return ProtocolError(raw=line, error=record.error) if isinstance(record, ProtocolError) else record
        return ProtocolError(raw=line, error=f"not JSON: {exc}")
    except RecursionError:
        return ProtocolError(raw=line, error="not readable: nested too deeply")
    if not isinstance(obj, dict):
        return ProtocolError(raw=line, error=f"not a JSON object: {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "extension_ui_request":
        method = obj.get("method")
        cls = _UI_BY_METHOD.get(method) if isinstance(method, str) else None
        if cls is None:
            if isinstance(method, str) and isinstance(obj.get("id"), str):
                return UnknownUIRequest(id=obj["id"], method=method, raw=obj)
            return ProtocolError(raw=line, error="bad extension_ui_request: no string `method` and `id`")
        try:
            return msgspec.convert(obj, cls)
        except msgspec.ValidationError as exc:
            if cls in DIALOG_REQUESTS and isinstance(obj.get("id"), str):  # someone waits for an answer
                return RefusedDialogRequest(id=obj["id"], method=method, reason=str(exc))
            return ProtocolError(raw=line, error=f"bad extension_ui_request: {exc}")
    if kind == "message_update" and isinstance(obj.get("assistantMessageEvent"), dict):
        inner = obj["assistantMessageEvent"]
        kind_cls = _ASSISTANT_BY_TYPE.get(inner.get("type")) if isinstance(inner.get("type"), str) else None
        if kind_cls is None or _convert_or_none(inner, kind_cls) is None:
            usage = _convert_or_none(obj.get("usage"), Usage)
            index = inner.get("contentIndex")
            return MessageUpdate(
                assistant_message_event=UnknownAssistantEvent(  # type: ignore[arg-type]
                    raw=inner, content_index=index if isinstance(index, int) else -1
                ),
                usage=usage,
            )
    if not isinstance(kind, str):
        return ProtocolError(raw=line, error="record has no string `type`")
    if kind not in KNOWN_TYPES:
        return Unknown(type=kind, raw=obj)
    return ProtocolError(raw=line, error=f"bad {kind} record: {first_error}")


def _convert_or_none(obj: Any, tp: type) -> Any:
    try:
        return msgspec.convert(obj, tp)
    except msgspec.ValidationError:
        return None


def encode(command: Command | ExtensionUIResponse) -> bytes:
    """One LF-terminated JSON line for pi's stdin."""
    return _encoder.encode(command) + b"\n"
