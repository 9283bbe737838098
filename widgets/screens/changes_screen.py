"""The Changes view (`/diff`): the files this session changed through `edit`, `write` and `bash`
(protocol/state/file_changes.py) beside their diffs, one file after another.

The diff view draws only the rows in view, so a session of large diffs opens at once.
Up/Down move its cursor, Enter on a change's rows closes the screen with that change's
tool call id (the caller jumps to it in the transcript); `c` copies the file's patch
(from before the session to now). `r` reverts the hunk under the cursor, `R` the whole
file, each after asking (widgets/screens/revert_dialog.py); `u` undoes the last revert. A revert
shows as a change of its own. Paths and file text are data: cleaned and drawn as plain text, a line a row (`one_row`).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, overload

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from protocol.state.branch_calls import CallKey
from protocol.state.file_changes import Change, FileChanges
from protocol.numbers import parse_int
from protocol.state.reverts import Hunk, NotExact, Plan, hunks
from widgets.colors import palette
from widgets.panes.key_footer import KeyFooter
from widgets.screens.revert_dialog import RevertDialog
from widgets.text.safe import clean, one_row

EMPTY = "Nothing was changed through edit, write or bash in this session yet."
PATH_CHARS = 40  # a longer path loses its start in the list of files

REVERT = "revert"  # the tool name of a change pideck made: a revert
FILE, CHANGE, NOTE, HUNK, ADDED, REMOVED, CONTEXT, GAP = "file", "change", "note", "hunk", "+", "-", " ", "gap"
_HUNK = re.compile(r"@@ -([0-9]+)(?:,[0-9]+)? \+([0-9]+)")
_HUNK_SPAN = re.compile(r"@@ -([0-9]{1,15})(?:,([0-9]{1,15}))? \+([0-9]{1,15})(?:,([0-9]{1,15}))?")  # for the gutter's width


@dataclass(frozen=True, slots=True)
class Row:
    kind: str
    text: str
    file: int  # index of its file
    call: CallKey | str  # its change's (`Change.call`; a file's title: its latest change's)
    number: int | None = None  # the line's number in the file (the old file's for a removed line)
    hunk: int = -1  # which hunk of its change it is in (-1: none, e.g. the change's header)


def counts(added: int, removed: int) -> Text:
    added_text, removed_text = (f"+{added}", palette.style("toolDiffAdded")), (f"−{removed}", palette.style("toolDiffRemoved"))
    return Text.assemble(added_text, " ", removed_text)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


CHUNK = 1024  # a change's lines become rows this many at a time, when first drawn
KEPT_CHUNKS = 16


def _line_rows(change: Change, file: int, start: int, stop: int, old: int | None,
               new: int | None, hunk: int) -> list[Row]:
    """Rows of a change's lines start..stop, numbered from (old, new) at `start` and then
    from its hunk headers, `hunk` the index of the hunk `start` is in."""
    rows = []
    for line in change.lines[start:stop]:
        kind, text = line[:1], line[1:]
        if line.startswith("@@"):
            if match := _HUNK.match(line):
                old, new = parse_int(match[1]), parse_int(match[2])  # a number too long to be one: no numbers
            hunk += 1
            rows.append(Row(HUNK, line, file, change.call, hunk=hunk))
        elif kind in (ADDED, REMOVED, CONTEXT):
            number = old if kind == REMOVED else new
            rows.append(Row(kind, text, file, change.call, number or None, hunk))
            old = old + (kind != ADDED) if old is not None else None
            new = new + (kind != REMOVED) if new is not None else None
        else:  # "\ No newline at end of file"
            rows.append(Row(NOTE, line, file, change.call, hunk=hunk))
    return rows


def _numbers_after(change: Change, start: int, stop: int, old: int | None,
                   new: int | None, hunk: int) -> tuple[int | None, int | None, int]:
    """(old, new) line numbers and the hunk after a change's lines start..stop, as
    `_line_rows` counts them."""
    for line in change.lines[start:stop]:
        kind = line[:1]
        if line.startswith("@@"):
            if match := _HUNK.match(line):
                old, new = parse_int(match[1]), parse_int(match[2])
            hunk += 1
        elif kind in (ADDED, REMOVED, CONTEXT):
            old = old + (kind != ADDED) if old is not None else None
            new = new + (kind != REMOVED) if new is not None else None
    return old, new, hunk


@dataclass(frozen=True, slots=True)
class _Part:
    first: int  # its first row
    head: list[Row]  # the rows before its lines: a file's gap and title, a change's header and note
    file: int
    change: Change | None


class DiffRows(Sequence[Row]):
    """The rows of the files' diffs, made when asked for: a change's lines CHUNK at a
    time (the line numbers at each chunk's start found once, going down), so a change of
    a million lines opens at once and only the rows drawn become `Row`s."""

    def __init__(self, files: list[FileChanges]) -> None:
        self.parts: list[_Part] = []
        row = 0
        for index, file in enumerate(files):
            head = [Row(GAP, "", index, file.changes[-1].call)] if index else []
            head.append(Row(FILE, file.path, index, file.changes[-1].call))
            self.parts.append(_Part(row, head, index, None))
            row += len(head)
            for change in file.changes:
                head = [Row(CHANGE, "", index, change.call)]
                if change.note:
                    head.append(Row(NOTE, change.note, index, change.call))
                self.parts.append(_Part(row, head, index, change))
                row += len(head) + len(change.lines)
        self._length = row
        self._firsts = [part.first for part in self.parts]
        self._chunks: dict[tuple[int, int], list[Row]] = {}
        self._numbers: dict[int, list[tuple[int | None, int | None, int]]] = {}  # per part, (old, new, hunk) at each chunk's start

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        number = bisect_right(self._firsts, index) - 1
        part = self.parts[number]
        offset = index - part.first
        if offset < len(part.head) or part.change is None:
            return part.head[offset]
        line = offset - len(part.head)
        return self._chunk(number, part.change, part.file, line // CHUNK)[line % CHUNK]

    def file_starts(self) -> dict[int, int]:
        """Each file's first row."""
        return {part.file: part.first for part in reversed(self.parts)}

    def widest(self) -> tuple[int, int]:
        """(the largest line number, the longest row's text) of all the rows."""
        number = width = 0
        for part in self.parts:
            width = max(width, *(len(row.text) for row in part.head))
            if part.change is not None and part.change.lines:
                width = max(width, max(map(len, part.change.lines)) - 1)
                lines = len(part.change.lines)
                for line in part.change.lines:
                    if line.startswith("@@") and (match := _HUNK_SPAN.match(line)):
                        old, old_length, new, new_length = match.groups()
                        for start, length in ((old, old_length), (new, new_length)):
                            number = max(number, parse_int(start, 0) + min(lines, parse_int(length or "1", 1)) - 1)
        return number, width

    def _chunk(self, number: int, change: Change, file: int, chunk: int) -> list[Row]:
        rows = self._chunks.get((number, chunk))
        if rows is None:
            starts = self._numbers.setdefault(number, [(0, 0, -1)])
            while len(starts) <= chunk:
                at = len(starts) - 1
                starts.append(_numbers_after(change, at * CHUNK, (at + 1) * CHUNK, *starts[at]))
            if len(self._chunks) >= KEPT_CHUNKS:
                self._chunks.clear()
            rows = self._chunks[number, chunk] = _line_rows(change, file, chunk * CHUNK, (chunk + 1) * CHUNK, *starts[chunk])
        return rows


def diff_rows(files: list[FileChanges]) -> DiffRows:
    return DiffRows(files)


class DiffView(ScrollView, can_focus=True):
    """The diff rows, coloured by kind with pi's theme roles, and a cursor row."""

    COMPONENT_CLASSES = {"diff-view--cursor"}
    BINDINGS = [
        Binding("enter", "jump", "Go to call", tooltip="Close and show this change's tool call in the transcript"),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1_000_000_000)", "First", show=False),
        Binding("end", "move(1_000_000_000)", "Last", show=False),
    ]

    @dataclass
    class Moved(Message):
        file: int

    @dataclass
    class Jump(Message):
        call: CallKey | str

    def __init__(self, files: list[FileChanges], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cursor = 0
        self.set_files(files)

    def set_files(self, files: list[FileChanges]) -> None:
        """Show `files` (again, after a revert), the cursor kept on its row number."""
        self.files = files
        self.rows = diff_rows(files)
        self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        self._starts = self.rows.file_starts()
        self._changes = {(index, change.call): change  # one bash call changes several files
                         for index, file in enumerate(files) for change in file.changes}
        number, width = self.rows.widest()
        self._gutter = len(str(number)) if number else 0
        width += self._gutter + 2
        self.virtual_size = Size(width, len(self.rows))
        self._strips: dict[tuple[int, bool], Strip] = {}  # rows drawn, by index and cursor, while the styles last
        self._styles: tuple[int, Style, Style] | None = None  # palette generation, base and cursor styles
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None

    def change_of(self, row: Row) -> Change | None:
        return self._changes.get((row.file, row.call))

    @property
    def row(self) -> Row | None:
        return self.rows[self.cursor] if self.rows else None

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if self._styles is None or self._styles[0] != palette.generation:
            base = self.rich_style
            self._styles = (palette.generation, base, base + self.get_component_rich_style("diff-view--cursor"))
            self._strips.clear()
        base = self._styles[1]
        if index >= len(self.rows):
            return Strip.blank(width, base)
        on_cursor = index == self.cursor
        style = self._styles[2] if on_cursor else base
        strip = self._strips.get((index, on_cursor))
        if strip is None:
            if len(self._strips) > 1000:
                self._strips.clear()
            text = self._text(self.rows[index])
            line = style + text.style if isinstance(text.style, Style) else style  # render leaves the Text's own style out
            strip = self._strips[index, on_cursor] = Strip(
                Segment(segment.text, line + segment.style if segment.style else line)
                for segment in text.render(self.app.console, end=""))
        x = self.scroll_offset.x
        return strip.crop_extend(x, x + width, style)

    def _text(self, row: Row) -> Text:
        kind = row.kind
        if kind == FILE:
            file = self.files[row.file]
            path = Text(one_row(row.text), palette.style("toolPath") + Style(bold=True))
            return Text.assemble(path, "  ", counts(file.added, file.removed),
                                 (f" · {_plural(len(file.changes), 'change')}", palette.style("muted")))
        if kind == CHANGE:
            change = self._changes[row.file, row.call]
            what = ("new content" if change.created else "its diff" if change.tool == "write"
                    else "by pideck, u undoes the last" if change.tool == REVERT else "")
            return Text.assemble("  ", (change.tool, palette.style("toolTitle")), " ", counts(change.added, change.removed),
                                 (f" · {what}" if what else "", palette.style("muted")))
        if kind == HUNK:
            return Text(one_row(row.text), palette.style("accent"))
        if kind in (NOTE, GAP):
            return Text(one_row(row.text), palette.style("muted"))
        role = {ADDED: "toolDiffAdded", REMOVED: "toolDiffRemoved"}.get(kind, "toolDiffContext")
        number = str(row.number or "").rjust(self._gutter)
        return Text.assemble((kind, palette.style(role)), (number, palette.style("lineNumber")), " ",
                             (one_row(row.text).expandtabs(4), palette.style(role)))

    def move_to(self, index: int, *, top: bool = False) -> None:
        """Put the cursor on row `index`, scrolled into view (with `top`, to the top)."""
        if not self.rows:
            return
        self.cursor = max(0, min(index, len(self.rows) - 1))
        height = self.scrollable_content_region.height
        y = self.scroll_offset.y
        if top or self.cursor < y:
            y = self.cursor
        elif self.cursor >= y + height:
            y = self.cursor - height + 1
        self.scroll_to(y=y, animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Moved(self.rows[self.cursor].file))

    def show_file(self, file: int) -> None:
        if file in self._starts and (self.row is None or self.row.file != file):
            self.move_to(self._starts[file], top=True)

    def action_move(self, by: int) -> None:
        self.move_to(self.cursor + by)

    def action_page(self, by: int) -> None:
        self.move_to(self.cursor + by * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self) -> None:
        if self.row is not None:
            self.post_message(self.Jump(self.row.call))

    def on_click(self, event: events.Click) -> None:
        self.move_to(self.scroll_offset.y + event.y)


class Reverts(Protocol):
    """What the view reverts through (app/pi/file_reverts.py)."""

    def patch(self, file: FileChanges) -> tuple[str, str]: ...
    def plan_file(self, file: FileChanges) -> Plan: ...
    def plan_hunk(self, file: FileChanges, change: Change, hunk: Hunk) -> Plan: ...
    def apply(self, plan: Plan) -> None: ...
    def undo(self) -> Plan: ...


_revert_numbers = itertools.count(1)


def revert_change(plan: Plan) -> Change:
    """A revert as a change of the file, shown after pi's."""
    lines = tuple(plan.lines)
    return Change(f"pideck-revert-{next(_revert_numbers)}", REVERT, lines, sum(1 for line in lines if line.startswith("+")),
                  sum(1 for line in lines if line.startswith("-")))


class ChangesScreen(Screen[CallKey | None]):
    """Dismissed with the tool call to show in the transcript, or None. `reverts` None:
    reverting is not offered (`why_not` says why)."""

    CSS_PATH = "changes_screen.tcss"
    BINDINGS = [
        Binding("escape,q", "dismiss(None)", "Close"),
        Binding("c", "copy_patch", "Copy patch", tooltip="Copy the file's changes as one patch (OSC 52)"),
        Binding("r", "revert_hunk", "Revert hunk", tooltip="Put the hunk under the cursor back as it was, after asking"),
        Binding("R", "revert_file", "Revert file",
                tooltip="Put the whole file back as it was before this session changed it, after asking"),
        Binding("u", "undo", "Undo revert", tooltip="Undo the last revert"),
    ]

    def __init__(self, files: list[FileChanges], copy: Callable[[str], None], reverts: Reverts | None = None,
                 why_not: str = "", note: str = "", read_only: bool = False) -> None:
        super().__init__()
        self.note = note  # what the view leaves out (bash commands it has no changes of), if anything
        self.files = files
        self._copy = copy
        self.reverts = reverts
        self.why_not = why_not
        self.read_only = read_only  # a read-only view's: `c` copies, nothing reverts
        self.busy = False  # a revert asked about or being written

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In a read-only view the revert keys are not offered."""
        return not (self.read_only and action in ("revert_hunk", "revert_file", "undo"))

    def compose(self) -> ComposeResult:
        files = self.files
        with Vertical(id="changes"):
            yield Static(self._title(), id="changes-title")
            if files:
                with Horizontal(id="changes-body"):
                    yield OptionList(*(self._option(file) for file in files), id="changes-files")
                    yield DiffView(files, id="changes-diff")
            else:
                yield Static(EMPTY, id="changes-empty")
            note = Static(self.note, id="changes-note")
            note.display = bool(self.note)
            yield note
        yield KeyFooter()

    def _title(self) -> Text:
        files = self.files
        title = Text("Changes" + " (read-only)" * self.read_only, "bold")
        if files:
            changes = sum(len(file.changes) for file in files)
            title.append(f"   {_plural(len(files), 'file')} · {_plural(changes, 'change')} · ")
            title.append_text(counts(sum(f.added for f in files), sum(f.removed for f in files)))
        return title

    @staticmethod
    def _option(file: FileChanges) -> Option:
        path = one_row(file.path)
        path = path if len(path) <= PATH_CHARS else "…" + path[1 - PATH_CHARS :]  # the file's name stays in sight
        text = Text(path, palette.style("toolPath"))
        text.append_text(Text.assemble("\n", counts(file.added, file.removed),
                                       (f" · {_plural(len(file.changes), 'change')}", palette.style("muted"))))
        return Option(text)

    def on_mount(self) -> None:
        if self.files:
            self.query_one(DiffView).focus()
            self.query_one(OptionList).highlighted = 0

    @on(OptionList.OptionHighlighted, "#changes-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one(DiffView).show_file(event.option_index)

    @on(OptionList.OptionSelected, "#changes-files")
    def _file_selected(self, event: OptionList.OptionSelected) -> None:
        self.query_one(DiffView).focus()

    @on(DiffView.Moved)
    def _diff_moved(self, event: DiffView.Moved) -> None:
        files = self.query_one(OptionList)
        if files.highlighted != event.file:
            files.highlighted = event.file

    @on(DiffView.Jump)
    def _jump(self, event: DiffView.Jump) -> None:
        if isinstance(event.call, CallKey):
            self.dismiss(event.call)

    def selected(self) -> FileChanges | None:
        """The file of the diff's cursor (which the list follows)."""
        if not self.files:
            return None
        row = self.query_one(DiffView).row
        return self.files[row.file] if row is not None else None

    def action_copy_patch(self) -> None:
        file = self.selected()
        if file is None:
            self.notify("There is nothing to copy yet.", title="/diff", markup=False)
            return
        if self.reverts is None:
            self.notify(f"Cannot copy {clean(file.path)}'s patch: {self.why_not}", title="/diff",
                        severity="warning", markup=False)
            return
        self._in_thread(lambda reverts: self._copy_done(file, *reverts.patch(file)))

    def _in_thread(self, work: Callable[[Reverts], object]) -> None:
        """Run `work` (which reads and diffs files of any size) off the UI thread; what it
        shows it shows through `call_from_thread`."""
        reverts = self.reverts
        if reverts is None:
            return

        def run() -> None:
            try:
                work(reverts)
            except Exception as exc:  # noqa: BLE001 - a revert that fails in an unforeseen way never takes pideck down
                self.app.call_from_thread(self._failed, f"The revert failed: {clean(str(exc))[:300]}. Nothing was written.")

        self.run_worker(run, thread=True, group="reverts")

    def _failed(self, message: str) -> None:
        self.busy = False
        self.notify(message, title="/diff", severity="error", markup=False)

    def _copy_done(self, file: FileChanges, patch: str, note: str) -> None:
        self.app.call_from_thread(self._copied, file, patch, note)

    def _copied(self, file: FileChanges, patch: str, note: str) -> None:
        if not patch:
            self.notify(clean(note) or f"{clean(file.path)} holds what it held before this session: no patch.",
                        title="/diff", severity="warning", markup=False)
            return
        self._copy(patch)
        added = sum(1 for line in patch.split("\n") if line.startswith("+") and not line.startswith("+++ "))
        removed = sum(1 for line in patch.split("\n") if line.startswith("-") and not line.startswith("--- "))
        self.notify(f"Copied the patch of {clean(file.path)}, from before this session to now: "
                    f"+{added} −{removed}{clean(note)}.", title="/diff", markup=False)

    # --- reverts ---------------------------------------------------------------------------

    def _can_revert(self) -> FileChanges | None:
        file = self.selected()
        if self.busy:
            self.notify("A revert is being written: wait for it to be done.", title="/diff", markup=False)
            return None
        if file is None:
            self.notify("There is nothing to revert.", title="/diff", markup=False)
        elif self.reverts is None:
            self.notify(f"Cannot revert: {self.why_not}", title="/diff", severity="warning", markup=False)
            return None
        return file

    def action_revert_file(self) -> None:
        if (file := self._can_revert()) is not None:
            self.busy = True  # until it is written or not (the reads may be on pi's host)
            self._in_thread(lambda reverts: self.app.call_from_thread(self._ask, file, reverts.plan_file(file)))

    def action_revert_hunk(self) -> None:
        if (file := self._can_revert()) is None or self.reverts is None:
            return
        view = self.query_one(DiffView)
        row = view.row
        change = view.change_of(row) if row is not None else None
        if change is None or not change.patch:
            self.notify("pi sent no patch for this change: R reverts the whole file.", title="/diff",
                        severity="warning", markup=False)
            return
        try:
            found = hunks(change.lines)
        except NotExact as exc:
            self.notify(f"Cannot revert this change: {exc}", title="/diff", severity="warning", markup=False)
            return
        index = row.hunk if row is not None and row.hunk >= 0 else (0 if len(found) == 1 else -1)
        if not 0 <= index < len(found):
            self.notify("Put the cursor on a hunk to revert (R reverts the whole file).", title="/diff", markup=False)
            return
        hunk = found[index]
        self.busy = True
        self._in_thread(lambda reverts: self.app.call_from_thread(self._ask, file, reverts.plan_hunk(file, change, hunk)))

    def _ask(self, file: FileChanges, plan: Plan) -> None:
        self.busy = bool(not plan.problem and plan.lines)
        if plan.problem:
            self.notify(f"{clean(plan.label)} cannot be reverted exactly: {clean(plan.problem)}. Nothing was written.",
                        title="/diff", severity="warning", markup=False)
            return
        if not plan.lines:
            self.notify(f"{clean(plan.label)} already holds what the revert would write.", title="/diff", markup=False)
            return

        def answered(write: bool | None) -> None:
            if not write:
                self.busy = False
                return
            self._in_thread(lambda reverts: self.app.call_from_thread(self._written, file, plan, self._write(reverts, plan)))

        self.app.push_screen(RevertDialog(plan), answered)

    @staticmethod
    def _write(reverts: Reverts, plan: Plan) -> str:
        """Write the revert (in a thread); why it could not be, or ""."""
        try:
            reverts.apply(plan)
        except OSError as exc:
            return f"Cannot write {clean(plan.label)}: {clean(exc.strerror or str(exc))}"
        return ""

    def _written(self, file: FileChanges, plan: Plan, failed: str) -> None:
        self.busy = False
        if failed:
            self.notify(failed, title="/diff", severity="error", markup=False)
            return
        file.changes.append(revert_change(plan))
        self._show_files()
        self.notify(f"Reverted {clean(plan.label)} ({'removed' if plan.new is None else plan.what}); u undoes it.",
                    title="/diff", markup=False)

    def action_undo(self) -> None:
        if self.reverts is None:
            self.notify(f"Cannot revert: {self.why_not}", title="/diff", severity="warning", markup=False)
            return
        if self.busy:
            self.notify("A revert is being written: u again once it is done.", title="/diff", markup=False)
            return
        self.busy = True

        def undo(reverts: Reverts) -> None:
            try:
                plan: Plan | str = reverts.undo()
            except ValueError as exc:
                plan = f"Nothing undone: {clean(str(exc))}."
            except OSError as exc:
                plan = f"Nothing undone: cannot write: {clean(exc.strerror or str(exc))}."
            self.app.call_from_thread(self._undone, plan)

        self._in_thread(undo)

    def _undone(self, plan: Plan | str) -> None:
        self.busy = False
        if isinstance(plan, str):
            self.notify(plan, title="/diff", severity="warning", markup=False)
            return
        for file in self.files:
            if file.path == plan.label and file.changes and file.changes[-1].tool == REVERT:
                file.changes.pop()
                break
        self._show_files()
        self.notify(f"Undid the revert of {clean(plan.label)} ({plan.what}).", title="/diff", markup=False)

    def _show_files(self) -> None:
        if not self.query(DiffView):  # closed while a revert was written
            return
        view = self.query_one(DiffView)
        view.set_files(self.files)
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        options.add_options([self._option(file) for file in self.files])
        options.highlighted = highlighted
        self.query_one("#changes-title", Static).update(self._title())
