"""pi's `edit` results read for display: the numbered display diff in `details.diff`,
the unified patch in `details.patch`, and which words of a changed line changed.

pi writes its display diff (`dist/core/tools/edit-diff.js`) one line per row:
`+12 added`, `-12 removed`, ` 12 context`, and `     ...` (blank number) for
skipped unchanged lines. Anything else is not pi's format, and callers fall back to
the result's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, overload

ADDED, REMOVED, CONTEXT, SKIPPED = "+", "-", " ", "..."

_LINE = re.compile(r"([+\- ])( *\d*) (.*)", re.DOTALL)
_WORDS = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # ADDED, REMOVED, CONTEXT or SKIPPED
    number: str  # as pi padded it: every number in one diff has the same width
    text: str


def detail(details: Any, key: str) -> str | None:
    """`details[key]` when it is a non-empty string, else None."""
    value = details.get(key) if isinstance(details, dict) else None
    return value if isinstance(value, str) and value else None


_ROW = r"[+\-] *\d* [^\n]*| +\d+ [^\n]*|  +\.\.\."  # the rows _LINE reads, a blank-numbered context row only as a skip
_DIFF = re.compile(rf"(?:{_ROW})(?:\n(?:{_ROW}))*")


class DiffLines(Sequence[DiffLine]):
    """The lines of a display diff, each read when asked for: a diff of a million lines
    is checked and counted at C speed, and only the rows shown become `DiffLine`s."""

    def __init__(self, diff: str) -> None:
        self._rows = diff.split("\n")
        self.added = diff.count("\n+") + diff.startswith("+")
        self.removed = diff.count("\n-") + diff.startswith("-")

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> DiffLine: ...

    @overload
    def __getitem__(self, index: slice) -> list[DiffLine]: ...

    def __getitem__(self, index: int | slice) -> DiffLine | list[DiffLine]:
        if isinstance(index, slice):
            return [_read(row) for row in self._rows[index]]
        return _read(self._rows[index])


def _read(row: str) -> DiffLine:
    match = _LINE.fullmatch(row)
    assert match is not None, "DiffLines holds only rows _DIFF accepted"
    kind, number, text = match.groups()
    return DiffLine(SKIPPED if kind == CONTEXT and not number.strip() else kind, number, text)


def display_diff(details: Any) -> DiffLines | None:
    """The lines of pi's display diff in `details`; None when there is none or it is
    not in pi's format."""
    diff = detail(details, "diff")
    if diff is None or _DIFF.fullmatch(diff) is None:
        return None
    return DiffLines(diff)


def diff_counts(lines: Sequence[DiffLine]) -> tuple[int, int]:
    """(lines added, lines removed)."""
    if isinstance(lines, DiffLines):
        return lines.added, lines.removed
    added = sum(1 for line in lines if line.kind == ADDED)
    return added, sum(1 for line in lines if line.kind == REMOVED)


def patch_counts(patch: str) -> tuple[int, int]:
    """(lines added, lines removed) of a unified diff, its file headers left out."""
    added = removed = 0
    for line in patch.split("\n"):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


WORD_DIFF_BUDGET = 250_000  # words × words: a larger changed region is marked whole, not diffed word by word


def changed_spans(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (start, end) character ranges that differ between a removed line and the line
    that replaced it, word by word, as pi emphasises them: the indentation both share
    and the whitespace before a change are never part of a range.

    The work is bounded whatever the lines' length: the characters both lines start and
    end with are set aside first (a one-token change in a minified 5 MB line diffs one
    word against one word), and a changed region of more than WORD_DIFF_BUDGET word pairs
    is one range on each side (pi's word diff, jsdiff's, has no bound: it takes the
    lines' length times the number of changes)."""
    indent = 0
    while indent < min(len(old), len(new)) and old[indent] == new[indent] and old[indent].isspace():
        indent += 1
    start, old_end, new_end = _changed_region(old, new, indent)
    old_words, new_words = _WORDS.findall(old, start, old_end), _WORDS.findall(new, start, new_end)
    if len(old_words) * len(new_words) > WORD_DIFF_BUDGET:
        return _trimmed(old, start, old_end), _trimmed(new, start, new_end)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    old_at = new_at = start
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old_len, new_len = sum(map(len, old_words[i1:i2])), sum(map(len, new_words[j1:j2]))
        if tag != "equal":
            for spans, words, at, length in ((old_spans, old_words[i1:i2], old_at, old_len), (new_spans, new_words[j1:j2], new_at, new_len)):
                lead = len(words[0]) if words and words[0].isspace() else 0
                trail = len(words[-1]) if len(words) > 1 and words[-1].isspace() else 0
                if length - lead - trail > 0:
                    spans.append((at + lead, at + length - trail))
        old_at, new_at = old_at + old_len, new_at + new_len
    return old_spans, new_spans


def _changed_region(old: str, new: str, start: int) -> tuple[int, int, int]:
    """(start, old end, new end): the part of both lines after `start` that is not their
    common beginning and end, widened to whole words."""
    limit = min(len(old), len(new)) - start
    prefix = _common_length(lambda n: old[start : start + n] == new[start : start + n], limit)
    suffix = _common_length(lambda n: old[len(old) - n :] == new[len(new) - n :], limit - prefix)
    begin = start + prefix
    if begin > start and _run_class(old[begin - 1]):  # inside a word or a space: from its start
        kind = _run_class(old[begin - 1])
        while begin > start and _run_class(old[begin - 1]) == kind:
            begin -= 1
    old_end, new_end = len(old) - suffix, len(new) - suffix
    if suffix and (kind := _run_class(old[old_end])):  # ... and to its end
        run = 0
        while run < suffix and _run_class(old[old_end + run]) == kind:
            run += 1
        old_end, new_end = old_end + run, new_end + run
    return begin, old_end, new_end


def _common_length(same: Callable[[int], bool], limit: int) -> int:
    """The largest n <= limit with same(n), for a `same` that holds up to some n and not
    after: a binary search of slices compared at C speed."""
    low, high = 0, max(0, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _run_class(char: str) -> str:
    """"w" for a word character, "s" for a space (both make runs that are one word), "" else."""
    return "s" if char.isspace() else "w" if char.isalnum() or char == "_" else ""


def _trimmed(line: str, start: int, end: int) -> list[tuple[int, int]]:
    """The range start..end without the spaces it begins and ends with; none if that is all."""
    while start < end and line[start].isspace():
        start += 1
    while end > start and line[end - 1].isspace():
        end -= 1
    return [(start, end)] if start < end else []
