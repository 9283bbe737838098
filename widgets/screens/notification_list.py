"""The list of `/notifications` (F8): every notification kept, newest first.

A row shows the time, the title and the first line of the text; Enter dismisses with
the notice's index (the caller shows its full text). Foreign text is cleaned.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text

from protocol.state.notification_center import Notice
from widgets.screens.pickers import FilteredPicker, Row
from widgets.text.safe import clean
from widgets.colors import palette

_MARKS = {"information": ("●", "success"), "warning": ("▲", "warning"), "error": ("■", "error")}  # palette roles
SEARCHED = 2000  # characters of a notice the filter looks at


def notice_row(notice: Notice) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    mark, role = _MARKS.get(notice.severity, ("●", "success"))
    text.append(time.strftime("%H:%M:%S ", time.localtime(notice.at)), palette.style("muted"))
    text.append(f"{mark} ", palette.style(role))
    if notice.title:
        text.append(clean(notice.title[:200]).replace("\n", " ") + ": ", "bold")
    first, _, rest = notice.message[:400].partition("\n")
    text.append(clean(first))
    if rest or len(notice.message) > 400:
        text.append(f"  ({len(notice.message):,} characters)", palette.style("muted"))
    return text


class NotificationList(FilteredPicker[int]):
    DEFAULT_CLASSES = "-tall"
    PLACEHOLDER = "filter: words of the title or text"
    EMPTY = "no notifications yet"

    def __init__(self, notices: Sequence[Notice], total: int) -> None:
        kept = f"the last {len(notices):,} of {total:,}" if total > len(notices) else f"{total:,}"
        super().__init__(f"Notifications ({kept}), newest first")
        self.notices = notices

    def on_mount(self) -> None:
        self.set_rows([
            Row(index, f"{notice.title} {notice.message[:SEARCHED]}".casefold(), notice_row(notice))
            for index, notice in reversed(list(enumerate(self.notices)))
        ])  # fmt: skip

    def hint(self) -> str:
        return f"{len(self.shown):,} shown · ↑↓ move · Enter full text · Esc close"
