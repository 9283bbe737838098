"""Pickers: modal lists that dismiss with the chosen item, or None on Esc.

`FilteredPicker` is the base of every picker: a title, an optional note, a filter line
(every word must occur, in any case, in a row's search text), the rows and a hint.
↑↓ move (around the ends), PgUp/PgDn move ten rows, Enter or a click chooses. Here:
`ModelPicker` (pi's `get_available_models`, the current model marked) and
`ChoicePicker` (one of a few strings: thinking levels, settings; no filter line).
`SessionPicker` and `ForkPicker` are in widgets/screens/session_picker.py. Foreign text
(model ids, session names, messages) is shown via `safe` / `clean`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from protocol.state.formatting import tokens
from protocol.wire.responses import Model
from widgets.engine.keys_in_order import OrderedInput, OrderedOptionList
from protocol.state.formatting import model_key
from widgets.text.safe import clean
from widgets.colors import palette

T = TypeVar("T")


@dataclass(frozen=True)
class Row(Generic[T]):
    value: T
    search: str  # what the filter matches, case-folded
    prompt: RenderableType


class FilteredPicker(ModalScreen[T | None]):
    """A titled list with a filter line (unless `FILTER` is off); subclasses provide the rows (`set_rows`).

    `initial` is the value highlighted first (else the first row); while the filter
    changes, the highlighted row stays when it still matches. The `-tall` class (in
    DEFAULT_CLASSES) makes a box for long lists: 110 wide, 90% of the screen high.
    """

    CSS_PATH = "pickers.tcss"
    AUTO_FOCUS = "#picker-filter"
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "page(10)", show=False),
        Binding("pageup", "page(-10)", show=False),
    ]
    FILTER: ClassVar[bool] = True  # False: no filter line, the list has the focus
    FILTER_INPUT: ClassVar[type[Input]] = OrderedInput
    PLACEHOLDER: ClassVar[str] = "type to search"
    HINT: ClassVar[str] = "type to search · ↑↓ move · Enter choose · Esc cancel"
    EMPTY: ClassVar[str] = "nothing to choose from"

    def __init__(self, title: str, query: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.rows: list[Row[T]] = []
        self.shown: list[Row[T]] = []
        self.initial: T | None = None
        self._query = query
        self._filtered_for: str | None = None  # the filter text `shown` was made for

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, id="picker-title")
            note = Static("", id="picker-note")
            note.display = False
            yield note
            if self.FILTER:
                yield self.FILTER_INPUT(self._query, placeholder=self.PLACEHOLDER, id="picker-filter")
            yield OrderedOptionList(id="picker-options")
            yield Static(self.HINT, id="picker-hint")
        yield Footer()

    def set_note(self, note: str | Text) -> None:
        """The line under the title (shown only when there is one)."""
        widget = self.query_one("#picker-note", Static)
        widget.update(Text(note) if isinstance(note, str) else note)
        widget.display = bool(note)

    def set_rows(self, rows: Sequence[Row[T]], note: str = "") -> None:
        self.rows = list(rows)
        self.set_note(note)
        self.refilter(keep=False)

    def filter_text(self) -> str:
        return self.query_one(Input).value if self.FILTER else ""

    def refilter(self, *, keep: bool = True) -> None:
        """Show the rows matching the filter; the highlighted row stays if it still matches (`keep`)."""
        options = self.query_one(OptionList)
        before = self.highlighted_value() if keep else None
        self._filtered_for = self.filter_text()
        words = self._filtered_for.casefold().split()
        self.shown = [row for row in self.rows if all(word in row.search for word in words)]
        options.clear_options()
        options.add_options(Option(row.prompt) for row in self.shown)
        self.query_one("#picker-hint", Static).update(self.hint())
        if not self.shown:
            options.add_option(Option(Text(self.EMPTY if not self.rows else "no match", palette.style("muted")), disabled=True))
            return
        values = [row.value for row in self.shown]
        preferred = next((value for value in (before, self.initial) if value is not None and value in values), None)
        options.highlighted = values.index(preferred) if preferred is not None else 0

    def sync_filter(self) -> None:
        """Refilter if the filter line changed since: a key typed just before a move or Enter
        (in one burst) is in the filter line while its `Input.Changed` is still on its way."""
        if self.filter_text() != self._filtered_for:
            self.refilter()

    def hint(self) -> str:
        """The bottom line; refreshed whenever the filter changes."""
        return self.HINT

    def highlighted_value(self) -> T | None:
        index = self.query_one(OptionList).highlighted
        return self.shown[index].value if index is not None and index < len(self.shown) else None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.sync_filter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.shown):
            self.dismiss(self.shown[event.option_index].value)

    def action_choose(self) -> None:
        self.sync_filter()
        value = self.highlighted_value()
        if value is not None:
            self.dismiss(value)

    def action_move(self, step: int) -> None:
        self.sync_filter()
        options = self.query_one(OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_page(self, step: int) -> None:
        self.sync_filter()
        options = self.query_one(OptionList)
        if self.shown:
            options.highlighted = max(0, min(len(self.shown) - 1, (options.highlighted or 0) + step))


# --- models ---------------------------------------------------------------------------------


def model_label(model: Model, current: bool) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("● " if current else "  ", palette.style("success", "bold"))
    text.append(clean(model_key(model)), "bold" if current else "")
    details = [f"{tokens(model.context_window)} context"] if model.context_window else []
    if model.reasoning:
        details.append("reasoning")
    if "image" in model.input:
        details.append("images")
    if details:
        text.append("  " + " · ".join(details), palette.style("muted"))
    return text


class ModelFilter(OrderedInput):
    """The filter line's Enter submits (in order with the typing, unlike a priority binding
    on the screen); named here for the Footer."""

    BINDINGS = [Binding("enter", "submit", "Switch")]


class ModelPicker(FilteredPicker[Model]):
    """Filter by provider, id or name; Enter switches to the highlighted model."""

    FILTER_INPUT = ModelFilter
    PLACEHOLDER = "filter: provider, id or name"

    def __init__(self, models: list[Model], current: Model | None, query: str = "") -> None:
        super().__init__("Select a model", query)
        self.models = models
        current_key = model_key(current) if current is not None else None
        self.initial = next((model for model in models if model_key(model) == current_key), None)

    def on_mount(self) -> None:
        self.set_rows([
            Row(m, f"{model_key(m)} {m.name}".casefold(), model_label(m, m is self.initial)) for m in self.models
        ])  # fmt: skip

    def hint(self) -> str:
        if not self.shown:
            return f"no model matches {self.filter_text()!r}"
        return f"{len(self.shown)} of {len(self.rows)} models · ↑↓ move · Enter switch · Esc cancel"


class ChoicePicker(FilteredPicker[str]):
    """One of a few strings; the current one is marked and highlighted."""

    AUTO_FOCUS = "#picker-options"
    FILTER = False
    HINT = "↑↓ move · Enter choose · Esc cancel"

    def __init__(self, title: str, choices: list[str], current: str | None = None) -> None:
        super().__init__(title)
        self.choices = choices
        self.initial = current

    def on_mount(self) -> None:
        self.set_rows([Row(c, c, Text(("● " if c == self.initial else "  ") + clean(c))) for c in self.choices])
