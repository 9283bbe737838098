"""Pickers for `/resume` (session files) and `/fork` (user messages of the session), on
the shared `FilteredPicker` (widgets/screens/pickers.py): type to narrow the list, ↑↓ move,
Enter chooses, Esc closes. Session names and message texts are foreign text, shown via `safe`.

As in pi's session selector, /resume also has Ctrl+N (named sessions only), Ctrl+P (file
paths instead of working directories) and Ctrl+D (delete the highlighted session, after
Enter confirms: to the trash with the `trash` command where there is one, else removed; an
Enter typed ahead or in a burst does not confirm, widgets/screens/on_purpose.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence

from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.binding import Binding
from textual.widgets import Input

from protocol.wire.responses import ForkMessage
from protocol.files.session_files import SessionSummary
from widgets.engine.keys_in_order import OrderedInput
from widgets.screens.on_purpose import OnPurpose
from widgets.screens.pickers import FilteredPicker, Row
from widgets.text.safe import clean, safe
from widgets.colors import palette


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def one_line(text: str) -> str:
    return " ".join(clean(text).split())


def delete_session_file(path: os.PathLike[str]) -> str:
    """Move a session file to the trash (the `trash` command, as pi), else remove it; how.
    Raises OSError when neither works."""
    if (trash := shutil.which("trash")) is not None:
        subprocess.run([trash, "--", os.fspath(path)], capture_output=True, timeout=30, check=False)
        if not os.path.exists(path):
            return "moved to the trash"
    os.unlink(path)
    return "removed"


def session_row(summary: SessionSummary, current: str | None, show_path: bool = False) -> Row[SessionSummary]:
    is_current = current is not None and str(summary.path) == current
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True, justify="right")
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append("● " if is_current else "  ", palette.style("success", "bold"))
    title.append(one_line(summary.title)[:200], "bold" if summary.name else "")
    when = summary.modified.astimezone().strftime("%Y-%m-%d %H:%M")
    grid.add_row(title, Text(f"{when} · {human_size(summary.size)}", palette.style("muted")))
    detail = Text("  ", no_wrap=True, overflow="ellipsis")
    detail.append(one_line(str(summary.path)) if show_path else one_line(summary.cwd) or "(no cwd)", palette.style("toolPath"))
    if summary.name and summary.first_message:
        detail.append(" · " + one_line(summary.first_message)[:200], palette.style("muted"))
    if is_current:
        detail.append(" · current session", palette.style("success"))
    grid.add_row(detail, Text(""))
    search = " ".join((summary.name or "", summary.first_message, summary.cwd, summary.id, summary.path.name))
    return Row(summary, search.casefold(), grid)


class SessionFilter(OrderedInput):
    """The filter line of /resume, where Ctrl+D deletes the highlighted session instead of the
    character after the cursor (a binding here, not a priority one on the screen, so it acts
    after the keys typed before it)."""

    BINDINGS = [Binding("ctrl+d", "screen.delete", "Delete")]

    async def on_key(self, event: events.Key) -> None:
        """Enter while a delete is asked answers it, with the time it was pressed."""
        screen = self.screen
        if event.key == "enter" and isinstance(screen, SessionPicker) and screen.deleting is not None:
            if not self.sent_on(event):
                event.stop()
                event.prevent_default()
                screen.confirm_delete(event.time)
            return
        await super().on_key(event)


class SessionPicker(FilteredPicker[SessionSummary]):
    """The session files of pi's session directory; Tab switches to every folder's sessions and back (as in pi).

    `load(everywhere)` reads the listing (in a thread: it reads files); `current` is
    the path of the session pi has open, marked with ●.
    """

    DEFAULT_CLASSES = "-tall"
    HINT = ("type to search · ↑↓ move · Enter resume · Alt+Enter in a new session · Tab this folder / all folders · "
            "Esc cancel")  # the rest: Footer
    BINDINGS = [
        Binding("alt+enter", "open_beside", "New session"),
        Binding("tab", "toggle_scope", "This folder / all"),
        Binding("ctrl+n", "toggle_named", "Named only"),
        Binding("ctrl+p", "toggle_paths", "Paths"),
        Binding("escape", "cancel", "Cancel"),
    ]
    FILTER_INPUT = SessionFilter
    EMPTY = "no sessions saved here yet"

    def __init__(
        self,
        load: Callable[[bool], list[SessionSummary]],
        *,
        current: str | None = None,
        where: str = "",
        query: str = "",
    ) -> None:
        super().__init__("Resume a session", query)
        self.load = load
        self.current = current
        self.where = where
        self.everywhere = False
        self.named_only = False
        self.show_paths = False
        self.sessions: list[SessionSummary] = []
        self.deleting: SessionSummary | None = None  # asked to delete: Enter confirms, Esc keeps it
        self.beside = False  # chosen with Alt+Enter: open it in a session of its own (/open)
        self._deleting_filter = ""  # the filter line when it was asked
        self._note = ""
        self._question = Text()  # the delete's, while it is asked
        self.on_purpose = OnPurpose(self, lambda why: self.set_note(Text.assemble(
            self._question, "\n", (why, palette.style("warning")))))

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.set_note(Text("reading session files…", palette.style("muted")))
        self.read_sessions(self.everywhere)

    @work(thread=True, exclusive=True, group="read-sessions")
    def read_sessions(self, everywhere: bool) -> None:
        try:
            sessions = self.load(everywhere)
        except OSError as exc:
            self.app.call_from_thread(self.set_rows, [], f"cannot read the sessions: {exc}")
            return
        self.app.call_from_thread(self._listed, sessions)

    def _listed(self, sessions: list[SessionSummary], done: str = "") -> None:
        self.sessions = sessions
        scope = "every folder" if self.everywhere else "this folder"
        self._note = " · ".join(part for part in (done, f"{len(sessions)} session(s) of {scope}", self.where) if part)
        self._show()

    def _show(self) -> None:
        shown = [summary for summary in self.sessions if summary.name or not self.named_only]
        note = self._note + (f" · {len(shown)} named" if self.named_only else "")
        self.set_rows([session_row(summary, self.current, self.show_paths) for summary in shown], note)

    def action_toggle_scope(self) -> None:
        self.everywhere = not self.everywhere
        self.reload()

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only
        self._show()

    def action_toggle_paths(self) -> None:
        self.show_paths = not self.show_paths
        self._show()

    def action_delete(self) -> None:
        self.sync_filter()
        summary = self.highlighted_value()
        if summary is None:
            return
        if self.current is not None and str(summary.path) == self.current:
            self.set_note(Text("pi has this session open: it cannot be deleted", palette.style("error", "bold")))
            return
        self.deleting, self._deleting_filter = summary, self.filter_text()
        self._question = Text(f"Delete “{one_line(summary.title)[:80]}”? Enter deletes · Esc keeps it",
                              palette.style("error", "bold"))
        self.set_note(self._question)
        self.on_purpose.asked()

    def on_screen_resume(self) -> None:
        """Shown again while a delete is asked (a screen over it closed, its session shown
        again): keys count from then."""
        if self.deleting is not None:
            self.on_purpose.asked()

    def action_cancel(self) -> None:
        if self.deleting is None:
            self.dismiss(None)
        else:
            self.deleting = None
            self.set_note(self._note)

    def action_open_beside(self) -> None:
        if self.deleting is None:
            self.beside = True
            super().action_choose()

    def action_choose(self) -> None:
        if self.deleting is None:
            super().action_choose()
        else:
            self.confirm_delete(None)

    def confirm_delete(self, pressed: float | None) -> None:
        """Enter pressed at `pressed` (None: not a key) while a delete is asked: the file is
        deleted if it was pressed on purpose."""
        self.on_purpose.answer(pressed, "Enter", self._delete)

    def _delete(self) -> None:
        if self.deleting is None:
            return
        summary, self.deleting = self.deleting, None
        try:
            how = delete_session_file(summary.path)
        except OSError as exc:
            self.set_note(Text(f"cannot delete {summary.path}: {exc.strerror or exc}", palette.style("error", "bold")))
            return
        self._listed([s for s in self.sessions if s.path != summary.path], f"“{one_line(summary.title)[:60]}” {how}")

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.deleting is not None and self.filter_text() != self._deleting_filter:  # typing on: the question is dropped
            self.deleting = None
            self.set_note(self._note)
        super().on_input_changed(event)


class ForkPicker(FilteredPicker[str]):
    """pi's `get_fork_messages` (the user messages of every branch, in file order); dismisses
    with an entry id. The last one is highlighted first, as it is the one most often forked from."""

    DEFAULT_CLASSES = "-tall"
    EMPTY = "no user messages to fork from"

    def __init__(self, messages: Sequence[ForkMessage]) -> None:
        super().__init__("Fork from a message")
        self.messages = list(messages)

    def on_mount(self) -> None:
        rows = []
        for number, message in enumerate(self.messages, 1):
            prompt = Text(no_wrap=True, overflow="ellipsis")
            prompt.append(f"{number:>3}  ", palette.style("muted"))
            prompt.append_text(safe(one_line(message.text)[:300] or "(no text)"))
            rows.append(Row(message.entry_id, message.text.casefold(), prompt))
        self.initial = rows[-1].value if rows else None
        self.set_rows(rows, "A new session starts from just before the message you choose; its text comes back to the editor.")
