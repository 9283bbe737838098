"""What an extension's `setWidget` lines show above or below the prompt, kept small.

As in pi's TUI, a widget shows at most `MAX_WIDGET_LINES` lines (a line's own newlines
start new lines); the rest is summed up as "… N more lines". Each line takes one row
(app/pideck.tcss cuts it with "…"), and the containers' max-height caps all widgets
together, so an extension can never push the prompt or the transcript off the screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from widgets.colors import palette
from widgets.text.safe import clean

MAX_WIDGET_LINES = 10  # pi's InteractiveMode.MAX_WIDGET_LINES
LINE_CHARS = 500  # a longer line is cut before it is cleaned (one row shows less)
MAX_WIDGETS = 50  # widgets shown per placement; the rest are summed up in one line


def widget_text(lines: Sequence[str]) -> Text:
    """The first MAX_WIDGET_LINES lines of a widget, cleaned, and a note of the rest."""
    rows: list[str] = []
    total = 0
    for line in lines:
        total += line.count("\n") + 1
        room = MAX_WIDGET_LINES - len(rows)
        if room > 0:
            for part in line.split("\n", room)[:room]:
                rows.extend(clean(part[:LINE_CHARS]).split("\n"))  # clean makes U+2028 a newline
    rows = rows[:MAX_WIDGET_LINES]
    text = Text("\n".join(rows))
    if (hidden := total - len(rows)) > 0:
        text.append(f"\n… {hidden:,} more line{'s' if hidden != 1 else ''}", palette.style("muted", "italic"))
    return text


def more_widgets(count: int) -> Text:
    return Text(f"… {count:,} more widget{'s' if count != 1 else ''}", palette.style("muted", "italic"))
