"""Pickers for `/resume` (session files) and `/fork` (user messages of the session).

Both are a filter `Input` over an `OptionList`: type to narrow the list (every word
must match), Up/Down move, Enter chooses, Esc closes. They dismiss with the chosen
item or None. Session names and message texts are foreign text, shown via `safe`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from protocol.responses import ForkMessage
from protocol.session_files import SessionSummary
from widgets.safe_text import clean, safe

T = TypeVar("T")


@dataclass(frozen=True)
class Row(Generic[T]):
    value: T
    search: str  # what the filter matches, case-folded
    prompt: RenderableType


class FilteredPicker(ModalScreen[T | None]):
    """A titled list with a filter line; subclasses provide the rows."""

    CSS_PATH = "session_picker.tcss"
    AUTO_FOCUS = "#picker-filter"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(10)", show=False),
        Binding("pageup", "move(-10)", show=False),
    ]
    TITLE: ClassVar[str] = ""
    HINT: ClassVar[str] = "type to search · ↑↓ move · Enter choose · Esc cancel"
    EMPTY: ClassVar[str] = "nothing to choose from"

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.rows: list[Row[T]] = []
        self.shown: list[Row[T]] = []
        self.initial = 0  # the row highlighted when the list is first shown
        self._query = query

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.TITLE, id="picker-title")
            yield Static("", id="picker-note")
            yield Input(self._query, placeholder="type to search", id="picker-filter")
            yield OptionList(id="picker-options")
            yield Static(self.HINT, id="picker-hint")
        yield Footer()

    def set_rows(self, rows: Sequence[Row[T]], note: str = "") -> None:
        self.rows = list(rows)
        self.query_one("#picker-note", Static).update(Text(note))
        self.refilter(keep=False)

    def refilter(self, *, keep: bool = True) -> None:
        """Show the rows matching the filter; keeps the highlighted row when it still matches."""
        options = self.query_one(OptionList)
        before = self.highlighted_value() if keep else None
        words = self.query_one(Input).value.casefold().split()
        self.shown = [row for row in self.rows if all(word in row.search for word in words)]
        options.clear_options()
        options.add_options(Option(row.prompt) for row in self.shown)
        if not self.shown:
            options.add_option(Option(Text(self.EMPTY if not self.rows else "no match", "dim"), disabled=True))
            return
        values = [row.value for row in self.shown]
        if before is not None and before in values:
            options.highlighted = values.index(before)
        else:
            options.highlighted = min(self.initial, len(self.shown) - 1) if not keep and not words else 0

    def highlighted_value(self) -> T | None:
        index = self.query_one(OptionList).highlighted
        return self.shown[index].value if index is not None and index < len(self.shown) else None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refilter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.choose(self.highlighted_value())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.shown):
            self.choose(self.shown[event.option_index].value)

    def choose(self, value: T | None) -> None:
        if value is not None:
            self.dismiss(value)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self.shown:
            current = options.highlighted if options.highlighted is not None else 0
            options.highlighted = max(0, min(len(self.shown) - 1, current + step))

    def action_cancel(self) -> None:
        self.dismiss(None)


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def one_line(text: str) -> str:
    return " ".join(clean(text).split())


def session_row(summary: SessionSummary, current: str | None) -> Row[SessionSummary]:
    is_current = current is not None and str(summary.path) == current
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True, justify="right")
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append("● " if is_current else "  ", "bold green")
    title.append(one_line(summary.title)[:200], "bold" if summary.name else "")
    when = summary.modified.astimezone().strftime("%Y-%m-%d %H:%M")
    grid.add_row(title, Text(f"{when} · {human_size(summary.size)}", "dim"))
    detail = Text("  ", no_wrap=True, overflow="ellipsis")
    detail.append(one_line(summary.cwd) or "(no cwd)", "cyan")
    if summary.name and summary.first_message:
        detail.append(" · " + one_line(summary.first_message)[:200], "dim")
    if is_current:
        detail.append(" · current session", "green")
    grid.add_row(detail, Text(""))
    search = " ".join((summary.name or "", summary.first_message, summary.cwd, summary.id, summary.path.name))
    return Row(summary, search.casefold(), grid)


class SessionPicker(FilteredPicker[SessionSummary]):
    """The session files of pi's session directory; Tab switches to every folder's sessions and back (as in pi).

    `load(everywhere)` reads the listing (in a thread: it reads files); `current` is
    the path of the session pi has open, marked with ●.
    """

    TITLE = "Resume a session"
    HINT = "type to search · ↑↓ move · Enter resume · Tab this folder / all folders · Esc cancel"
    BINDINGS = [Binding("tab", "toggle_scope", "This folder / all", priority=True)]
    EMPTY = "no sessions saved here yet"

    def __init__(
        self,
        load: Callable[[bool], list[SessionSummary]],
        *,
        current: str | None = None,
        where: str = "",
        query: str = "",
    ) -> None:
        super().__init__(query)
        self.load = load
        self.current = current
        self.where = where
        self.everywhere = False

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.query_one("#picker-note", Static).update(Text("reading session files…", "dim"))
        self.read_sessions(self.everywhere)

    @work(thread=True, exclusive=True, group="read-sessions")
    def read_sessions(self, everywhere: bool) -> None:
        try:
            sessions = self.load(everywhere)
        except OSError as exc:
            self.app.call_from_thread(self.set_rows, [], f"cannot read the sessions: {exc}")
            return
        rows = [session_row(summary, self.current) for summary in sessions]
        scope = "every folder" if everywhere else "this folder"
        note = f"{len(rows)} session(s) of {scope}"
        if self.where:
            note += f" · {self.where}"
        self.app.call_from_thread(self.set_rows, rows, note)

    def action_toggle_scope(self) -> None:
        self.everywhere = not self.everywhere
        self.reload()


class ForkPicker(FilteredPicker[str]):
    """pi's `get_fork_messages` (the user messages of every branch, in file order); dismisses
    with an entry id. The last one is highlighted first, as it is the one most often forked from."""

    TITLE = "Fork from a message"
    EMPTY = "no user messages to fork from"

    def __init__(self, messages: Sequence[ForkMessage]) -> None:
        super().__init__()
        self.messages = list(messages)

    def on_mount(self) -> None:
        rows = []
        for number, message in enumerate(self.messages, 1):
            prompt = Text(no_wrap=True, overflow="ellipsis")
            prompt.append(f"{number:>3}  ", "dim")
            prompt.append_text(safe(one_line(message.text)[:300] or "(no text)"))
            rows.append(Row(message.entry_id, message.text.casefold(), prompt))
        self.initial = len(rows) - 1
        self.set_rows(rows, "A new session starts from just before the message you choose; its text comes back to the editor.")
