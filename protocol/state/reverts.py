"""Putting a file back: its hunks applied or reversed exactly, one file's changes as one
patch, and what a revert would write (pure logic over text and bytes; the Changes view's
reverts do the reading and writing, app/pi/file_reverts.py).

A hunk applies only where its lines are, exactly, in the file (the nearest such place to
the line its header names): a revert never guesses. Text is matched as pi's edit tool
matches it: a UTF-8 byte order mark and CRLF line ends are set aside and put back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import unified_diff

from protocol.state.file_changes import NO_NEWLINE, Change

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
BOM = "\ufeff"


class NotExact(Exception):
    """The change cannot be applied or reversed exactly; the message says why."""


@dataclass(frozen=True, slots=True)
class Hunk:
    old_start: int  # 1-based, as in the header (0: an empty side)
    new_start: int
    old: tuple[str, ...]  # lines with their ends ("\n"; the last may have none)
    new: tuple[str, ...]
    index: int  # its place among its change's lines (of the `@@` line)
    lead: int = 0  # lines of context before its first change
    trail: int = 0  # and after its last

    @property
    def new_lines(self) -> tuple[int, int]:
        """The first and last line the hunk changed, as the change left the file (a removal
        counts as the line after it)."""
        first = max(self.new_start, 1) + self.lead
        return first, max(first, self.new_start + len(self.new) - 1 - self.trail)


def hunks(lines: Sequence[str]) -> list[Hunk]:
    """The hunks of a change's lines (an edit's or write's patch; `change.patch` only)."""
    found: list[Hunk] = []
    header: re.Match[str] | None = None
    old: list[str] = []
    new: list[str] = []
    at = 0
    last: list[list[str]] = []  # the sides the previous line went to
    marks: list[str] = []

    def close() -> None:
        if header is not None:
            changed, line = [], 0  # where, on the new side, each changed line is (a removed one: before the next)
            for mark in marks:
                if mark != " ":
                    changed.append(min(line, max(len(new) - 1, 0)))
                line += mark != "-"
            lead = min(changed) if changed else 0
            trail = max(len(new) - 1 - max(changed), 0) if changed else 0
            found.append(Hunk(int(header[1]), int(header[3]), tuple(old), tuple(new), at, lead, trail))

    for index, line in enumerate(lines):
        if line.startswith("@@"):
            close()
            header = _HEADER.match(line)
            if header is None:
                raise NotExact(f"not a hunk header: {line[:80]}")
            old, new, at, last, marks = [], [], index, [], []
        elif header is None:
            raise NotExact("lines before the first hunk")
        elif line == NO_NEWLINE:
            for side in last:
                side[-1] = side[-1].removesuffix("\n")
        else:
            mark, text = line[:1], line[1:] + "\n"
            marks.append(mark)
            last = [old] if mark == "-" else [new] if mark == "+" else [old, new]
            for side in last:
                side.append(text)
    close()
    return found


def _lines(text: str) -> list[str]:
    """`text` as lines with their "\\n" ends (only "\\n" ends a line, as in pi's patches)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _find(lines: list[str], wanted: tuple[str, ...], near: int) -> int | None:
    """Where `wanted` is in `lines`, the nearest place to `near`; None when nowhere."""
    size = len(wanted)
    if not size:
        return max(0, min(near, len(lines)))
    places = [at for at in range(len(lines) - size + 1) if lines[at] == wanted[0] and tuple(lines[at:at + size]) == wanted]
    return min(places, key=lambda at: abs(at - near)) if places else None


def apply(text: str, chosen: Sequence[Hunk], *, reverse: bool = False) -> str:
    """`text` with `chosen` hunks applied (or, with `reverse`, undone), each only where its
    lines are exactly; NotExact when one's are not."""
    lines = _lines(text)
    shift = 0
    for hunk in sorted(chosen, key=lambda h: h.new_start if reverse else h.old_start):
        src, dst, start = (hunk.new, hunk.old, hunk.new_start) if reverse else (hunk.old, hunk.new, hunk.old_start)
        near = max(0, start - 1) + shift if src else start + shift
        at = _find(lines, src, near)
        if at is None:
            where = lines_named(*hunk.new_lines) if reverse else f"line {start}"
            raise NotExact(f"the change at {where} is no longer there as it left it")
        lines[at:at + len(src)] = dst
        shift += len(dst) - len(src)
    return "".join(lines)


def decode(data: bytes) -> tuple[str, str, bool]:
    """A file's bytes as text to match hunks against: (text, BOM or "", whether its lines end in CRLF)."""
    text = data.decode("utf-8", "surrogateescape")
    bom = BOM if text.startswith(BOM) else ""
    text = text.removeprefix(bom)
    crlf = "\r\n" in text
    return (text.replace("\r\n", "\n") if crlf else text), bom, crlf


def encode(text: str, bom: str, crlf: bool) -> bytes:
    return (bom + (text.replace("\n", "\r\n") if crlf else text)).encode("utf-8", "surrogateescape")


def apply_bytes(data: bytes, chosen: Sequence[Hunk], *, reverse: bool = False) -> bytes:
    text, bom, crlf = decode(data)
    return encode(apply(text, chosen, reverse=reverse), bom, crlf)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def diff_lines(old: bytes | None, new: bytes | None, context: int = 3) -> list[str]:
    """The hunk lines from `old` to `new` (None: no file), with diff's no-newline notes."""
    lines = []
    for line in unified_diff(_lines(_text(old or b"")), _lines(_text(new or b"")), n=context, lineterm=""):
        if line.startswith(("---", "+++")) and not lines:
            continue
        if line.startswith("@@"):
            lines.append(line.rstrip("\n"))
        elif line.endswith("\n"):
            lines.append(line[:-1])
        else:
            lines.extend((line, NO_NEWLINE))
    return lines


def is_binary(data: bytes | None) -> bool:
    return data is not None and b"\0" in data[:65536]


def file_patch(path: str, before: bytes | None, after: bytes | None) -> str:
    """One patch from `before` to `after` (None: no file), for `patch -p0` in pi's working
    directory: `path` relative to it, `/dev/null` for a file created or removed."""
    lines = diff_lines(before, after)
    if not lines:
        return ""
    old = path if before is not None else "/dev/null"
    new = path if after is not None else "/dev/null"
    return "\n".join((f"--- {old}", f"+++ {new}", *lines)) + "\n"


@dataclass(frozen=True, slots=True)
class Replayed:
    before: bytes | None  # None: there was no file
    after: bytes | None
    assumed_new: bool = False  # no checkpoint: a file first written by pi is taken as new


def replay(changes: Sequence[Change], now: bytes | None) -> Replayed:
    """What a file held before its first change and after its last, from the changes alone
    (no checkpoints): forward from a write that made it (taken as new), else back from
    `now`, what the file holds now. NotExact when the changes do not say."""
    if not changes:
        raise NotExact("no changes")
    if not all(change.patch for change in changes):
        raise NotExact("pi sent no patch for one of its changes")
    if changes[0].created:
        state: bytes | None = None
        for change in changes:
            if change.created:
                state = apply_bytes(b"", hunks(change.lines))
            else:
                state = apply_bytes(state or b"", hunks(change.lines))
        return Replayed(None, state, assumed_new=True)
    if now is None:
        raise NotExact("the file is not there to work back from")
    state = now
    for change in reversed(changes):
        if change.created:
            raise NotExact("a write replaced the whole file after it was edited: what it held then is not known")
        state = apply_bytes(state, hunks(change.lines), reverse=True)
    return Replayed(state, now)


@dataclass(slots=True)
class Plan:
    """A revert to ask about: the file `path` (absolute; `label` as the view shows it) goes
    from `old` to `new` (None: no file, i.e. removed or absent)."""

    path: str
    label: str
    what: str  # "lines 3–5" / "the whole file"
    old: bytes | None
    new: bytes | None
    problem: str = ""  # why it cannot be done exactly (then nothing is written)
    conflict: tuple[bytes | None, bytes | None, bytes | None] | None = None  # before (a hunk's: after it), pi's, now
    lines: list[str] = field(default_factory=list)  # the diff from old to new

    def __post_init__(self) -> None:
        if not self.problem and not self.lines:
            self.lines = diff_lines(self.old, self.new)


def file_plan(label: str, path: str, before: bytes | None, expected: bytes | None, now: bytes | None) -> Plan:
    """Revert a whole file to `before`, refusing (a conflict) when it no longer holds what
    pi (or pideck's last revert) left in it, `expected`."""
    plan = Plan(path, label, "the whole file", now, before)
    if now != expected:
        plan.conflict = (before, expected, now)
    return plan


def lines_named(first: int, last: int) -> str:
    """"line 4" or "lines 4–6"."""
    return f"line {first}" if first == last else f"lines {first}–{last}"


def hunk_plan(label: str, path: str, hunk: Hunk, expected: bytes | None, now: bytes | None) -> Plan:
    what = lines_named(*hunk.new_lines)
    if now is None:
        return Plan(path, label, what, None, None, problem=f"{label} is not there any more")
    try:
        new = apply_bytes(now, [hunk], reverse=True)
    except NotExact as exc:
        return Plan(path, label, what, now, now, problem=str(exc))
    plan = Plan(path, label, what, now, new)
    if expected is not None and now != expected:
        plan.conflict = (new, expected, now)  # the first: the file as the revert would leave it
    return plan
