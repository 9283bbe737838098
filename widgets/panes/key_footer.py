"""Textual's Footer, showing only the keys that fit whole.

Textual's Footer lays its keys out in a row and cuts the row at the screen's edge, mid-word
("f3 Too"). This one leaves out the keys, from the last, that would not fit entirely; their
bindings work as before (`/hotkeys` and the F1 palette list them all). A binding whose key
is `UNBOUND` (an action the user's keybindings.json left without a key) is not shown.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.dom import NoScreen
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from widgets.engine.widget import is_footer_key

UNBOUND = "unbound"  # the key of a binding with none: no key is called this


def _width(widget: Widget) -> int:
    """The columns `widget` takes in the row, margins included."""
    size = Size(0, 0)  # keys and labels are as wide as their content
    content = widget.render().cell_len if is_footer_key(widget) else widget.get_content_width(size, size)
    return content + widget.styles.gutter.width + widget.styles.margin.width


class KeyFooter(Footer):
    """A Footer whose keys are all whole: those that do not fit are left out, from the end.

    Textual's Footer composes its keys only while the app has the terminal's focus. A
    terminal that reports focus (tmux with `focus-events on`, its session detached or its
    pane not the active one) says "focus out" as pideck starts: when that came before the
    first bindings, the key row stayed empty for the whole session (typing gives the app
    focus back without telling the Footer). The first keys are composed whatever the focus.
    """

    _shown: tuple[object, ...] = ()  # the bindings the keys shown were composed from

    def compose(self) -> ComposeResult:
        """Textual's keys, those `UNBOUND` hidden from the start (not only once `_fit` runs,
        after the recomposed keys are mounted: between the two they showed)."""
        for child in super().compose():
            if is_footer_key(child) and child.key == UNBOUND:
                child.display = False
            yield child

    def bindings_changed(self, screen: Screen) -> None:
        super().bindings_changed(screen)
        if not screen.app.app_focus and not self.children and self.is_attached and screen is self.screen:
            self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        """The keys again, when they are not the ones shown: a session shown again (its
        screen's bindings told afresh) mounted and styled every key anew, 0.1 s a switch."""
        shown = self._keys_now()
        if shown == self._shown and self.children:
            return
        self._shown = shown
        await super().recompose()
        self._fit()

    def _keys_now(self) -> tuple[object, ...]:
        try:
            active = self.screen.active_bindings
        except NoScreen:  # (not attached)
            return ()
        return tuple((key, shown.binding.action, shown.binding.description, shown.binding.show, shown.enabled,
                      shown.tooltip) for key, shown in active.items())

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        shown = [child for child in self.children if not (is_footer_key(child) and child.key == UNBOUND)]
        for child in self.children:
            child.display = child in shown
        keys = [child for child in shown if not child.has_class("-command-palette")]
        room = self.size.width - sum(_width(child) for child in shown if child not in keys)
        fits = True
        for child in keys:
            room -= _width(child)
            fits = fits and room >= 0  # once one does not fit, the keys after it are left out too
            child.display = fits
