"""The question a revert asks before it writes (protocol/state/reverts.py `Plan`): what will be
written, as a diff; or, for a file that changed since pi left it, its three versions side
by side (before the session, as pi left it, now) for the user to choose; or why it cannot
be done. Dismissed with True to write, by a key pressed on purpose (on_purpose.py). File text
is data: cleaned, drawn as plain text."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.state.reverts import Plan
from widgets.colors import palette
from widgets.panes.key_footer import KeyFooter
from widgets.text.page_keys import PagedScroll
from widgets.text.safe import clean
from widgets.screens.on_purpose import OnPurpose

MAX_LINES = 2000  # of each version or diff shown; the rest is counted


def _shown(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LINES:
        return lines
    return [*lines[:MAX_LINES], f"… {len(lines) - MAX_LINES} more lines"]


def diff_text(lines: list[str]) -> Text:
    text = Text()
    for line in _shown(lines):
        role = {"+": "toolDiffAdded", "-": "toolDiffRemoved", "@": "accent"}.get(line[:1], "toolDiffContext")
        text.append(clean(line).expandtabs(4) + "\n", palette.style(role))
    return text


def version_text(data: bytes | None) -> Text:
    if data is None:
        return Text("(no file)", palette.style("muted"))
    if b"\0" in data[:65536]:
        return Text(f"(binary, {len(data)} bytes)", palette.style("muted"))
    lines = data.decode("utf-8", "replace").split("\n")
    width = len(str(len(lines)))
    text = Text()
    for number, line in enumerate(_shown(lines), 1):
        text.append(str(number).rjust(width) + " ", palette.style("lineNumber"))
        text.append(clean(line).expandtabs(4) + "\n")
    return text


class RevertDialog(ModalScreen[bool]):
    """A revert's question. Over a file that changed since pi left it, only `y` writes: Enter
    (typed ahead, or by habit) does nothing there. The keys that write answer only when
    pressed on purpose (`OnPurpose`); the line under the title says why one was ignored (a
    toast would cover the question, app/toasts.py)."""

    CSS_PATH = "revert_dialog.tcss"
    BINDINGS = [
        Binding("y", "write", "Write it"),
        Binding("enter", "enter", "Write it", show=False),
        Binding("n,escape", "dismiss(False)", "Leave the file"),
    ]
    WRITES = {"y": "write", "enter": "enter"}  # the keys that write, by their action
    FIRST = "before this session"  # the first of a conflict's three versions, for a whole file

    def __init__(self, plan: Plan, title: str = "") -> None:
        super().__init__()
        self.plan = plan
        self.title_text = title  # instead of the plan's own question
        self.on_purpose = OnPurpose(self, self._say_ignored)
        self._pressed: events.Key | None = None  # the key whose action runs now (None: a click)

    def on_mount(self) -> None:
        self.on_purpose.asked()

    def on_screen_resume(self) -> None:
        """Shown again (its session shown again, a screen over it closed): keys count from then."""
        self.on_purpose.asked()

    def on_key(self, event: events.Key) -> None:
        """A key that writes runs its action here, where the time it was pressed is known."""
        action = self.WRITES.get(event.key)
        if action is None:
            return
        event.stop()
        event.prevent_default()
        self._pressed = event
        try:
            getattr(self, f"action_{action}")()
        finally:
            self._pressed = None

    def _answer(self, act: Callable[[], None]) -> None:
        key = self._pressed
        name = "y" if key is None or key.key == "y" else "Enter"
        self.on_purpose.answer(None if key is None else key.time, name, act)

    def _say_ignored(self, text: str) -> None:
        line = self.query_one("#revert-ignored", Static)
        line.update(Text(text, palette.style("warning")))
        line.display = True

    def action_write(self) -> None:
        self._answer(lambda: self.dismiss(True))

    def action_enter(self) -> None:
        if self.plan.conflict is None:
            self._answer(lambda: self.dismiss(True))
        else:  # (in the question, not a toast: nothing covers it)
            self._say_ignored("Enter writes nothing here: the file changed since pi left it. y writes over it, n leaves it.")

    def conflict_question(self) -> str:
        plan = self.plan
        return (f"{clean(plan.label)} changed since pi left it. Revert {plan.what} anyway? "
                "y writes over what it holds now, n leaves it.")

    def question(self) -> str:
        plan = self.plan
        action = "remove it" if plan.new is None else f"revert {plan.what}"
        return f"{clean(plan.label)}: {action}? This writes:"

    def compose(self) -> ComposeResult:
        plan = self.plan
        ignored = Static("", id="revert-ignored")
        ignored.display = False
        with Vertical(id="revert"):
            if plan.conflict is not None:
                before, left, now = plan.conflict
                yield Static(Text(self.conflict_question(), palette.style("warning", "bold")), id="revert-title")
                yield ignored
                with Horizontal(id="revert-versions"):
                    first = self.FIRST if plan.what == "the whole file" else "after the revert"
                    for title, data in ((first, before), ("as pi left it", left), ("now", now)):
                        with Vertical(classes="revert-version"):
                            yield Static(Text(title, "bold"), classes="revert-version-title")
                            with PagedScroll():
                                yield Static(version_text(data))
                yield Static(Text("What will be written, from now:", "bold"))
            else:
                yield Static(Text(self.question(), "bold"), id="revert-title")
                yield ignored
            with PagedScroll(id="revert-diff"):
                yield Static(diff_text(plan.lines) if plan.lines else Text("(no change to the file)", palette.style("muted")))
        yield KeyFooter()


class RewindDialog(RevertDialog):
    """`/rewind`'s questions: a file that changed since pi left it (`n` leaves it and the rewind
    goes on), and the rewind itself with every file it puts back (`n` cancels all of it)."""

    BINDINGS = [
        Binding("y", "write", "Put it back"),
        Binding("enter", "enter", "Put it back", show=False),
        Binding("n,escape", "dismiss(False)", "Leave the file"),
    ]
    FIRST = "before the message"

    def conflict_question(self) -> str:
        return (f"{clean(self.plan.label)} changed since pi left it. Put it back as it was before the message anyway? "
                "y writes over what it holds now, n leaves it as it is (the rewind goes on).")


class RewindConfirm(RevertDialog):
    """The rewind: pi forks from just before the message and the files are put back."""

    BINDINGS = [
        Binding("y,enter", "write", "Rewind"),
        Binding("n,escape", "dismiss(False)", "Cancel: nothing changes"),
    ]
    WRITES = {"y": "write", "enter": "write"}

    def question(self) -> str:
        files = self.plan.label
        return (f"{clean(self.title_text)}, and {files} are put back. This writes:" if self.plan.lines
                else f"{clean(self.title_text)}; no file needs putting back.")
