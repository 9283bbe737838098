"""A strip's terminal text with only the SGR sequences it needs.

Textual writes every segment as `ESC[codes m text ESC[0m`, each with its colours in full,
the default ones too (`39;49`): a border of three segments in one colour sets it three
times and resets it three times. About half of what a frame of pideck's screen sent was
such sequences. Here a piece of a line sets a style only where it changes, resets and sets
in one sequence, leaves out what a reset already gives (default colours), and ends reset,
as Textual's does: each piece still begins and ends with the terminal's default style, so
the pieces can be sent, left out or written back in any order (unchanged_lines.py).
"""

from __future__ import annotations

from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

CACHED = 4096  # strips and styles remembered; beyond that the caches start again
_DEFAULTS = frozenset(("39", "49", "59"))  # default foreground, background, underline colour
_COLOURS = {"38", "48", "58"}  # extended colours: 5;n or 2;r;g;b follow

_codes: dict[tuple[Style, ColorSystem], str] = {}
_rendered: dict[int, tuple[Strip, ColorSystem, str]] = {}  # by id: the strip kept, so its id is not reused


def after_reset(ansi: str) -> str:
    """SGR parameters `ansi` less those that a reset sets already (the default colours)."""
    codes = ansi.split(";")
    kept: list[str] = []
    index = 0
    while index < len(codes):
        code = codes[index]
        if code in _COLOURS:
            width = {"5": 3, "2": 5}.get(codes[index + 1] if index + 1 < len(codes) else "", 1)
            kept += codes[index : index + width]
            index += width
            continue
        if code not in _DEFAULTS:
            kept.append(code)
        index += 1
    return ";".join(kept)


def _style_codes(style: Style, system: ColorSystem) -> str:
    key = (style, system)
    codes = _codes.get(key)
    if codes is None:
        if len(_codes) >= CACHED:
            _codes.clear()
        codes = _codes[key] = after_reset(Strip.render_ansi(style, system))
    return codes


def render(strip: Strip, system: ColorSystem) -> str:
    """What Textual's `Strip.render` writes, with the SGR sequences it does not need left out."""
    cached = _rendered.get(id(strip))
    if cached is not None and cached[0] is strip and cached[1] is system:
        return cached[2]
    out: list[str] = []
    current = ""  # the codes in effect since the last reset
    for text, style, _ in strip:
        if not text:
            continue
        if style is not None and style.link:  # Textual's own, which ends reset
            if current:
                out.append("\x1b[0m")
                current = ""
            out.append(Strip.render_style(style, text, system))
            continue
        codes = "" if style is None else _style_codes(style, system)
        if codes != current:
            out.append(f"\x1b[0;{codes}m" if current and codes else f"\x1b[{codes}m" if codes else "\x1b[0m")
            current = codes
        out.append(text)
    if current:
        out.append("\x1b[0m")
    text = "".join(out)
    if len(_rendered) >= CACHED:
        _rendered.clear()
    _rendered[id(strip)] = (strip, system, text)
    return text
