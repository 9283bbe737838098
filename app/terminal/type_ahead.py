"""Keys typed before pideck's prompt has the focus land in it, in order, as in pi's TUI.

From the moment pideck runs, what is typed waits in the terminal's input. The question
for the terminal's colours (app/terminal/colors.py) reads all of that input up to the
terminal's answer, so the keys typed until then come as bytes (parsed by `keys_in`,
widgets/engine/keys.py); Textual's key reader reads what is typed later, and gives it to the
app while the screen is still being put together, when nothing has the focus and Textual
hands a key to no one.
`HeldKeys` holds both, in the order they were typed, until the prompt has the focus.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import events


class HeldKeys:
    """Keys and pastes that reach the app before the focus is where keys go, handed on in
    order once it is. `ready` says whether it is; `handle` is the app's own handling of an
    event; `typed` are the keys typed before the app ran (`keys_in`)."""

    def __init__(self, ready: Callable[[], bool], handle: Callable[[events.Event], Awaitable[None]],
                 typed: list[events.Event]) -> None:
        self._ready = ready
        self._handle = handle
        self._held: list[events.Event] | None = typed  # None once handed on: from then on nothing is held

    async def take(self, event: events.Event) -> bool:
        """True if `event` is held; any event, once the focus is ready, first hands on those held."""
        if self._held is None:
            return False
        if self._ready():
            await self.release()
            return False
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self._held.append(event)
            return True
        return False

    async def release(self) -> None:
        """Hand on the keys held, if the focus is ready (in the app's turn, as any key)."""
        if self._held is None or not self._ready():
            return
        held, self._held = self._held, None
        for key in held:
            await self._handle(key)
