"""Modal dialogs answering pi's extension UI requests (select, confirm, input, editor).

Each dialog dismisses with the `ExtensionUIResponse` to send back, or with `None`
when the request's `timeout` expires (pi resolves the dialog itself then, so
nothing is sent). The timeout counts from the request's `deadline`, given by the
app from when pi sent it (by default from when the dialog is shown). Escape cancels.
pideck cannot know whether an extension's question writes ("Allow `rm -rf build`?"), so
each takes its answer (Enter, y, n, Ctrl+S, a button) only from a key pressed on purpose
(on_purpose.py): keys typed on as it opens are ignored, and the dialog says so; text typed
into a field stays there. All request text is shown via `safe`; values that are not
strings as JavaScript writes them (`as_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from math import ceil
from time import monotonic
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from rich.console import Group
from rich.text import Text
from textual.widgets import Button, Footer, Input, OptionList, Static, TextArea

from protocol.wire.commands import ExtensionUIResponse
from protocol.wire.extension_ui import (
    ConfirmRequest,
    DialogRequest,
    EditorRequest,
    InputRequest,
    SelectRequest,
    as_text,
)
from widgets.colors import palette
from widgets.engine.keys_in_order import OrderedInput, OrderedOptionList, OrderedTextArea
from widgets.text.page_keys import PagedScroll
from widgets.text.safe import clean, safe
from widgets.screens.on_purpose import OnPurpose
from widgets.screens.session_picker import one_line

if TYPE_CHECKING:
    from textual.widget import Widget
else:
    Widget = object  # a plain mixin, as KeysInOrder is

RequestT = TypeVar("RequestT", bound=DialogRequest)
KEY_NAMES = {"enter": "Enter", "ctrl+s": "Ctrl+S"}  # how the ignored-key line names a key


class TextBox(PagedScroll):
    """Foreign text that may be long: scrolls, and takes focus only when it overflows."""

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(Static(safe(text)), id=id)

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0


class HandsOverAnswers(Widget):
    """Mixin, before an Ordered widget: a key that answers its dialog goes to the dialog
    (`take_answer`) before the widget acts on it (a list's or a field's Enter)."""

    async def on_key(self, event: events.Key) -> None:
        screen = self.screen
        if self.app.focused is self and isinstance(screen, ExtensionDialog):
            screen.take_answer(event)  # (stopped there: the widget's own handlers do not run)


class AnswerList(HandsOverAnswers, OrderedOptionList):
    pass


class AnswerInput(HandsOverAnswers, OrderedInput):
    pass


class AnswerTextArea(HandsOverAnswers, OrderedTextArea):
    pass


class ExtensionDialog(ModalScreen[ExtensionUIResponse | None], Generic[RequestT]):
    """Frame shared by the dialogs: source header, countdown, title, body, key hint."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    HINT: ClassVar[str] = ""

    def __init__(self, request: RequestT, deadline: float | None = None) -> None:
        super().__init__()
        self.request = request
        self._deadline = deadline  # `monotonic()` when pi resolves the request itself
        self._expired = False
        self.on_purpose = OnPurpose(self, self._say_ignored)

    def compose(self) -> ComposeResult:
        ignored = Static("", id="ignored")
        ignored.display = False
        with Vertical(id="dialog"):
            with Horizontal(id="dialog-header"):
                yield Static("extension request", id="source")
                yield Static("", id="countdown")
            yield TextBox(as_text(self.request.title), id="title")
            yield ignored
            yield from self.compose_body()
            yield Static(self.HINT, id="hint")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        """The widgets between the title and the key hint."""
        yield from ()

    def on_mount(self) -> None:
        self.on_purpose.asked()
        if self._deadline is None:
            self._deadline = self.request.deadline(monotonic())
        if self._deadline is not None:
            self.set_timer(max(0.0, self._deadline - monotonic()), self._expire)
            self.set_interval(1.0, self._show_countdown)
            self._show_countdown()

    def _show_countdown(self) -> None:
        assert self._deadline is not None
        left = max(0, ceil(self._deadline - monotonic()))
        self.query_one("#countdown", Static).update(f"closes in {left}s")

    def _expire(self) -> None:
        self.expire()

    def expire(self) -> None:
        """pi went on without an answer: close now if shown, else when shown again (a dialog
        is dismissed only from the top of the screen stack shown)."""
        self._expired = True
        if self.is_active:
            self.dismiss(None)

    @property
    def expired(self) -> bool:
        return self._expired

    def on_screen_resume(self) -> None:
        """Shown again (its session shown again, a screen over it closed): keys count from
        its first frame again. Close a dialog whose timeout expired meanwhile."""
        if self._expired:
            self.dismiss(None)
        else:
            self.on_purpose.asked()

    def reply(
        self, *, value: str | None = None, confirmed: bool | None = None, cancelled: bool | None = None
    ) -> None:
        """Dismiss with the response to the request: one of value, confirmed or cancelled."""
        response = ExtensionUIResponse(id=self.request.id, value=value, confirmed=confirmed, cancelled=cancelled)
        self.dismiss(response)

    def action_cancel(self) -> None:
        self.reply(cancelled=True)

    def key_answer(self, key: str) -> Callable[[], None] | None:
        """What `key` answers, pressed now (None: it answers nothing): Enter presses the
        button that has the focus."""
        focused = self.focused
        if key == "enter" and isinstance(focused, Button):
            return lambda: self.pressed(focused)
        return None

    def pressed(self, button: Button) -> None:
        """Answer as `button` says."""

    def take_answer(self, event: events.Key) -> None:
        """If `event`'s key answers, it does so only when pressed on purpose; either way the
        widgets do nothing more with it."""
        act = self.key_answer(event.key)
        if act is None:
            return
        event.stop()
        event.prevent_default()
        self.on_purpose.answer(event.time, KEY_NAMES.get(event.key, event.key), act)

    def on_key(self, event: events.Key) -> None:
        """The keys that come up from its buttons and text boxes (its list and fields hand
        theirs over first, `HandsOverAnswers`)."""
        self.take_answer(event)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A click (Enter on a button is a key, `key_answer`)."""
        event.stop()
        button = event.button
        self.on_purpose.answer(None, f"“{button.label}”", lambda: self.pressed(button))

    def _say_ignored(self, text: str) -> None:
        line = self.query_one("#ignored", Static)
        line.update(Text(text, palette.style("warning")))
        line.display = True


# Characters of an option kept for its one-line form: more than the widest dialog shows.
ONE_LINE_CHARS = 500


class SelectDialog(ExtensionDialog[SelectRequest]):
    """Pick one option; the response `value` is the option exactly as sent. Each option
    takes one line, cut with "…" (the list's text-wrap); the highlighted one shows all of
    its text (a Rich `Group`, which Rich wraps whatever the list's text-wrap)."""

    AUTO_FOCUS = "OptionList"
    HINT = "↑↓ move · Enter choose · Esc cancel"

    def __init__(self, request: SelectRequest, deadline: float | None = None) -> None:
        super().__init__(request, deadline)
        self._texts = [as_text(option, null="null") for option in request.options]
        self._full: int | None = None  # the option shown whole

    def compose_body(self) -> ComposeResult:
        yield AnswerList(*(self._one_line(index) for index in range(len(self._texts))), id="options")

    def _one_line(self, index: int) -> Text:
        return safe(one_line(self._texts[index][:ONE_LINE_CHARS]))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        options = event.option_list
        if self._full is not None and self._full != event.option_index:
            options.replace_option_prompt_at_index(self._full, self._one_line(self._full))
        self._full = event.option_index
        options.replace_option_prompt_at_index(self._full, Group(safe(self._texts[self._full])))
        options.scroll_to_highlight()  # the lines above it changed

    def key_answer(self, key: str) -> Callable[[], None] | None:
        if key == "enter" and isinstance(self.focused, OptionList):
            return self._choose_highlighted
        return super().key_answer(key)

    def _choose_highlighted(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None:
            self.reply(value=self.request.options[index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on an option."""
        event.stop()
        index = event.option_index
        self.on_purpose.answer(None, f"“{clean(one_line(self._texts[index]))[:20]}”",
                               lambda: self.reply(value=self.request.options[index]))


class ConfirmDialog(ExtensionDialog[ConfirmRequest]):
    """Yes or No; "No" has the focus so a stray Enter never approves."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No")]
    AUTO_FOCUS = "#no"
    HINT = "y Yes · n No · Tab next button · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield TextBox(as_text(self.request.message), id="message")
        with Horizontal(classes="buttons"):
            yield Button("Yes", id="yes", variant="primary", compact=True)
            yield Button("No", id="no", compact=True)

    def key_answer(self, key: str) -> Callable[[], None] | None:
        if key in ("y", "n"):
            return lambda: self.reply(confirmed=key == "y")
        return super().key_answer(key)

    def pressed(self, button: Button) -> None:
        self.reply(confirmed=button.id == "yes")

    def action_answer(self, confirmed: bool) -> None:
        """The footer's y or n, clicked (the keys are `key_answer`'s)."""
        self.on_purpose.answer(None, "y" if confirmed else "n", lambda: self.reply(confirmed=confirmed))


class InputDialog(ExtensionDialog[InputRequest]):
    """One line of free text."""

    AUTO_FOCUS = "Input"
    HINT = "Enter submit · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield AnswerInput(placeholder=clean(as_text(self.request.placeholder)), id="value")

    def key_answer(self, key: str) -> Callable[[], None] | None:
        if key == "enter" and isinstance(self.focused, Input):
            return lambda: self.reply(value=self.query_one(Input).value)  # (its value when it answers)
        return super().key_answer(key)


class EditorDialog(ExtensionDialog[EditorRequest]):
    """Multi-line text; Enter is a newline, Ctrl+S submits. The prefill is shown cleaned."""

    BINDINGS = [Binding("ctrl+s", "submit", "Submit")]
    AUTO_FOCUS = "TextArea"
    HINT = "Enter new line · Ctrl+S submit · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield AnswerTextArea(clean(as_text(self.request.prefill)), id="editor")
        with Horizontal(classes="buttons"):
            yield Button("Submit", id="submit", variant="primary", compact=True)

    def key_answer(self, key: str) -> Callable[[], None] | None:
        if key == "ctrl+s":
            return self._submit
        return super().key_answer(key)

    def pressed(self, button: Button) -> None:
        self._submit()

    def action_submit(self) -> None:
        """The footer's Ctrl+S, clicked (the key is `key_answer`'s)."""
        self.on_purpose.answer(None, "Ctrl+S", self._submit)

    def _submit(self) -> None:
        self.reply(value=self.query_one(TextArea).text)


_DIALOGS: dict[type[DialogRequest], type[ExtensionDialog]] = {
    SelectRequest: SelectDialog,
    ConfirmRequest: ConfirmDialog,
    InputRequest: InputDialog,
    EditorRequest: EditorDialog,
}


def dialog_for(request: DialogRequest, deadline: float | None = None) -> ExtensionDialog:
    """The dialog screen answering `request`; `deadline` as `request.deadline` gave it."""
    return _DIALOGS[type(request)](request, deadline)
