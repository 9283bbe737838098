"""Keys that act in the order they were pressed, however fast they come.

Textual runs a (non-priority) key binding only once the key has bubbled from the focused
widget up to the app, while the widget types the characters it receives at once: in a
burst (a fast typist, a pasted key sequence) "End, x" typed the x before End moved the
cursor, and the letters after an Enter that moves the focus still reached the widget that
had it (a list, where `d` deletes). A widget with `KeysInOrder` runs the bindings of its
screen's chain when it reads the key, and sends on a key that arrived after the focus
moved to the widget that has it now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Input, OptionList, TextArea

if TYPE_CHECKING:
    from textual.binding import BindingsMap
    from textual.dom import DOMNode
    from textual.widget import Widget
else:
    Widget = object  # a plain mixin: Textual takes CSS type names and component classes from the first base


class KeysInOrder(Widget):
    """Mixin, before the widget class: `class OrderedInput(KeysInOrder, Input)`.

    A widget that moves the focus on a key must do it at once (`screen.set_focus`),
    not with `focus()`, which waits for the app's queue and so for the rest of the burst.
    """

    async def on_key(self, event: events.Key) -> None:
        if self.sent_on(event):
            return
        if self.check_consume_key(event.key, event.character):
            return  # the widget types it
        for namespace, bindings in _binding_chain(self):
            for binding in bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, namespace):
                    event.stop()
                    event.prevent_default()
                    return

    def sent_on(self, event: events.Key) -> bool:
        """Send a key that came after the focus moved on to the widget that has it now (True);
        a widget's own key handling asks this first, before it acts on the key (an Enter
        after Alt+2 in a burst sends the other session's prompt, not this one's)."""
        focused = self.app.focused
        forward = getattr(focused, "_forward_event", None)
        if focused is None or focused is self or forward is None:
            return False
        event.stop()
        event.prevent_default()
        key = events.Key(event.key, event.character)
        key.time = event.time  # (when it was pressed: the prompt compares it with when text came back)
        if getattr(event, "escape_first", False):
            key.escape_first = True  # type: ignore[attr-defined]
        forward(key)
        return True

    def is_bound(self, key: str) -> bool:
        """Whether a binding of the screen's chain (the app's too) takes `key`."""
        return any(key in bindings.key_to_bindings for _, bindings in _binding_chain(self))


class OrderedInput(KeysInOrder, Input):
    pass


class OrderedTextArea(KeysInOrder, TextArea):
    pass


class OrderedOptionList(KeysInOrder, OptionList):
    pass


def _binding_chain(widget: Widget) -> list[tuple[DOMNode, BindingsMap]]:
    """The bindings of the widget's screen's chain, the app's too (where Textual lacks the
    way to ask: none, and the key goes on as Textual has it)."""
    return getattr(widget.screen, "_modal_binding_chain", [])
