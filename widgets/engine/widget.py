"""What Textual keeps private of a widget: whether its anchor was released, which of its
regions are to be painted again, whether it is a key of the Footer."""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget


def anchor_released(widget: Widget) -> bool:
    """The user scrolled anchored `widget` away from its end (it is anchored again there)."""
    released = getattr(widget, "_anchor_released", None)
    return widget.scroll_y < widget.max_scroll_y if released is None else bool(released)


def set_dirty(widget: Widget, *regions: Region) -> None:
    """Mark `regions` of `widget` (in its content's coordinates) to be painted again, and no
    more: `refresh` also forgets the sizes it measured and asks for a frame, which a widget
    measuring its height in a layout must not (where Textual lacks the way: `refresh`)."""
    set_dirty = getattr(widget, "_set_dirty", None)
    if set_dirty is None:
        widget.refresh(*regions)
    else:
        set_dirty(*regions)


def is_footer_key(widget: Widget) -> bool:
    """`widget` is one key of Textual's Footer (not a label or a group's)."""
    try:
        from textual.widgets._footer import FooterKey
    except ImportError:
        return type(widget).__name__ == "FooterKey"
    return isinstance(widget, FooterKey)
