"""Modal dialogs answering pi's extension UI requests (select, confirm, input, editor).

Each dialog dismisses with the `ExtensionUIResponse` to send back, or with `None`
when the request's `timeout` expires (pi resolves the dialog itself then, so
nothing is sent). Escape cancels. All request text is shown via `safe`.
"""

from __future__ import annotations

from math import ceil
from time import monotonic
from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, OptionList, Static, TextArea

from protocol.commands import ExtensionUIResponse
from protocol.extension_ui import (
    ConfirmRequest,
    DialogRequest,
    EditorRequest,
    InputRequest,
    SelectRequest,
)
from widgets.keys_in_order import OrderedInput, OrderedOptionList, OrderedTextArea
from widgets.safe_text import clean, safe

RequestT = TypeVar("RequestT", bound=DialogRequest)


class TextBox(VerticalScroll):
    """Foreign text that may be long: scrolls, and takes focus only when it overflows."""

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(Static(safe(text)), id=id)

    def allow_focus(self) -> bool:
        return self.max_scroll_y > 0


class ExtensionDialog(ModalScreen[ExtensionUIResponse | None], Generic[RequestT]):
    """Frame shared by the dialogs: source header, countdown, title, body, key hint."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    HINT: ClassVar[str] = ""

    def __init__(self, request: RequestT) -> None:
        super().__init__()
        self.request = request
        self._deadline: float | None = None
        self._expired = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with Horizontal(id="dialog-header"):
                yield Static("extension request", id="source")
                yield Static("", id="countdown")
            yield TextBox(self.request.title, id="title")
            yield from self.compose_body()
            yield Static(self.HINT, id="hint")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        """The widgets between the title and the key hint."""
        yield from ()

    def on_mount(self) -> None:
        if self.request.timeout and self.request.timeout > 0:
            seconds = self.request.timeout / 1000
            self._deadline = monotonic() + seconds
            self.set_timer(seconds, self._expire)
            self.set_interval(1.0, self._show_countdown)
            self._show_countdown()

    def _show_countdown(self) -> None:
        assert self._deadline is not None
        left = max(0, ceil(self._deadline - monotonic()))
        self.query_one("#countdown", Static).update(f"closes in {left}s")

    def _expire(self) -> None:
        self._expired = True
        if self.is_active:
            self.dismiss(None)

    def on_screen_resume(self) -> None:
        """Close a dialog whose timeout expired while another screen was on top."""
        if self._expired:
            self.dismiss(None)

    def reply(
        self, *, value: str | None = None, confirmed: bool | None = None, cancelled: bool | None = None
    ) -> None:
        """Dismiss with the response to the request: one of value, confirmed or cancelled."""
        response = ExtensionUIResponse(id=self.request.id, value=value, confirmed=confirmed, cancelled=cancelled)
        self.dismiss(response)

    def action_cancel(self) -> None:
        self.reply(cancelled=True)


class SelectDialog(ExtensionDialog[SelectRequest]):
    """Pick one option; the response `value` is the option exactly as sent."""

    AUTO_FOCUS = "OptionList"
    HINT = "↑↓ move · Enter choose · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield OrderedOptionList(*(safe(option) for option in self.request.options), id="options")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.reply(value=self.request.options[event.option_index])


class ConfirmDialog(ExtensionDialog[ConfirmRequest]):
    """Yes or No; "No" has the focus so a stray Enter never approves."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No")]
    AUTO_FOCUS = "#no"
    HINT = "y Yes · n No · Tab next button · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield TextBox(self.request.message, id="message")
        with Horizontal(classes="buttons"):
            yield Button("Yes", id="yes", variant="primary", compact=True)
            yield Button("No", id="no", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "yes")

    def action_answer(self, confirmed: bool) -> None:
        self.reply(confirmed=confirmed)


class InputDialog(ExtensionDialog[InputRequest]):
    """One line of free text."""

    AUTO_FOCUS = "Input"
    HINT = "Enter submit · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield OrderedInput(placeholder=clean(self.request.placeholder or ""), id="value")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.reply(value=event.value)


class EditorDialog(ExtensionDialog[EditorRequest]):
    """Multi-line text; Enter is a newline, Ctrl+S submits. The prefill is shown cleaned."""

    BINDINGS = [Binding("ctrl+s", "submit", "Submit")]
    AUTO_FOCUS = "TextArea"
    HINT = "Enter new line · Ctrl+S submit · Esc cancel"

    def compose_body(self) -> ComposeResult:
        yield OrderedTextArea(clean(self.request.prefill or ""), id="editor")
        with Horizontal(classes="buttons"):
            yield Button("Submit", id="submit", variant="primary", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        self.reply(value=self.query_one(TextArea).text)


_DIALOGS: dict[type[DialogRequest], type[ExtensionDialog]] = {
    SelectRequest: SelectDialog,
    ConfirmRequest: ConfirmDialog,
    InputRequest: InputDialog,
    EditorRequest: EditorDialog,
}


def dialog_for(request: DialogRequest) -> ExtensionDialog:
    """The dialog screen answering `request`."""
    return _DIALOGS[type(request)](request)
