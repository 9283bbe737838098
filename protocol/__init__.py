"""pi RPC protocol: typed records, framing, the asyncio client and the session model.

Nothing in this package imports Textual (tests/unit/test_architecture.py checks it).
The codec is imported when one of its names below is first asked for, not with every
module of the package: `protocol.numbers` and the child's spawn come before it at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from protocol.wire.codec import KNOWN_TYPES, ProtocolError, Unknown, decode, encode
    from protocol.wire.framing import LineFramer

__all__ = ["KNOWN_TYPES", "LineFramer", "ProtocolError", "Unknown", "decode", "encode"]


def __getattr__(name: str) -> Any:
    if name == "LineFramer":
        from protocol.wire.framing import LineFramer

        return LineFramer
    if name in __all__:
        from protocol.wire import codec

        return getattr(codec, name)
    raise AttributeError(f"module 'protocol' has no attribute {name!r}")
