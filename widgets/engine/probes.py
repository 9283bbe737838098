"""What the benchmarks watch and do inside Textual, where it has no public way: every
update the app displays (`App._display` receives each one, headless apps too), and an event
handed to the app as its driver hands it (`App._driver`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def watch_display(app: Any, seen: Callable[[Any, Any], None]) -> Callable[[], None]:
    """Call `seen(screen, renderable)` before each update `app` displays; returns the undo."""
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        seen(screen, renderable)
        original(screen, renderable)

    app._display = display

    def undo() -> None:
        app._display = original

    return undo


def send_as_driver(app: Any, message: Any) -> None:
    """Hand `message` (a key event) to `app` as its terminal's driver does."""
    app._driver.send_message(message)
