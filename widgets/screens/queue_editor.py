"""The queue editor: queued steering and follow-up messages, to change before they go back.

The app takes the messages out of pi's queue (`clear_queue`) before showing this, so
pi keeps working meanwhile. The screen dismisses with the edited list (Ctrl+S), or
None when cancelled (Esc), in which case the app re-queues the originals unchanged.
The screen edits copies of the items it is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static, TextArea

from protocol.wire.messages import ImageContent
from widgets.engine.keys_in_order import OrderedOptionList, OrderedTextArea
from widgets.text.safe import clean
from widgets.colors import palette

Kind = Literal["steer", "follow_up"]
KIND_LABEL: dict[str, tuple[str, str]] = {"steer": ("steer", "warning"), "follow_up": ("follow-up", "border")}  # palette roles


@dataclass
class QueueItem:
    kind: Kind
    text: str
    images: list[ImageContent] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.text.strip() and not self.images


def item_label(number: int, item: QueueItem) -> Text:
    label, role = KIND_LABEL[item.kind]
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{number:>2} ", palette.style("muted"))
    text.append(f"{label:<9} ", palette.style(role, "bold"))
    text.append(clean(item.text).replace("\n", " ⏎ ")[:500] or "(empty: dropped on send)")
    if item.images:
        text.append(f"  [{len(item.images)} image{'s' * (len(item.images) > 1)}]", palette.style("warning"))
    return text


class QueueList(OrderedOptionList):
    """The items; the keys that change the list work while it has focus. Enter moves the
    focus to the text at once, so the keys typed right after it go there, not to `d` or `t`."""

    BINDINGS = [
        Binding("enter", "screen.edit", "Edit text", show=False),
        Binding("shift+up,left_square_bracket", "screen.move(-1)", "Move up"),
        Binding("shift+down,right_square_bracket", "screen.move(1)", "Move down"),
        Binding("t", "screen.toggle_kind", "Steer/follow-up"),
        Binding("d,delete", "screen.delete", "Delete"),
    ]


class QueueEditor(ModalScreen[list[QueueItem] | None]):
    CSS_PATH = "queue_editor.tcss"
    AUTO_FOCUS = "QueueList"
    BINDINGS = [
        Binding("ctrl+s", "save", "Send queue"),
        Binding("escape", "back", "Back/Cancel"),
    ]

    def __init__(self, items: list[QueueItem]) -> None:
        super().__init__()
        self.items = [replace(item, images=list(item.images)) for item in items]
        self._shown: int | None = None  # the item whose text the text area holds

    def compose(self) -> ComposeResult:
        with Vertical(id="queue-dialog"):
            yield Static(
                "Queued messages. pi keeps working; they wait here until Ctrl+S sends them, "
                "in this order. Esc puts them back unchanged.",
                id="queue-intro",
            )
            yield QueueList(id="queue-items")
            yield OrderedTextArea(id="queue-text", soft_wrap=True, show_line_numbers=False)
            yield Static(
                "↑↓ select · Enter edit text (Esc back to the list) · Shift+↑↓ or [ ] move · "
                "t steer/follow-up · d delete · Ctrl+S send · Esc cancel",
                id="queue-hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self._rebuild(0)

    @property
    def queue_list(self) -> QueueList:
        return self.query_one(QueueList)

    @property
    def editor(self) -> TextArea:
        return self.query_one("#queue-text", TextArea)

    @property
    def current(self) -> int | None:
        index = self.queue_list.highlighted
        return index if index is not None and index < len(self.items) else None

    def _rebuild(self, highlight: int | None) -> None:
        option_list = self.queue_list
        option_list.clear_options()
        option_list.add_options(item_label(number, item) for number, item in enumerate(self.items, 1))
        self.query_one("#queue-dialog").border_title = f"Queue · {len(self.items)}"
        if self.items:
            option_list.highlighted = min(highlight or 0, len(self.items) - 1)
        self._shown = None
        self._show_current()

    def _show_current(self) -> None:
        """The highlighted item's text into the text area, unless it holds it already (its
        `OptionHighlighted` may come after Enter and the keys typed into the text)."""
        index = self.current
        if index is not None and index == self._shown:
            return
        self._store_text()
        self._shown = index
        self.editor.load_text(self.items[index].text if index is not None else "")
        self.editor.disabled = index is None

    def _store_text(self) -> None:
        """The text area's text into its item (its `Changed` messages may still be on their way)."""
        index = self._shown
        if index is not None and index < len(self.items) and self.items[index].text != self.editor.text:
            self.items[index].text = self.editor.text
            self.queue_list.replace_option_prompt_at_index(index, item_label(index + 1, self.items[index]))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_current()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_edit()

    def action_edit(self) -> None:
        self._show_current()
        if not self.editor.disabled:
            self.set_focus(self.editor)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._store_text()

    def action_move(self, step: int) -> None:
        index = self.current
        if index is None or not 0 <= index + step < len(self.items):
            return
        items = self.items
        items[index], items[index + step] = items[index + step], items[index]
        self._rebuild(index + step)

    def action_toggle_kind(self) -> None:
        index = self.current
        if index is not None:
            item = self.items[index]
            item.kind = "follow_up" if item.kind == "steer" else "steer"
            self.queue_list.replace_option_prompt_at_index(index, item_label(index + 1, item))

    def action_delete(self) -> None:
        index = self.current
        if index is not None:
            del self.items[index]
            self._rebuild(index)

    def action_back(self) -> None:
        if self.editor.has_focus:
            self._store_text()
            self.set_focus(self.queue_list)
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        self._store_text()
        self.dismiss([item for item in self.items if not item.empty])
