"""Completion for the prompt editor: `/` commands from pi's `get_commands`, `@` file paths.

`complete` is pure: given the text before the cursor it returns where the word
being completed starts and the candidates. `@` paths are searched fuzzily over the
whole tree by `files` (protocol/state/file_index.py); until it has a listing (None), the
folder the word names is listed by prefix. A path with a space is quoted, `@"a b.txt"`,
as pi's editor does, and `@"` completes inside the quotes. `CompletionMenu` shows the
candidates above the editor; the editor drives it (Up/Down move, Tab accepts, Esc closes).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from protocol.wire.responses import CommandInfo
from widgets.colors import palette
from protocol.state.file_index import Entry
from widgets.text.safe import one_row

MAX_CANDIDATES = 50

FileSearch = Callable[[str, int], "list[Entry] | None"]  # (query, limit): None while not listed


@dataclass(frozen=True)
class Candidate:
    insert: str
    label: str
    detail: str = ""


def complete(
    before_cursor: str, commands: list[CommandInfo], cwd: Path, files: FileSearch | None = None
) -> tuple[int, list[Candidate]]:
    """(offset in `before_cursor` where the completed word starts, candidates)."""
    if before_cursor.startswith("/") and " " not in before_cursor and "\n" not in before_cursor:
        prefix = before_cursor[1:].lower()
        found = [
            Candidate(f"/{command.name} ", f"/{command.name}", f"{command.source}: {command.description or ''}")
            for command in commands
            if command.name.lower().startswith(prefix)
        ]
        return 0, found[:MAX_CANDIDATES]
    quote = before_cursor.rfind('@"')
    if quote != -1 and '"' not in before_cursor[quote + 2 :] and (quote == 0 or before_cursor[quote - 1].isspace()):
        return quote, _paths(before_cursor[quote + 2 :], cwd, files)
    start = max(before_cursor.rfind(" "), before_cursor.rfind("\n")) + 1
    word = before_cursor[start:]
    if word.startswith("@"):
        return start, _paths(word[1:], cwd, files)
    return start, []


def _paths(partial: str, cwd: Path, files: FileSearch | None) -> list[Candidate]:
    outside = partial.startswith(("/", "~", "../"))  # not in the listed tree: that folder's entries
    found = files(partial, MAX_CANDIDATES) if files is not None and not outside else None
    if found is None:
        found = _folder_entries(partial, cwd)
    return [_path_candidate(entry) for entry in found]


def _path_candidate(entry: Entry) -> Candidate:
    """A folder's insert ends in "/" (completion goes on inside it), a file's in a space.
    A name's bytes that are not UTF-8 (listed as surrogates) show as `\\xff` and are
    inserted as pi, which decodes names as UTF-8, reads them: U+FFFD (a lone surrogate
    cannot be sent to pi as JSON)."""
    raw = _name_bytes(entry.path + ("/" if entry.is_dir else ""))
    path = raw.decode("utf-8", "replace")
    if any(char.isspace() for char in path):
        insert = f'@"{path}' if entry.is_dir else f'@"{path}" '
    else:
        insert = f"@{path}" if entry.is_dir else f"@{path} "
    return Candidate(insert, raw.decode("utf-8", "backslashreplace"), "folder" if entry.is_dir else "")


def _name_bytes(name: str) -> bytes:
    """A file name's bytes: as the OS gave them (surrogate escapes), any other lone surrogate as itself."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogatepass")


def _folder_entries(partial: str, cwd: Path) -> list[Entry]:
    """The entries of the folder `partial` names whose names start with its last part."""
    folder, _, name = partial.rpartition("/")
    base = (cwd / folder) if folder else cwd
    try:
        entries = sorted(os.scandir(base), key=lambda entry: entry.name)
    except OSError:
        return []
    found: list[Entry] = []
    for entry in entries:
        if not entry.name.startswith(name) or (entry.name.startswith(".") and not name.startswith(".")):
            continue
        found.append(Entry(f"{folder}/{entry.name}" if folder else entry.name, entry.is_dir()))
        if len(found) >= MAX_CANDIDATES:
            break
    return found


class CompletionMenu(OptionList):
    """Candidates for the word at the editor's cursor."""

    DEFAULT_CSS = """
    CompletionMenu, CompletionMenu:focus {  /* focused, it keeps its border */
        height: auto;
        max-height: 8;
        border: round $accent;
        padding: 0;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.candidates: list[Candidate] = []
        self.display = False

    def show(self, candidates: list[Candidate]) -> None:
        self.clear_options()
        self.candidates = candidates
        for candidate in candidates:
            label = Text(one_row(candidate.label), "bold")
            if candidate.detail:
                label.append("  " + one_row(candidate.detail), palette.style("muted"))
            self.add_option(Option(label))
        self.highlighted = 0 if candidates else None
        self.display = bool(candidates)

    def hide(self) -> None:
        self.display = False

    @property
    def chosen(self) -> Candidate | None:
        index = self.highlighted
        return self.candidates[index] if index is not None and index < len(self.candidates) else None
