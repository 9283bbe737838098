"""Every toast pideck shows passes here: pideck's own and those extensions ask for.

A flood of notifications (an extension calling `notify` in a loop) must not bury the
screen under toasts: at most `MAX_TOASTS` are up at once, the rest are counted for one
"+N more" toast, and every notification is kept (the last `MAX_ENTRIES`, and no more
than `MAX_CHARS` of text in all) for `/notifications`. The newest always shows: when
`MAX_TOASTS` are up it takes the place of the oldest, which is folded into the count; in a
flood, the toasts change at most every `FOLD_EVERY` seconds (to the newest of those that
came meanwhile, shown by `due`), so that the screen does not churn. A toast shows at most
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
FOLD_EVERY = 0.5  # seconds at least between two toasts that fold an older one
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
    severity: str
    timeout: float
    key: int  # names this toast to `folds` of a later one
    folds: int | None = None  # the key of the toast up that this one takes the place of


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
        self._toasts: list[tuple[float, int, str]] = []  # the toasts up: until, key, severity
        self._keys = 0
        self._last_fold = -math.inf  # when a toast last took the place of another
        self._waiting: tuple[Notice, float] | None = None  # the newest, until FOLD_EVERY has passed
        self._summary_until = 0.0  # when the "+N more" toast goes away (inf: due to be shown)

    def add(self, message: str, title: str, severity: str, timeout: float) -> Toast | None:
        """Keep the notification; the toast to show for it, or None when it must wait (a
        flood): `due` gives it later unless a newer one came, which counts it in `hidden`."""
        notice = Notice(message[:MAX_CHARS], title, severity, time.time())
        self._keep(notice)
        now = self.clock()
        self._toasts = [up for up in self._toasts if up[0] > now]
        if self._waiting is None and (len(self._toasts) < MAX_TOASTS or now - self._last_fold >= FOLD_EVERY):
            return self._show(notice, timeout, now)
        if self._waiting is not None:
            self._count(self._waiting[0].severity, now)
        self._waiting = (notice, timeout)
        self._summary_until = math.inf
        return None

    def due(self) -> Toast | None:
        """The newest notice that waited in a flood, as a toast now; None if none waits."""
        if self._waiting is None:
            return None
        (notice, timeout), self._waiting = self._waiting, None
        now = self.clock()
        self._toasts = [up for up in self._toasts if up[0] > now]
        return self._show(notice, timeout, now)

    def up(self) -> set[int]:
        """The keys of the toasts the center counts as up: any other must be off the screen."""
        now = self.clock()
        return {key for until, key, _ in self._toasts if until > now}

    def taken_off(self, key: int) -> None:
        """The toast of `key` left the screen before its time."""
        self._toasts = [up for up in self._toasts if up[1] != key]

    def _show(self, notice: Notice, timeout: float, now: float) -> Toast:
        folds = None
        if len(self._toasts) >= MAX_TOASTS:  # the oldest makes room, counted in "+N more"
            _, folds, severity = self._toasts.pop(0)
            self._count(severity, now)
            self._summary_until = math.inf
            self._last_fold = now
        self._keys += 1
        self._toasts.append((now + timeout, self._keys, notice.severity))
        text, cut = toast_text(notice.message)
        line = notice.title.replace("\n", " ")
        if len(line) > TITLE_CHARS:
            line = line[: TITLE_CHARS - 1] + "…"
        return Toast(text, line, cut or line != notice.title, notice.severity, timeout, self._keys, folds)

    def _count(self, severity: str, now: float) -> None:
        """One more notice in "+N more"."""
        if self._summary_until <= now:  # the last "+N more" went away: count afresh
            self.hidden, self.hidden_severity = 0, "information"
        self.hidden += 1
        if _RANK.get(severity, 0) > _RANK[self.hidden_severity]:
            self.hidden_severity = severity

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
