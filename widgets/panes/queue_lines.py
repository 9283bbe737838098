"""The queue above the prompt while the side panes, and their Queue pane, are hidden (a
narrow terminal, or F2): as pi's TUI shows it, `Steering: …` and `Follow-up: …`, a line a
message, then what the keys do with them."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from protocol.state.session_model import SessionModel
from widgets.colors import palette
from widgets.text.safe import one_row, spanning

MAX_LINES = 4  # message lines; more are counted on a line of their own
LINE_CHARS = 300  # of a message, read for its line (the row shows less)
HINT = "↳ esc: abort, back into the prompt · alt+up: back into the prompt · f5: edit"


def message_line(label: str, message: str) -> Text:
    """One queued message on one row: its start, cleaned, its line breaks shown as ⏎."""
    cut = min(len(message), LINE_CHARS)
    if (sequence := spanning(message, cut)) is not None:
        cut = sequence[0]  # not inside a control sequence, whose parameters would show as text
    line = Text(f"{label}: ", palette.style("muted"))
    line.append(one_row(message[:cut]).replace("\t", " "))
    return line


def queue_text(session: SessionModel, hint: str) -> Text:
    """The queue's lines: steering first, then follow-ups, at most MAX_LINES of them; then
    `hint`, if any."""
    queued = [("Steering", m) for m in session.steering] + [("Follow-up", m) for m in session.follow_up]
    shown = queued if len(queued) <= MAX_LINES else queued[: MAX_LINES - 1]
    text = Text("\n").join(message_line(label, message) for label, message in shown)
    if len(shown) < len(queued):
        text.append(f"\n+{len(queued) - len(shown)} more", palette.style("muted"))
    if hint:
        text.append(f"\n{hint}", palette.style("muted"))
    return text


class QueueLines(Static):
    """The queued messages above the prompt, only while `panes_hidden` and pi has some."""

    DEFAULT_CSS = """
    QueueLines {
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;  /* a line a message, cut with … */
        text-overflow: ellipsis;
    }
    """

    def __init__(self, session: SessionModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.panes_hidden = False
        self.hint = HINT  # (a view's has none: no key reaches pi there)
        self.display = False

    def refresh_queue(self) -> None:
        shown = self.panes_hidden and bool(self.session.steering or self.session.follow_up)
        if shown:
            self.update(queue_text(self.session, self.hint))
        self.display = shown
