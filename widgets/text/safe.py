"""Foreign text (model, tool, extension output) made safe to show.

`clean` (protocol/control_codes.py) strips every terminal control sequence so text
cannot move the cursor, set the window title, write the clipboard (OSC 52), hide content
or reorder it. `safe` wraps the result in a `rich.text.Text`, so brackets stay literal and
never become Rich or Textual markup (`[bold]`, `[@click=...]`). `one_row` and `clean_lines`
(also from protocol/control_codes.py) keep a line break from ending a screen row.
"""

from __future__ import annotations

from rich.text import Text

from protocol.control_codes import ROW_BREAK, SEQUENCE_LIMIT, clean, clean_lines, controls, one_row, spanning

__all__ = ["ROW_BREAK", "SEQUENCE_LIMIT", "clean", "clean_lines", "controls", "one_row", "safe", "spanning"]


def safe(text: str, style: str = "") -> Text:
    """Foreign `text` as a literal Rich `Text` (cleaned, never parsed as markup)."""
    return Text(clean(text), style=style)
