"""Decoding stdout records and encoding stdin commands.

`decode` never raises: a record of a type pideck does not know becomes `Unknown`;
a line that is not JSON, not an object, or fails typing becomes `ProtocolError`
with the raw bytes kept. One typed `Decoder` is built at import; the slow paths
(re-decode as a dict) run only when the fast one fails.
"""

from __future__ import annotations

import typing
from typing import Any

import msgspec

from protocol.base import AnyBlock, AnyEntry, AnyMessage, UnknownBlock, UnknownEntry, UnknownMessage
from protocol.commands import Command, ExtensionUIResponse
from protocol.entries import EntryUnion
from protocol.events import AssistantEventUnion, EventUnion, MessageUpdate, UnknownAssistantEvent
from protocol.extension_ui import UIRequestUnion, UnknownUIRequest
from protocol.messages import BlockUnion, MessageUnion, Usage
from protocol.responses import DATA_TYPES, Response


class Unknown(msgspec.Struct, frozen=True):
    """A record whose `type` (or extension UI `method`) pideck does not know."""

    type: str
    raw: dict[str, Any]


class ProtocolError(msgspec.Struct, frozen=True):
    """A line that could not be read as a record: not UTF-8, not JSON, or failed typing."""

    raw: bytes
    error: str


_OPEN: dict[type, tuple[Any, type]] = {
    AnyBlock: (BlockUnion, UnknownBlock),
    AnyMessage: (MessageUnion, UnknownMessage),
    AnyEntry: (EntryUnion, UnknownEntry),
}


def dec_hook(tp: type, obj: Any) -> Any:
    """Decode the open unions; what does not fit is wrapped, not rejected."""
    try:
        union, unknown = _OPEN[tp]
    except KeyError:
        raise NotImplementedError(f"no decoder for {tp!r}") from None
    if not isinstance(obj, dict):
        raise msgspec.ValidationError(f"expected an object, got {type(obj).__name__}")
    try:
        return msgspec.convert(obj, union, dec_hook=dec_hook)
    except msgspec.ValidationError:
        return unknown(raw=obj)


KNOWN_TYPES: frozenset[str] = frozenset(
    cls.__struct_config__.tag for cls in typing.get_args(EventUnion | Response)
) | {"extension_ui_request"}

_decoder = msgspec.json.Decoder(EventUnion | Response, dec_hook=dec_hook)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()

Decoded = Any  # an Event, Response, UIRequest, UnknownUIRequest, Unknown or ProtocolError


def _type_data(response: Response) -> Response:
    data_type = DATA_TYPES.get(response.command)
    if data_type is None or response.data is None or not response.success:
        return response
    try:
        response.data = msgspec.convert(response.data, data_type, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        response.data_error = str(exc)
    return response


def decode(line: bytes) -> Decoded:
    """One record from one LF-free line of pi's stdout."""
    try:
        record = _decoder.decode(line)
    except msgspec.DecodeError as exc:
        return _decode_slow(line, exc)
    if type(record) is Response:
        return _type_data(record)
    return record


def _decode_slow(line: bytes, first_error: msgspec.DecodeError) -> Decoded:
    try:
        obj = _any_decoder.decode(line)
    except msgspec.DecodeError as exc:
        return ProtocolError(raw=bytes(line), error=f"not JSON: {exc}")
    if not isinstance(obj, dict):
        return ProtocolError(raw=bytes(line), error=f"not a JSON object: {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "extension_ui_request":
        try:
            return msgspec.convert(obj, UIRequestUnion)
        except msgspec.ValidationError as exc:
            method = obj.get("method")
            if isinstance(method, str) and "method" in str(exc) and isinstance(obj.get("id"), str):
                return UnknownUIRequest(id=obj["id"], method=method, raw=obj)
            return ProtocolError(raw=bytes(line), error=f"bad extension_ui_request: {exc}")
    if kind == "message_update" and isinstance(obj.get("assistantMessageEvent"), dict):
        inner = obj["assistantMessageEvent"]
        try:
            msgspec.convert(inner, AssistantEventUnion)
        except msgspec.ValidationError:
            usage = _convert_or_none(obj.get("usage"), Usage)
            index = inner.get("contentIndex")
            return MessageUpdate(
                assistant_message_event=UnknownAssistantEvent(  # type: ignore[arg-type]
                    raw=inner, content_index=index if isinstance(index, int) else -1
                ),
                usage=usage,
            )
    if not isinstance(kind, str):
        return ProtocolError(raw=bytes(line), error="record has no string `type`")
    if kind not in KNOWN_TYPES:
        return Unknown(type=kind, raw=obj)
    return ProtocolError(raw=bytes(line), error=f"bad {kind} record: {first_error}")


def _convert_or_none(obj: Any, tp: type) -> Any:
    try:
        return msgspec.convert(obj, tp)
    except msgspec.ValidationError:
        return None


def encode(command: Command | ExtensionUIResponse) -> bytes:
    """One LF-terminated JSON line for pi's stdin."""
    return _encoder.encode(command) + b"\n"
