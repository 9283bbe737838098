"""Every toast pideck shows passes here: pideck's own and those extensions ask for.

A flood of notifications (an extension calling `notify` in a loop) must not bury the
screen under toasts: at most `MAX_TOASTS` are up at once, the rest are counted for one
"+N more" toast, and every notification is kept (the last `MAX_ENTRIES`, and no more
than `MAX_CHARS` of text in all) for `/notifications`. A toast shows at most
`TOAST_LINES` lines and `TOAST_CHARS` characters of its text; the list has all of it.
Pure logic: the app shows what `add` and `summary` return.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MAX_TOASTS = 3  # toasts up at once, besides the "+N more" one
MAX_ENTRIES = 500  # notifications kept for the list
MAX_CHARS = 4_000_000  # characters of text kept for the list, in all
TOAST_LINES = 6
TOAST_CHARS = 400
TITLE_CHARS = 80
_RANK = {"information": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Notice:
    """One notification, as it was given (its text cut to MAX_CHARS)."""

    message: str
    title: str
    severity: str
    at: float  # time.time() when it came


@dataclass(frozen=True)
class Toast:
    """What a toast shows of a notice; `cut` when it is not all of it."""

    message: str
    title: str
    cut: bool


def toast_text(message: str, lines: int = TOAST_LINES, chars: int = TOAST_CHARS) -> tuple[str, bool]:
    """`message` cut to `lines` lines and `chars` characters, with a note of what was left
    out; and whether anything was."""
    shown = message[:chars]
    kept = shown.split("\n")[:lines]
    shown = "\n".join(kept)
    if len(shown) == len(message):
        return message, False
    rest = message[len(shown):]
    more_lines = rest.count("\n")
    left = f"{more_lines:,} more lines" if more_lines else f"{len(rest):,} more characters"
    return f"{shown} …\n(… {left}: /notifications shows all)", True


class NotificationCenter:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.entries: deque[Notice] = deque()
        self.total = 0  # notifications ever added
        self.hidden = 0  # not toasted, since the last "+N more" toast went away
        self.hidden_severity = "information"  # the gravest of those
        self._chars = 0
        self._toasts: list[float] = []  # when each toast up goes away
        self._summary_until = 0.0  # when the "+N more" toast goes away (inf: due to be shown)

    def add(self, message: str, title: str, severity: str, timeout: float) -> Toast | None:
        """Keep the notification; the toast to show for it, or None when MAX_TOASTS are up
        (it is then counted in `hidden`, for `summary`)."""
        self._keep(Notice(message[:MAX_CHARS], title, severity, time.time()))
        now = self.clock()
        self._toasts = [until for until in self._toasts if until > now]
        if len(self._toasts) < MAX_TOASTS:
            self._toasts.append(now + timeout)
            text, cut = toast_text(message)
            line = title.replace("\n", " ")
            if len(line) > TITLE_CHARS:
                line = line[: TITLE_CHARS - 1] + "…"
            return Toast(text, line, cut or line != title)
        if self._summary_until <= now:  # the last "+N more" went away: count afresh
            self.hidden, self.hidden_severity = 0, "information"
        self.hidden += 1
        if _RANK.get(severity, 0) > _RANK[self.hidden_severity]:
            self.hidden_severity = severity
        self._summary_until = math.inf
        return None

    def summary(self, timeout: float, key: str) -> str:
        """The "+N more" toast's text; it goes away after `timeout` seconds."""
        self._summary_until = self.clock() + timeout
        return f"+{self.hidden:,} more notification{'s' if self.hidden != 1 else ''} · {key} or /notifications lists them"

    def _keep(self, notice: Notice) -> None:
        self.total += 1
        self.entries.append(notice)
        self._chars += len(notice.message)
        while len(self.entries) > MAX_ENTRIES or (self._chars > MAX_CHARS and len(self.entries) > 1):
            self._chars -= len(self.entries.popleft().message)
