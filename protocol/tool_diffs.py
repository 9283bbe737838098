"""pi's `edit` results read for display: the numbered display diff in `details.diff`,
the unified patch in `details.patch`, and which words of a changed line changed.

pi writes its display diff (`dist/core/tools/edit-diff.js`) one line per row:
`+12 added`, `-12 removed`, ` 12 context`, and `     ...` (blank number) for
skipped unchanged lines. Anything else is not pi's format, and callers fall back to
the result's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

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


def display_diff(details: Any) -> list[DiffLine] | None:
    """The lines of pi's display diff in `details`; None when there is none or it is
    not in pi's format."""
    diff = detail(details, "diff")
    if diff is None:
        return None
    lines: list[DiffLine] = []
    for raw in diff.split("\n"):
        match = _LINE.fullmatch(raw)
        if match is None:
            return None
        kind, number, text = match.groups()
        if kind == CONTEXT and not number.strip():
            if text != "...":
                return None
            kind = SKIPPED
        lines.append(DiffLine(kind, number, text))
    return lines


def diff_counts(lines: list[DiffLine]) -> tuple[int, int]:
    """(lines added, lines removed)."""
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


def changed_spans(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (start, end) character ranges that differ between a removed line and the line
    that replaced it, word by word, as pi emphasises them: the indentation both share
    and the whitespace before a change are never part of a range."""
    indent = 0
    while indent < min(len(old), len(new)) and old[indent] == new[indent] and old[indent].isspace():
        indent += 1
    old_words, new_words = _WORDS.findall(old[indent:]), _WORDS.findall(new[indent:])
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    matcher = SequenceMatcher(None, old_words, new_words, autojunk=False)
    old_at = new_at = indent
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old_len, new_len = sum(map(len, old_words[i1:i2])), sum(map(len, new_words[j1:j2]))
        if tag != "equal":
            for spans, words, start, length in ((old_spans, old_words[i1:i2], old_at, old_len), (new_spans, new_words[j1:j2], new_at, new_len)):
                lead = len(words[0]) if words and words[0].isspace() else 0
                trail = len(words[-1]) if len(words) > 1 and words[-1].isspace() else 0
                if length - lead - trail > 0:
                    spans.append((start + lead, start + length - trail))
        old_at, new_at = old_at + old_len, new_at + new_len
    return old_spans, new_spans
