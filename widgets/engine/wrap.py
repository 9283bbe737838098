"""Where Textual wraps a line of text, as offsets."""

from __future__ import annotations


def line_breaks(text: str, width: int) -> list[int]:
    """The offsets in `text` where each of its rows starts, but the first, wrapped to `width`
    as a Static wraps it (Textual's Content wraps at Rich's cuts; `Content.wrap` gives the
    rows without their offsets); none where Rich's function is not there to ask."""
    try:
        from rich._wrap import divide_line
    except ImportError:
        return []
    return divide_line(text, width)
