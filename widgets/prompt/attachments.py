"""The images attached to the next message, as removable chips above the prompt editor.

A chip is removed by clicking it, or by Delete / Backspace / Enter when it has focus
(Shift+Tab from the editor reaches the chips). The bar hides itself when empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from protocol.files.images import Attachment, size_label
from widgets.text.safe import clean
from widgets.colors import palette


class Chip(Static, can_focus=True):
    DEFAULT_CSS = """
    Chip {
        width: auto;
        height: 1;
        margin-right: 1;
        padding: 0 1;
        background: $warning 20%;
    }
    Chip:focus {
        background: $accent 50%;
    }
    """
    BINDINGS = [Binding("delete,backspace,enter", "remove", "Remove image")]

    @dataclass
    class Removed(Message):
        chip: Chip

    def __init__(self, attachment: Attachment) -> None:
        label = Text()
        label.append("image ", "bold")
        label.append(clean(attachment.name).replace("\n", " "))
        label.append(f" {size_label(attachment.size)} ", palette.style("muted"))
        label.append("✕", palette.style("error", "bold"))
        super().__init__(label, classes="chip")
        self.attachment = attachment
        self.tooltip = "click or Delete to remove"

    def action_remove(self) -> None:
        self.post_message(self.Removed(self))

    def on_click(self) -> None:
        self.action_remove()


class AttachmentBar(Horizontal):
    DEFAULT_CSS = "AttachmentBar { height: auto; padding: 0 1; }"

    def on_mount(self) -> None:
        self.display = False

    @property
    def attachments(self) -> list[Attachment]:
        return [chip.attachment for chip in self.query_children(Chip)]

    async def add(self, *attachments: Attachment) -> None:
        await self.mount_all(Chip(attachment) for attachment in attachments)
        self.display = bool(self.children)

    async def on_chip_removed(self, event: Chip.Removed) -> None:
        event.stop()
        await event.chip.remove()
        self.display = bool(self.children)

    async def take(self) -> list[Attachment]:
        """The attachments, removing them from the bar (they go with a message)."""
        attachments = self.attachments
        if self.children:  # (without any, nothing is awaited: a prompt goes to pi in the step of its Enter)
            await self.remove_children()
        self.display = False
        return attachments
