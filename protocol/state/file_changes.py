"""The files a session changed through pi's `edit` and `write` tools, for the Changes
view (`/diff`), read from its tool runs (live or loaded from the session file).

The calls come from the session's branch (protocol/state/branch_calls.py), each named by
where it is (`CallKey`), since tool call ids may repeat. An edit's change is pi's unified patch of the file (`details.patch`,
`dist/core/tools/edit-diff.js`: `--- path`, `+++ path`, then hunks with 4 lines of
context). A write is the file's new content, all added, or its diff against what the
last write of the same file in this session wrote, when nothing changed it since. Failed
and unfinished runs are left out. A `bash` command's changes come from pideck's
checkpoints, when `bash` (given) finds them: each file it changed, as a diff.
Changes are kept as hunk lines (`@@ …`, `+…`, `-…`, ` …`, `\\ No newline…`), without
file headers; protocol/state/reverts.py makes one patch of a file's changes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import unified_diff
from typing import Any

from protocol.state.branch_calls import BranchCall, CallKey
from protocol.state.tool_diffs import detail

CONTEXT_LINES = 4  # as pi's patches have
NO_NEWLINE = "\\ No newline at end of file"
_HUNK_LINE_STARTS = ("@@", "+", "-", " ", "\\")


@dataclass(frozen=True, slots=True)
class BashFile:
    """A file a bash command changed: what it held before and after (None: no file; a
    version pideck has no copy of: `note` says why)."""

    path: str  # absolute
    before: bytes | None
    after: bytes | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class Change:
    call: CallKey | str  # where its tool call is; a revert pideck made: "pideck-revert-N"
    tool: str  # "edit", "write" or "bash"
    lines: tuple[str, ...]  # hunk lines, no file headers
    added: int
    removed: int
    patch: bool = True  # lines are a patch of the file; False: an edit's own old and new text, or nothing
    created: bool = False  # a write with nothing earlier to compare with: its patch creates the file
    note: str = ""  # why there is no patch


@dataclass(slots=True)
class FileChanges:
    path: str  # relative to pi's working directory when inside it
    changes: list[Change] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(change.added for change in self.changes)

    @property
    def removed(self) -> int:
        return sum(change.removed for change in self.changes)


def display_path(path: str, cwd: str) -> str:
    """`path` as pi resolves it (`@` and `~` expanded, against `cwd`), relative to `cwd`
    when inside it, so `./a.py` and `a.py` are one file."""
    path = path.removeprefix("@")
    if path == "~" or path.startswith("~/"):
        path = os.path.expanduser(path)
    full = os.path.normpath(os.path.join(cwd, path))
    base = os.path.normpath(cwd)
    inside = full.startswith(base.rstrip(os.sep) + os.sep)
    return os.path.relpath(full, base) if inside else full


def file_changes(calls: Iterable[BranchCall], cwd: str,
                 bash: Callable[[CallKey], Sequence[BashFile]] | None = None) -> list[FileChanges]:
    """The files changed by the finished, successful `edit` and `write` calls (given in
    order), and by finished `bash` calls (their files from `bash(key)`), in the order they
    were last changed, the latest last."""
    files: dict[str, FileChanges] = {}
    written: dict[str, str] = {}  # a file's content as the last change (a write or bash) left it
    for run in calls:
        if run.name == "bash" and run.done and bash is not None:
            for changed in bash(run.key):
                key = display_path(changed.path, cwd)
                change = _bash(run.key, changed)
                if changed.after is not None and not changed.note:
                    written[key] = changed.after.decode("utf-8", "replace")
                else:
                    written.pop(key, None)
                entry = files.pop(key, None) or FileChanges(key)
                entry.changes.append(change)
                files[key] = entry
            continue
        if run.name not in ("edit", "write") or not run.done or run.is_error or not isinstance(run.args, dict):
            continue
        path = run.args.get("path")
        if not isinstance(path, str) or not path:
            continue
        key = display_path(path, cwd)
        if run.name == "edit":
            change = _edit(run.key, run.details, run.args)
            written.pop(key, None)
        else:
            content = run.args.get("content")
            if not isinstance(content, str):
                continue
            change = _write(run.key, written.get(key), content)
            written[key] = content
        entry = files.pop(key, None) or FileChanges(key)
        entry.changes.append(change)
        files[key] = entry  # to the end: the latest changed last
    return list(files.values())


def patch_lines(patch: str) -> list[str] | None:
    """The hunk lines of a unified patch, its file headers left out; None when it is not one."""
    lines, _ = _hunk_text(patch)
    return lines


_FIRST_HUNK = re.compile(r"^@@", re.MULTILINE)
_HUNK_TEXT = re.compile(r"(?:(?:@@|[+\- \\])[^\n]*\n)*(?:(?:@@|[+\- \\])[^\n]*)?")


def _hunk_text(patch: str) -> tuple[list[str] | None, str]:
    """The hunk lines of a unified patch and their text (checked at C speed: a patch of
    a million lines is read in a few passes over the string); (None, "") when it is not one."""
    first = _FIRST_HUNK.search(patch)
    if first is None or _HUNK_TEXT.fullmatch(patch, first.start()) is None:
        return None, ""
    text = patch[first.start() :].removesuffix("\n")
    return text.split("\n"), text


def _counts(lines: list[str]) -> tuple[int, int]:
    added = sum(1 for line in lines if line.startswith("+"))
    return added, sum(1 for line in lines if line.startswith("-"))


def _edit(call: CallKey, details: Any, args: dict[str, Any]) -> Change:
    patch = detail(details, "patch")
    lines, text = _hunk_text(patch) if patch is not None else (None, "")
    if lines is not None:
        added, removed = (text.count("\n" + mark) + text.startswith(mark) for mark in "+-")
        return Change(call, "edit", tuple(lines), added, removed)
    asked = [edit for edit in _edits(args) if isinstance(edit.get("oldText"), str) and isinstance(edit.get("newText"), str)]
    if not asked:
        return Change(call, "edit", (), 0, 0, patch=False, note="pi sent no diff for this edit")
    lines = []
    for number, edit in enumerate(asked, 1):
        lines.append(f"@@ edit {number} of {len(asked)} @@")
        lines.extend("-" + line for line in edit["oldText"].split("\n"))
        lines.extend("+" + line for line in edit["newText"].split("\n"))
    return Change(call, "edit", tuple(lines), *_counts(lines), patch=False,
                  note="pi sent no diff: the text the edit replaced and its replacement")


def _edits(args: dict[str, Any]) -> list[dict[str, Any]]:
    """The replacements an edit asked for (`edits`, or the older single oldText/newText)."""
    edits = args.get("edits")
    found = [edit for edit in edits if isinstance(edit, dict)] if isinstance(edits, list) else []
    if isinstance(edits, dict):
        found.append(edits)
    if "oldText" in args:
        found.append(args)
    return found


def _write(call: CallKey, before: str | None, content: str) -> Change:
    if before is None:
        new = _split(content)
        lines = [f"@@ -0,0 +1,{len(new)} @@", *_marked("+", new)] if new else []
        return Change(call, "write", tuple(lines), len(new), 0, created=True)
    lines = []
    for line in unified_diff(_split(before), _split(content), n=CONTEXT_LINES, lineterm=""):
        if line.startswith(("---", "+++")) and not lines:
            continue
        lines.append(line)
    return Change(call, "write", tuple(_newline_notes(lines)), *_counts(lines))


def _bash(call: CallKey, changed: BashFile) -> Change:
    if changed.note:
        return Change(call, "bash", (), 0, 0, patch=False, note=changed.note)
    if b"\0" in (changed.before or b"")[:65536] or b"\0" in (changed.after or b"")[:65536]:
        return Change(call, "bash", (), 0, 0, patch=False, note="a binary file: no diff shown")
    before = changed.before.decode("utf-8", "replace") if changed.before is not None else None
    write = _write(call, before, changed.after.decode("utf-8", "replace") if changed.after is not None else "")
    note = "removed" if changed.after is None else ""
    return Change(call, "bash", write.lines, write.added, write.removed, created=write.created, note=note)


def _split(text: str) -> list[str]:
    """Lines with their ends ("\\n" only), so a last line without one differs from one with it."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _marked(mark: str, lines: list[str]) -> list[str]:
    return list(_newline_notes([mark + line for line in lines]))


def _newline_notes(lines: list[str]) -> Iterable[str]:
    """Lines without their ends; a line that had none is followed by diff's note."""
    for line in lines:
        if line.startswith("@@"):
            yield line.rstrip("\n")
        elif line.endswith("\n"):
            yield line[:-1].removesuffix("\r")
        else:
            yield line
            yield NO_NEWLINE
