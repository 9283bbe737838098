"""Text that grows by appends and is joined only when read (`CleanedText`: and cleaned of
control sequences as it grows).

`text += delta` on an attribute copies the whole text every time, which grows with the
square of a long streamed reply (a 30,000-delta reply spent seconds in it); parts kept
in a list and joined on the next read cost each character once.
"""

from __future__ import annotations

from protocol.control_codes import clean, unfinished_at


class JoinedText:
    __slots__ = ("_parts", "_text")

    def __init__(self, text: str = "") -> None:
        self._text = text
        self._parts: list[str] = []

    def append(self, part: str) -> str:
        """Add `part`; returns what it adds to the text (`part`)."""
        self._parts.append(part)
        return part

    def __str__(self) -> str:
        if self._parts:
            self._text += "".join(self._parts)
            self._parts.clear()
        return self._text


MAX_HELD = 4_096
"""Characters of an unfinished control sequence held back at most: a string (OSC, DCS…)
that is never terminated shows, without its introducer, once it is this long."""


class CleanedText(JoinedText):
    """Streamed text kept cleaned of control sequences (`control_codes.clean`), as if each
    read cleaned all of it: a sequence split across appends (`"hello \\x1b"` then
    `"[31mred"`) is held back until it is complete, then stripped whole."""

    __slots__ = ("_held",)

    def __init__(self, text: str = "") -> None:
        super().__init__(clean(text))
        self._held = ""

    def append(self, part: str) -> str:
        """Add streamed text; returns what it adds to the cleaned text."""
        raw = self._held + part
        cut = unfinished_at(raw)
        if len(raw) - cut > MAX_HELD:
            cut = len(raw)
        self._held = raw[cut:]
        added = clean(raw[:cut])
        if added:
            super().append(added)
        return added
