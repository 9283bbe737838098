"""pi's wire: records typed with msgspec, strict JSONL framing, the codec, and the asyncio client
that owns a `pi --mode rpc` child (and the reader of `pideck view`'s files).
"""
