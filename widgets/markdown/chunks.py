"""Cut streaming markdown into chunks that will not change any more.

A chunk ends at a blank line outside a fenced code block when the next line starts
flush left (so an indented continuation of a list item or a code block stays with
what it continues). Each finished chunk is rendered once; only the unfinished tail
is rendered again as deltas arrive. A tail that grows past `MAX_TAIL` characters
without such a boundary (one huge paragraph or code block) is cut at a line break,
closing the code fence and re-opening it in the next chunk, so no frame renders
more than a few kilobytes.
"""

from __future__ import annotations

import re

from protocol.state.joined_text import JoinedText

MAX_TAIL = 6_000
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


class MarkdownChunker:
    def __init__(self) -> None:
        self._fed = JoinedText()  # everything fed, as fed: `text`
        self.chunks: list[str] = []
        self.tail = ""
        self._scanned = 0  # offset in `tail` up to which whole lines were examined
        self._fence = ""  # the open fence marker, "" outside a fenced block
        self._fence_line = ""  # the line that opened it (re-opened after a forced cut)
        self._blank_end: int | None = None  # offset just after the last blank line outside a fence

    def feed(self, text: str) -> int:
        """Add streamed text; returns how many chunks it finished."""
        before = len(self.chunks)
        self._fed.append(text)
        self.tail += text
        self._scan()
        return len(self.chunks) - before

    @property
    def text(self) -> str:
        return str(self._fed)

    def _scan(self) -> None:
        while True:
            end = self.tail.find("\n", self._scanned)
            if end < 0:
                break
            start, self._scanned = self._scanned, end + 1
            self._line(self.tail[start:end])
            if self._scanned > MAX_TAIL:
                self._force_cut()
        # A partial line that already starts flush left confirms the boundary before it.
        if self._blank_end is not None and self._scanned < len(self.tail) and not self.tail[self._scanned].isspace():
            self._cut(self._blank_end)

    def _line(self, line: str) -> None:
        """Track fences and blank lines; cut before a flush-left line that follows a blank one."""
        if self._fence:
            stripped = line.strip()
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]):
                self._fence = ""
            return
        if not line.strip():
            self._blank_end = self._scanned
            return
        if self._blank_end is not None and not line[0].isspace():
            self._cut(self._blank_end)
        self._blank_end = None
        if match := _FENCE.match(line):
            self._fence, self._fence_line = match.group(1), line

    def _cut(self, at: int) -> None:
        self.chunks.append(self.tail[:at])
        self.tail = self.tail[at:]
        self._scanned -= at
        self._blank_end = None

    def _force_cut(self) -> None:
        """Cut at the end of the line just scanned (inside a fence: close it and re-open it)."""
        self._cut(self._scanned)
        if self._fence:
            self.chunks[-1] += self._fence + "\n"
            self.tail = self._fence_line + "\n" + self.tail
            self._scanned += len(self._fence_line) + 1
