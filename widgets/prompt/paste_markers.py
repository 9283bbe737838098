"""Large pastes as markers in the prompt, as pi's editor shows them.

A paste of more than 10 lines or 1000 characters goes into the prompt as one marker,
`[paste #1 +201 lines]` (or `[paste #2 1500 chars]`), pi's exact format and threshold
(pi-tui's editor); the text is kept here and put back in its place when the message is
sent, so pi, the transcript and the session get all of it. A marker whose number has no
paste kept is plain text. The marker forms of messages sent are remembered for a while
(`remember`), so a message that comes back (Esc or Alt+Up on pi's queue, a prompt pi
refused) comes back as it was typed, markers and all, not as hundreds of lines.
"""

from __future__ import annotations

import re

MAX_LINES = 10  # a paste of more lines than this, or
MAX_CHARS = 1000  # more characters, becomes a marker
MAX_REMEMBERED = 32  # messages sent whose marker form is kept
MARKER = re.compile(r"\[paste #(\d+)( (?:\+\d+ lines|\d+ chars))?\]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def cleaned(text: str) -> str:
    """A paste's text with CR LF and CR as LF, and no control characters but tab and LF."""
    return _CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def is_large(text: str) -> bool:
    return text.count("\n") + 1 > MAX_LINES or len(text) > MAX_CHARS


class Pastes:
    """The large pastes of the prompt being written, by number."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}
        self._count = 0
        self._sent: dict[str, tuple[str, dict[int, str]]] = {}  # expanded text: (marker form, its pastes)

    def add(self, text: str) -> str:
        """Keep a large paste; its marker, for the prompt."""
        self._count += 1
        self._texts[self._count] = text
        lines = text.count("\n") + 1
        return f"[paste #{self._count} +{lines} lines]" if lines > MAX_LINES else f"[paste #{self._count} {len(text)} chars]"

    def marker_at(self, line: str, column: int, *, before: bool) -> tuple[int, int] | None:
        """The (start, end) columns of a kept paste's marker that ends at `column` (`before`)
        or starts there."""
        for match in MARKER.finditer(line):
            if (match.end() if before else match.start()) == column and int(match[1]) in self._texts:
                return match.start(), match.end()
        return None

    def forget(self, marker: str) -> None:
        if (match := MARKER.fullmatch(marker)) is not None:
            self._texts.pop(int(match[1]), None)

    def expand(self, text: str) -> str:
        """`text` with each kept paste's marker replaced by the paste (in one pass: a marker
        inside a paste stays as it is)."""
        if not self._texts or "[paste #" not in text:
            return text
        return MARKER.sub(lambda m: self._texts.get(int(m[1]), m[0]), text)

    def sent(self, text: str) -> str:
        """The text of the prompt being sent, expanded; its marker form is remembered and the
        pastes let go."""
        expanded = self.expand(text)
        if expanded != text:
            used = {n: p for n, p in self._texts.items() if re.search(rf"\[paste #{n}[ \]]", text)}
            self._sent.pop(expanded, None)
            self._sent[expanded] = (text, used)
            while len(self._sent) > MAX_REMEMBERED:
                del self._sent[next(iter(self._sent))]
        self._texts.clear()
        self._count = 0  # as in pi, the next prompt's pastes count from 1
        return expanded

    def given_back(self, text: str) -> str:
        """A message that came back, for the prompt: as it was typed if it was sent from
        here (its pastes kept again, under new numbers), as a marker if it is large, else
        as it is."""
        if (typed := self._sent.pop(text, None)) is None:
            return self.add(text) if is_large(text) else text
        form, pastes = typed
        numbers = {n: self.add(paste) for n, paste in pastes.items()}
        return MARKER.sub(lambda m: numbers.get(int(m[1]), m[0]), form)
