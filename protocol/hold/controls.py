"""What a window may ask the holder in a control frame, decoded into types: anything else
(a field of the wrong type, a value nested beyond msgspec's depth) is a BadFrame, which ends
that connection with one line in the log.

The `op` and `protocol` are read first, so a spawn or attach of another pideck version,
whatever else it holds, is answered that it is another version's."""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.hold.frames import BadFrame


class Op(msgspec.Struct):
    op: str = ""
    protocol: Any = None


class Spawn(msgspec.Struct, tag="spawn", tag_field="op"):
    argv: list[str]
    env: dict[str, str]
    cwd: str
    protocol: int = 0
    window: dict[str, Any] = {}
    idle_close: float | None = None
    spawned: str | None = None  # the token of the pi a holder forked for this window spawned (protocol/hold/early.py)
    resumes: int | None = None  # the number of a pi the holder closed idle, started again on its session file
    drafts: list[str] = []  # and the drafts windows left with it that this window took into its prompt


class Attach(msgspec.Struct, tag="attach", tag_field="op"):
    number: int
    protocol: int = 0
    drafts: list[str] = []  # the drafts windows left that this window took into its prompt


class List(msgspec.Struct, tag="list", tag_field="op"):
    drafts: bool = False


class Stop(msgspec.Struct, tag="stop", tag_field="op"):
    number: int | None = None
    all: bool = False


class CloseStdin(msgspec.Struct, tag="close_stdin", tag_field="op"):
    pass


class Signal(msgspec.Struct, tag="signal", tag_field="op"):
    signal: int


class Detach(msgspec.Struct, tag="detach", tag_field="op"):
    draft: str | None = None


class Draft(msgspec.Struct, tag="draft", tag_field="op"):
    text: str  # a piece of the window's draft
    more: bool = False  # another piece follows


Control = Spawn | Attach | List | Stop | CloseStdin | Signal | Detach | Draft
_op = msgspec.json.Decoder(Op)
_control = msgspec.json.Decoder(Control)


def read_op(payload: bytes) -> Op:
    """What a control frame asks for and of which protocol, read before the rest."""
    return _decode(_op, payload)


def read(payload: bytes) -> Control:
    """A window's control frame, typed; BadFrame when it is not one the holder takes."""
    return _decode(_control, payload)


def _decode(decoder: msgspec.json.Decoder[Any], payload: bytes) -> Any:
    try:
        return decoder.decode(payload)
    except msgspec.ValidationError as exc:
        raise BadFrame(f"a control frame the holder cannot take: {str(exc)[:200]}") from None
    except msgspec.DecodeError as exc:
        raise BadFrame(f"a control frame is not JSON: {str(exc)[:200]}") from None
    except RecursionError:
        raise BadFrame("a control frame nested too deep") from None
