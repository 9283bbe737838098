"""`Shell`: what the desk, its sessions and their commands ask of the Textual app that shows
them (app/pideck_app.py is one). Textual's App has most of it; the rest is pideck's own.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # (types only: the desk imports no Textual)
    from textual.binding import BindingsMap
    from textual.screen import Screen

    from app.keybindings import PiKeymap
    from app.selection_copy import SelectionCopy
    from app.themes import Themes
    from app.toasts import Toasts


class Shell(Protocol):
    TITLE: str
    title: str
    app_focus: bool
    themes: Themes
    selection: SelectionCopy
    keys: PiKeymap  # pi's keybindings.json, as pideck's keys read it

    @property
    def toasts(self) -> Toasts: ...

    @property
    def leaving(self) -> bool:
        """The app is exiting or has stopped: records, timers and workers leave the views alone."""
        ...

    @property
    def closing(self) -> bool: ...

    @property
    def is_running(self) -> bool: ...

    @property
    def is_headless(self) -> bool: ...

    @property
    def return_code(self) -> int | None: ...

    @property
    def key_bindings(self) -> BindingsMap:
        """pideck's keys in force (the global ones then the main screen's)."""
        ...

    def exit(self, result: int | None = None) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def add_mode(self, mode: str, base_screen: Callable[[], Screen[Any]]) -> None: ...

    async def remove_mode(self, mode: str) -> object: ...

    def switch_mode(self, mode: str) -> object: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], object]) -> object: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any:
        """Show `screen` and wait for what it is dismissed with (from a worker only)."""
        ...

    def run_worker(self, work: Any, name: str | None = "", group: str = "default", exit_on_error: bool = True) -> Any: ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Any: ...

    def set_interval(self, interval: float, callback: Callable[[], None]) -> Any: ...

    def call_next(self, callback: Callable[[], None]) -> Any: ...

    def call_later(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool: ...

    def call_after_refresh(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> Any: ...

    def batch_update(self) -> AbstractContextManager[None]: ...

    def refresh_bindings(self) -> None: ...

    def write_to_terminal(self, sequence: str) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def run_in_terminal(self, argv: list[str], cwd: Path) -> int | None:
        """pideck suspended while `argv` runs in the terminal (in `cwd`): its status, None if it cannot be."""
        ...

    def reread_settings(self) -> None:
        """pi's keybindings.json, display settings and theme again (/reload)."""
        ...
