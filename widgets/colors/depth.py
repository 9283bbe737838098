"""The colours a terminal can show, as a line filter over what pideck draws.

Textual writes 24-bit colour wherever Rich's detection finds no colour system (`TERM=dumb`)
and where `COLORTERM` says so, whatever `TERM` names; with `NO_COLOR` it writes every colour
as a grey. Here `NO_COLOR`, a dumb terminal and a monochrome VT (`vt100`, `vt220`…) get no
colour at all (bold, underline and the other attributes stay; a list's cursor is underlined,
app/pideck.tcss), and the Linux console its 16 colours. Other terminals keep Rich's
detection, and `TEXTUAL_COLOR_SYSTEM` set by the user wins over all of this.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import Enum
from functools import lru_cache

from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import Color as TextualColor
from textual.filter import LineFilter, Monochrome, NoColor

_MONOCHROME_TERMS = re.compile(r"vt(52|1\d\d|2\d\d|3\d\d|4\d\d)")  # the VTs before colour (VT525 had it)


class Depth(Enum):
    """What a terminal is sent, beyond what Rich finds on its own."""

    AS_DETECTED = "as detected"
    SIXTEEN = "16 colours"
    NONE = "no colour"


def depth_for(environ: Mapping[str, str]) -> Depth:
    """The colours to send to the terminal `environ` describes."""
    if environ.get("TEXTUAL_COLOR_SYSTEM", "auto") != "auto":
        return Depth.AS_DETECTED
    term = environ.get("TERM", "").strip().lower()
    if "NO_COLOR" in environ or term in ("dumb", "unknown") or _MONOCHROME_TERMS.fullmatch(term):
        return Depth.NONE
    if term == "linux" or term.startswith("linux-"):
        return Depth.SIXTEEN
    return Depth.AS_DETECTED


@lru_cache(maxsize=4096)
def _sixteen(style: Style) -> Style:
    def down(color: Color | None) -> Color | None:
        return None if color is None else color.downgrade(ColorSystem.STANDARD)

    return style + Style.from_color(down(style.color), down(style.bgcolor))


class SixteenColors(LineFilter):
    """Every colour as the nearest of the terminal's 16."""

    def apply(self, segments: list[Segment], background: TextualColor) -> list[Segment]:
        return [Segment(text, None if style is None else _sixteen(style), control) for text, style, control in segments]


def filters_for(depth: Depth, filters: Sequence[LineFilter]) -> Sequence[LineFilter]:
    """Textual's line filters `filters`, ended by the one `depth` needs (with no colour,
    Textual's greys for `NO_COLOR` are not worked out only to be dropped)."""
    if depth is Depth.NONE:
        return [*(f for f in filters if not isinstance(f, (Monochrome, NoColor))), _NO_COLOR]
    if depth is Depth.SIXTEEN:
        return [*filters, _SIXTEEN]
    return filters


_NO_COLOR = NoColor()
_SIXTEEN = SixteenColors()
