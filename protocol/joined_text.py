"""Text that grows by appends and is joined only when read.

`text += delta` on an attribute copies the whole text every time, which grows with the
square of a long streamed reply (a 30,000-delta reply spent seconds in it); parts kept
in a list and joined on the next read cost each character once.
"""

from __future__ import annotations


class JoinedText:
    __slots__ = ("_parts", "_text")

    def __init__(self, text: str = "") -> None:
        self._text = text
        self._parts: list[str] = []

    def append(self, part: str) -> None:
        self._parts.append(part)

    def __str__(self) -> str:
        if self._parts:
            self._text += "".join(self._parts)
            self._parts.clear()
        return self._text
