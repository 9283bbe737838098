"""`/rewind`'s picker: the user messages of the session's branch, each with how many files
rewinding to it would put back (and how many it could not put back exactly); dismissed
with the entry id of the message chosen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from widgets.colors import palette
from widgets.screens.pickers import FilteredPicker, Row
from widgets.text.safe import safe
from widgets.screens.session_picker import one_line


@dataclass(frozen=True, slots=True)
class RewindChoice:
    entry_id: str
    text: str
    files: int  # files that would be put back
    inexact: int  # files changed after it that cannot be put back exactly


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


class RewindPicker(FilteredPicker[str]):
    DEFAULT_CLASSES = "-tall"
    EMPTY = "no user messages to rewind to"

    def __init__(self, choices: Sequence[RewindChoice]) -> None:
        super().__init__("Rewind to before a message")
        self.choices = list(choices)

    def on_mount(self) -> None:
        rows = []
        for number, choice in enumerate(self.choices, 1):
            prompt = Text(no_wrap=True, overflow="ellipsis")
            prompt.append(f"{number:>3}  ", palette.style("muted"))
            files = _plural(choice.files, "file") if choice.files else "no files"
            prompt.append(f"{files:>9}", palette.style("warning" if choice.files else "muted"))
            if choice.inexact:
                prompt.append(f" +{choice.inexact} not exact", palette.style("error"))
            prompt.append("  ")
            prompt.append_text(safe(one_line(choice.text)[:300] or "(no text)"))
            rows.append(Row(choice.entry_id, choice.text.casefold(), prompt))
        self.initial = rows[-1].value if rows else None
        self.set_rows(rows, "pi forks from just before the message you choose (its text comes back to the editor), and "
                            "the files changed after it are put back as they were; /rewind undo takes it back.")
