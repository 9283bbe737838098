"""pi RPC protocol: typed records, framing, the asyncio client and the session model.

Nothing in this package imports Textual (tests/unit/test_architecture.py checks it).
"""

from protocol.wire.codec import KNOWN_TYPES, ProtocolError, Unknown, decode, encode
from protocol.wire.framing import LineFramer

__all__ = ["KNOWN_TYPES", "LineFramer", "ProtocolError", "Unknown", "decode", "encode"]
