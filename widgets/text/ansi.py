"""Command output with its colours: SGR sequences (`ESC [ … m`) become Rich styles and
everything else `safe.clean` strips is stripped (cursor moves, OSC 52 clipboard
writes, OSC 8 links, titles, bidi overrides, other control characters).

The text that shows is exactly `clean_lines(text)` (each line one row: U+2028 and U+2029
show as `ROW_BREAK`): only styles are added. Blink and conceal
are left out (concealed text would hide output). The default colours (39, 49) are those of
the widget the text is drawn on: the terminal's own background would show through a
theme's as a stripe.
"""

from __future__ import annotations

import re

from rich.color import Color
from rich.style import Style
from rich.text import Text

from protocol.numbers import parse_int
from widgets.text.safe import ROW_BREAK, controls

_SGR = re.compile(r"(?:\x1b\[|\x9b)([0-9;:]*)m")
UNKNOWN = 255  # a code too long to read: no plain style, colour 255 (as 256 and up are)
_PLAIN_STYLES = {
    1: "bold", 2: "dim", 3: "italic", 4: "underline", 7: "reverse", 9: "strike", 21: "underline2",
    22: "not dim not bold", 23: "not italic", 24: "not underline", 27: "not reverse", 29: "not strike",
    53: "overline", 55: "not overline",
    **{30 + n: f"color({n})" for n in range(8)}, **{40 + n: f"on color({n})" for n in range(8)},
    **{90 + n: f"color({n + 8})" for n in range(8)}, **{100 + n: f"on color({n + 8})" for n in range(8)},
}  # fmt: skip


def sgr_style(style: Style, params: str) -> Style:
    """`style` after one SGR sequence's parameters (`"1;31"`, `"38;5;208"`, `""`). An empty
    parameter is 0; one too long to be a number (5,000 digits) is a code no style has."""
    codes = [min(255, parse_int(code, UNKNOWN)) if code else 0 for code in re.split("[;:]", params)]
    index = 0
    while index < len(codes):
        code = codes[index]
        index += 1
        if code == 0:
            style = Style.null()
        elif code in (39, 49):  # back to the colours of what it is drawn on, not the terminal's own
            style = Style.from_color(None if code == 39 else style.color, None if code == 49 else style.bgcolor) \
                + style.without_color
        elif code in _PLAIN_STYLES:
            style += Style.parse(_PLAIN_STYLES[code])
        elif code in (38, 48) and index < len(codes):
            kind = codes[index]
            if kind == 5 and index + 1 < len(codes):
                color, index = Color.from_ansi(codes[index + 1]), index + 2
            elif kind == 2 and index + 3 < len(codes):
                color, index = Color.from_rgb(*codes[index + 1 : index + 4]), index + 4
            else:
                break
            style += Style(color=color) if code == 38 else Style(bgcolor=color)
    return style


def ansi_text(text: str, style: str = "") -> Text:
    """`text` cleaned of every terminal control, its SGR colours kept as styles."""
    out = Text(style=style)
    current, at = Style.null(), 0
    for match in controls(text):
        if match.start() > at:
            out.append(_plain(text[at : match.start()]), current or None)
        sgr = _SGR.fullmatch(match.group())
        if sgr is not None:
            current = sgr_style(current, sgr.group(1))
        at = match.end()
    if at < len(text):
        out.append(_plain(text[at:]), current or None)
    return out


def _plain(piece: str) -> str:
    return piece.replace("\u2028", ROW_BREAK).replace("\u2029", ROW_BREAK)
