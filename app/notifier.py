"""`Notifier`: toasts with markup off, for pideck's commands and helpers.

pi's, extensions' and the user's text is data: never read as Textual markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

SeverityLevel = Literal["information", "warning", "error"]  # Textual's (no Textual import: pi's session uses this)

Notify = Callable[..., None]  # App.notify's signature


class Notifier:
    """Toasts with markup off: `say` informs, `warn` and `fail` are warnings and errors."""

    def __init__(self, notify: Notify) -> None:
        self._notify = notify

    def say(self, text: str, title: str = "", timeout: float | None = None) -> None:
        self._show(text, title, "information", timeout)

    def warn(self, text: str, title: str = "", timeout: float | None = None) -> None:
        self._show(text, title, "warning", timeout)

    def fail(self, text: str, title: str = "", timeout: float | None = None) -> None:
        self._show(text, title, "error", timeout)

    def _show(self, text: str, title: str, severity: SeverityLevel, timeout: float | None) -> None:
        self._notify(text, title=title, severity=severity, timeout=timeout, markup=False)
