"""Where Textual wraps a line of text, as offsets."""

from __future__ import annotations

from widgets.engine.private import divide_line


def line_breaks(text: str, width: int) -> list[int]:
    """The offsets in `text` where each of its rows starts, but the first, wrapped to `width`
    as a Static wraps it (Textual's Content wraps at Rich's cuts; `Content.wrap` gives the
    rows without their offsets)."""
    return divide_line(text, width)
