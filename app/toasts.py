"""Toasts through the notification center (protocol.state.notification_center).

`PideckApp.notify` hands every notification to `Toasts.notify`: the center keeps it and
says which toast to show for it and which older one it takes the place of; those folded
or passed over in a flood are summed up in one "+N more" toast, replaced at most every
`SUMMARY_EVERY` seconds however fast they come. F8 or `/notifications`
(app/commands/notifications.py) lists them all.

Nothing covers an open question (a revert's, an extension's dialog, a picker): its screen
shows no toast (app/pideck.tcss), and those that come meanwhile are shown once it is
closed, for their whole time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.notifications import Notification, Notify
from textual.timer import Timer

from protocol.state.notification_center import NotificationCenter, Toast
from widgets.text.safe import clean
from widgets.screens.dialogs import ExtensionDialog
from widgets.screens.pickers import FilteredPicker
from widgets.screens.revert_dialog import RevertDialog

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

SUMMARY_EVERY = 0.5  # seconds between two updates of the "+N more" toast
LIST_KEY = "F8"  # the key bound to run('notifications') in MainScreen.BINDINGS
QUESTIONS = (RevertDialog, ExtensionDialog, FilteredPicker)  # screens no toast covers


class Toasts:
    """`unnotify` takes a toast off the screen (the App's `unnotify`, widgets/engine/app.py)."""

    def __init__(self, app: App[Any], unnotify: Callable[[Notification], None]) -> None:
        self.app = app
        self._unnotify = unnotify
        self.center = NotificationCenter()
        self._summary: Notification | None = None
        self._summary_timer: Timer | None = None
        self._up: dict[int, Notification] = {}  # the toasts shown, by their center key
        self._waiting_markup = False  # the markup flag of the notice the center holds back
        self._after_question: list[Notification] = []  # toasts that came while a question was open

    def notify(self, message: str, title: str, severity: SeverityLevel, timeout: float | None, markup: bool) -> int | None:
        """Keep the notification and toast it; the toast's key (for `take_off`), or None
        while a flood holds it back."""
        app = self.app
        timeout = app.NOTIFICATION_TIMEOUT if timeout is None else timeout
        # no terminal control reaches the screen, whatever a toast quotes (pi's errors and paths)
        toast = self.center.add(clean(message), clean(title), severity, timeout)
        if toast is not None:
            self._show(toast, markup)
        else:
            self._waiting_markup = markup
        if (toast is None or toast.folds is not None) and self._summary_timer is None and app.is_running:
            self._summary_timer = app.set_timer(SUMMARY_EVERY, self._show_summary)
        return None if toast is None else toast.key

    def take_off(self, key: int) -> None:
        """Take the toast `notify` gave `key` off the screen before its time (what it says
        no longer holds); the notification stays in the list."""
        notification = self._up.pop(key, None)
        if notification is not None:
            self.center.taken_off(key)
            self.app.call_later(self._unnotify, notification)  # (after its Notify message, if not handled yet)

    def _show(self, toast: Toast, markup: bool) -> None:
        # the screen holds what the center counts, no more: the folded toast, and any the
        # center's clock let go that Textual (its own timer, from the mount) still shows.
        # Taken off after the Notify messages posted before, which a flood may not have
        # handled yet: taken off earlier, the folded toast would come up after all.
        up = self.center.up()
        for key in [key for key in self._up if key not in up]:
            self.app.call_later(self._unnotify, self._up.pop(key))
        # a cut text may have lost the end of its markup: shown plain
        notification = Notification(toast.message, toast.title, toast.severity, toast.timeout,  # type: ignore[arg-type]
                                    markup=markup and not toast.cut)
        self._up[toast.key] = notification
        self._post(notification)

    def _post(self, notification: Notification) -> None:
        if self._question_open():
            self._after_question.append(notification)
        else:
            self.app.post_message(Notify(notification))

    def _question_open(self) -> bool:
        return self.app.is_running and bool(self.app.screen_stack) and isinstance(self.app.screen, QUESTIONS)

    def after_question(self) -> None:
        """Show the toasts that came while a question was open, once none is (the App's
        tick), each for its whole time from now."""
        if not self._after_question or self._question_open():
            return
        waited, self._after_question = self._after_question, []
        for notification in waited:
            if notification in self._up.values() or notification is self._summary:  # (not taken off meanwhile)
                notification.raised_at = time.time()  # (Textual's clock of a toast's time)
                self.app.post_message(Notify(notification))

    def _show_summary(self) -> None:
        """The newest notice held back in a flood, and the "+N more" toast in place of the
        one it showed before."""
        self._summary_timer = None
        app = self.app
        waiting = self.center.due()
        if waiting is not None:
            self._show(waiting, self._waiting_markup)
        if self.center.hidden == 0:
            return
        if self._summary is not None:
            self._unnotify(self._summary)
        timeout = app.NOTIFICATION_TIMEOUT
        text = self.center.summary(timeout, LIST_KEY)
        severity = self.center.hidden_severity
        self._summary = Notification(text, "", severity, timeout, markup=False)  # type: ignore[arg-type]
        self._post(self._summary)
