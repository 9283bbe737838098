"""Pickers for pideck's own commands: the model selector and a list of choices.

`ModelPicker` dismisses with the chosen `Model` (or None on Esc): a filter line over
pi's `get_available_models`, the current model marked. `ChoicePicker` dismisses with
one of its strings (thinking levels, queue modes). Model data is shown via `safe`.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from protocol.responses import Model
from widgets.safe_text import clean


def model_key(model: Model) -> str:
    """`provider/id`, how pi names a model on its command line and in /model."""
    return f"{model.provider}/{model.id}"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:g}M"
    return f"{count / 1000:g}k" if count >= 1000 else str(count)


def model_label(model: Model, current: bool) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("● " if current else "  ", "bold green")
    text.append(clean(model_key(model)), "bold" if current else "")
    details = [f"{_tokens(model.context_window)} context"] if model.context_window else []
    if model.reasoning:
        details.append("reasoning")
    if "image" in model.input:
        details.append("images")
    if details:
        text.append("  " + " · ".join(details), "dim")
    return text


def matches(model: Model, query: str) -> bool:
    """Every word of `query` occurs (case-insensitively) in the model's provider/id or name."""
    haystack = f"{model_key(model)} {model.name}".lower()
    return all(word in haystack for word in query.lower().split())


class ModelPicker(ModalScreen[Model | None]):
    """Filter with the keyboard, ↑↓ to move, Enter to switch, Esc to keep the current model."""

    CSS_PATH = "pickers.tcss"
    AUTO_FOCUS = "#filter"
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("up", "move(-1)", "Up", show=False, priority=True),
        Binding("down", "move(1)", "Down", show=False, priority=True),
        Binding("enter", "choose", "Switch", priority=True),
    ]

    def __init__(self, models: list[Model], current: Model | None, query: str = "") -> None:
        super().__init__()
        self.models = models
        self.current = model_key(current) if current is not None else None
        self.query_text = query
        self.shown: list[Model] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Select a model", id="picker-title")
            yield Input(self.query_text, placeholder="filter: provider, id or name", id="filter")
            yield OptionList(id="choices")
            yield Static("", id="picker-hint")
        yield Footer()

    def on_mount(self) -> None:
        self._fill(self.query_text)

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        options = self.query_one("#choices", OptionList)
        self.shown = [model for model in self.models if matches(model, query)]
        options.clear_options()
        options.add_options(Option(model_label(m, model_key(m) == self.current)) for m in self.shown)
        current = next((i for i, m in enumerate(self.shown) if model_key(m) == self.current), 0)
        options.highlighted = current if self.shown else None
        hint = f"{len(self.shown)} of {len(self.models)} models · ↑↓ move · Enter switch · Esc cancel"
        self.query_one("#picker-hint", Static).update(hint if self.shown else f"no model matches {query!r}")

    def action_move(self, step: int) -> None:
        options = self.query_one("#choices", OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_choose(self) -> None:
        index = self.query_one("#choices", OptionList).highlighted
        if index is not None and index < len(self.shown):
            self.dismiss(self.shown[index])

    @on(OptionList.OptionSelected, "#choices")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index])


class ChoicePicker(ModalScreen[str | None]):
    """One of a few strings; the current one is marked and highlighted."""

    CSS_PATH = "pickers.tcss"
    AUTO_FOCUS = "#choices"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str, choices: list[str], current: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.title_text, id="picker-title")
            yield OptionList(
                *(Text(("● " if c == self.current else "  ") + clean(c)) for c in self.choices), id="choices"
            )
            yield Static("↑↓ move · Enter choose · Esc cancel", id="picker-hint")
        yield Footer()

    def on_mount(self) -> None:
        if self.current in self.choices:
            self.query_one("#choices", OptionList).highlighted = self.choices.index(self.current)

    @on(OptionList.OptionSelected, "#choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index])
