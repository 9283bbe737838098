"""The files under pi's working directory, for `@` completion: listed once, searched per key.

`list_entries` lists the tree: `git ls-files` where the folder is in a git work tree, else a
walk that reads every `.gitignore` on the way (nested ones too); `.git`, `node_modules` and
the like are skipped either way. `FileIndex.search` ranks as pi's own `@` completion does
(`pi-tui`'s autocomplete): the name equal to the query, then names starting with it, then
names holding it, then paths holding it, a folder before a file of the same rank, the
shallower, shorter and alphabetically first path first; below pi's ranks come names, then
paths, holding the query's letters in order (fuzzy). A query with a `/` whose folder part is
a folder of the tree searches inside that folder, as pi's does.

The entries are kept sorted by that last order and lowercased into one string of names and
one of paths, so each rank is a few `str.find` (or one regular expression) over a string,
stopping at the `limit`th hit: the first candidates of a 100,000-file tree take
milliseconds. No Textual here; the screen builds the index in a thread.
"""

from __future__ import annotations

import bisect
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from protocol.files.config_files import read_text

SKIPPED = frozenset({
    ".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".venv",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
})  # fmt: skip
MAX_ENTRIES = 300_000  # a listing stops here (pi started in a home folder)
GIT_TIMEOUT = 20.0


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the listed folder, "/"-separated, no trailing "/"
    is_dir: bool


# --- listing ----------------------------------------------------------------------------


def list_entries(root: Path) -> list[Entry]:
    """The files and folders under `root`, ignored ones left out."""
    listed = _git_entries(root)
    return listed if listed is not None else _walk_entries(root)


def _git_entries(root: Path) -> list[Entry] | None:
    """From `git ls-files` (tracked and untracked, not ignored); None outside a work tree."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, timeout=GIT_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    files: dict[str, None] = {}
    folders: dict[str, None] = {}
    for raw in done.stdout.split(b"\0"):
        if not raw:
            continue
        path = os.fsdecode(raw)
        is_dir = path.endswith("/")  # an untracked nested repository
        parts = path.rstrip("/").split("/")
        if SKIPPED.intersection(parts):
            continue
        for depth in range(1, len(parts)):
            folders.setdefault("/".join(parts[:depth]))
        (folders if is_dir else files).setdefault("/".join(parts))
        if len(files) + len(folders) >= MAX_ENTRIES:
            break
    return [Entry(path, True) for path in folders] + [Entry(path, False) for path in files if path not in folders]


def _walk_entries(root: Path) -> list[Entry]:
    entries: list[Entry] = []
    stack: list[tuple[str, list[IgnoreRule]]] = [("", [])]
    while stack and len(entries) < MAX_ENTRIES:
        folder, rules = stack.pop()
        base = root / folder if folder else root
        rules = rules + read_gitignore(base / ".gitignore", folder)
        try:
            with os.scandir(base) as listing:
                found = list(listing)
        except OSError:
            continue
        for item in found:
            if item.name in SKIPPED:
                continue
            path = f"{folder}/{item.name}" if folder else item.name
            try:
                is_dir = item.is_dir()
            except OSError:
                continue
            if is_ignored(rules, path, is_dir):
                continue
            entries.append(Entry(path, is_dir))
            if is_dir and not item.is_symlink():
                stack.append((path, rules))
    return entries


# --- .gitignore ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IgnoreRule:
    pattern: re.Pattern[str]  # matched against the path relative to the listed folder
    negated: bool
    dir_only: bool


def read_gitignore(file: Path, folder: str) -> list[IgnoreRule]:
    """The rules of a `.gitignore` in `folder` (relative to the listed folder, "" for it)."""
    try:
        text = read_text(file, errors="replace")
    except (OSError, ValueError):  # none, or not a file pideck reads (a FIFO, a device, huge)
        return []
    return [rule for line in text.splitlines() if (rule := gitignore_rule(line, folder)) is not None]


def gitignore_rule(line: str, folder: str = "") -> IgnoreRule | None:
    """One `.gitignore` line as a rule (None for blanks and comments), as git reads it."""
    line = line.rstrip("\n\r")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # a slash at the start or in the middle: relative to the folder
    line = line.lstrip("/")
    body = _glob_to_regex(line)
    prefix = re.escape(folder + "/") if folder else ""
    where = prefix if anchored else prefix + "(?:.*/)?"
    try:
        return IgnoreRule(re.compile(f"{where}{body}(?:/.*)?", re.DOTALL), negated, dir_only)
    except re.error:  # not one git would read either: it ignores nothing
        return None


def _glob_to_regex(glob: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("/**", index) and index + 3 == len(glob):
            out.append("/.*")
            break
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            bracket = _bracket(glob, index)
            if bracket is None:  # unclosed, or an unknown [:class:]: git matches nothing
                return _NOTHING
            regex, index = bracket
            out.append(regex)
        elif char == "\\":
            if index + 1 == len(glob):  # a pattern that ends in a backslash: git matches nothing
                return _NOTHING
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


_NOTHING = "(?!)"
_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9",
    "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}  # fmt: skip


def _bracket(glob: str, start: int) -> tuple[str, int] | None:
    """The `[...]` at `glob[start]` as a regular expression and the index of its `]`, read
    as git's wildmatch reads it: `!` or `^` first negates, a `]` first is a member, `\\`
    escapes, `a-z` is a range (`z-a` holds only `z`, as in git, rather than being an error),
    `[:digit:]` a class; it never matches `/`. None when git matches nothing with it."""
    index = start + 1
    negated = index < len(glob) and glob[index] in "!^"
    index += negated
    members: list[str] = []
    previous: str | None = None  # the last single member, which a "-" may start a range from
    first = True
    while index < len(glob) and (first or glob[index] != "]"):
        first = False
        char = glob[index]
        if char == "\\":
            index += 1
            if index == len(glob):
                return None
            char = glob[index]
            members.append(re.escape(char))
            previous = char
        elif char == "-" and previous is not None and index + 1 < len(glob) and glob[index + 1] != "]":
            index += 1
            end = glob[index]
            if end == "\\":
                index += 1
                if index == len(glob):
                    return None
                end = glob[index]
            if previous <= end:  # (its start is a member already, as in git: `[z-a]` holds "z")
                members.append(f"{re.escape(previous)}-{re.escape(end)}")
            previous = None
        elif glob.startswith("[:", index):
            close = glob.find("]", index + 2)
            if close == -1:
                return None
            name = glob[index + 2 : close]
            if not name.endswith(":"):  # no ":]": the "[" is a member
                members.append(re.escape("["))
                previous = "["
            else:
                if name[:-1] not in _CLASSES:
                    return None
                members.append(_CLASSES[name[:-1]])
                previous = None
                index = close
        else:
            members.append(re.escape(char))
            previous = char
        index += 1
    if index >= len(glob):
        return None
    body = "".join(members)
    if negated:
        return f"[^/{body}]", index
    return (f"(?!/)[{body}]" if body else _NOTHING), index


def is_ignored(rules: list[IgnoreRule], path: str, is_dir: bool) -> bool:
    """Whether the last rule matching `path` ignores it (its folders are not ignored:
    the walk does not enter an ignored folder)."""
    for rule in reversed(rules):
        if rule.dir_only and not is_dir:
            # "build/" still matches files inside build/, which the walk never reaches
            continue
        if rule.pattern.fullmatch(path):
            return not rule.negated
    return False


# --- searching ----------------------------------------------------------------------------


class _Part:
    """The folders or the files of an index: names and paths lowercased into one string each."""

    def __init__(self, entries: list[Entry], cut: int) -> None:
        self.entries = entries
        names = [entry.path.rpartition("/")[2].lower() for entry in entries]
        paths = [entry.path[cut:].lower() for entry in entries]
        self.names, self.name_starts = _joined(names)
        self.paths, self.path_starts = _joined(paths)

    def hits(self, needle: str | re.Pattern[str], in_names: bool) -> Iterator[int]:
        """Indexes of the entries whose name (or path) holds `needle`, in order."""
        text, starts = (self.names, self.name_starts) if in_names else (self.paths, self.path_starts)
        position = 0
        while True:
            if isinstance(needle, str):
                found = text.find(needle, position)
            else:
                match = needle.search(text, position)
                found = match.start() if match else -1
            if found == -1:
                return
            index = bisect.bisect_right(starts, found + 1) - 1  # + 1: a needle may start with the "\n" before its line
            yield index
            if index + 1 == len(starts):
                return
            position = starts[index + 1] - 1  # the "\n" that starts the next line


def _joined(lines: list[str]) -> tuple[str, list[int]]:
    """"\\n" + each line + "\\n" in one string, and where each line starts."""
    starts: list[int] = []
    position = 1
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    return "\n" + "\n".join(lines) + "\n", starts


def _order(entry: Entry) -> tuple[int, int, str]:
    return entry.path.count("/"), len(entry.path), entry.path


class FileIndex:
    """Entries of one listing, searched as pi's `@` completion ranks them."""

    def __init__(self, entries: list[Entry], scope: str = "") -> None:
        self.scope = scope  # "" or "folder/": every entry is under it
        self.entries = sorted(entries, key=_order)
        self.folders = {entry.path for entry in self.entries if entry.is_dir}
        self._dirs = _Part([entry for entry in self.entries if entry.is_dir], len(scope))
        self._files = _Part([entry for entry in self.entries if not entry.is_dir], len(scope))
        self._scoped: FileIndex | None = None

    def search(self, query: str, limit: int) -> list[Entry]:
        folder, slash, rest = query.removeprefix("./").rpartition("/")
        if slash and folder in self.folders:
            return self._inside(folder + "/").search(rest, limit)
        query = query.removeprefix("./").lower()
        if not query:
            return self.entries[:limit]
        # each letter at its first place after the previous one: possessive, so no backtracking
        fuzzy = re.compile(re.escape(query[0]) + "".join(
            f"[^\n{re.escape(char)}]*+{re.escape(char)}" for char in query[1:]
        ))  # fmt: skip
        ranks: list[tuple[str | re.Pattern[str], bool]] = [
            ("\n" + query + "\n", True),  # the name is the query
            ("\n" + query, True),  # the name starts with it
            (query, True),  # the name holds it
            (query, False),  # the path holds it
            (fuzzy, True),  # the name holds its letters in order
            (fuzzy, False),  # the path does
        ]
        if len(query) == 1:  # its letters in order: the same as holding it
            ranks = ranks[:4]
        if "/" in query:  # never in a name
            ranks = [rank for rank in ranks if not rank[1]]
        found: list[Entry] = []
        seen: set[int] = set()  # ids of entries already found
        for needle, in_names in ranks:
            for part in (self._dirs, self._files):
                for index in part.hits(needle, in_names):
                    entry = part.entries[index]
                    if id(entry) in seen:
                        continue
                    seen.add(id(entry))
                    found.append(entry)
                    if len(found) >= limit:
                        return found
        return found

    def _inside(self, scope: str) -> FileIndex:
        """The index of the entries under folder `scope` (the last one asked is kept)."""
        if self._scoped is None or self._scoped.scope != scope:
            self._scoped = FileIndex([entry for entry in self.entries if entry.path.startswith(scope)], scope)
        return self._scoped


class FileCache:
    """The last index of pi's folder, listed again after a change: `search` answers from it
    (None while there is none for that folder) and calls `list_later(folder, generation)`
    when it is missing or stale; the lister hands the index back to `store`."""

    def __init__(self, list_later: Callable[[Path, int], None]) -> None:
        self._list_later = list_later
        self._index: tuple[Path, int, FileIndex] | None = None
        self._generation = 0  # raised by each change of the files
        self._listing: tuple[Path, int] | None = None
        self.failed: Path | None = None  # the folder whose listing last failed (said once)

    def search(self, folder: Path, query: str, limit: int) -> list[Entry] | None:
        known = self._index if self._index is not None and self._index[0] == folder else None
        wanted = (folder, self._generation)
        if (known is None or known[1] != self._generation) and self._listing != wanted:
            self._listing = wanted
            self._list_later(folder, self._generation)
        return known[2].search(query, limit) if known is not None else None

    def changed(self) -> None:
        """The files may have changed (a tool ran): the next search lists them again."""
        self._generation += 1

    def store(self, folder: Path, generation: int, index: FileIndex) -> None:
        if self._listing == (folder, generation):
            self._listing = None
        if self._index is None or self._index[0] != folder or self._index[1] <= generation:
            self._index = (folder, generation, index)
