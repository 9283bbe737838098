"""A strip's terminal text with only the SGR sequences it needs.

Textual writes every segment as `ESC[codes m text ESC[0m`, each with its colours in full,
the default ones too (`39;49`): a border of three segments in one colour sets it three
times and resets it three times. About half of what a frame of pideck's screen sent was
such sequences. Here a piece of a line sets a style only where it changes, resets and sets
in one sequence, leaves out what a reset already gives (default colours), and ends reset,
as Textual's does: each piece still begins and ends with the terminal's default style, so
the pieces can be sent, left out or written back in any order (unchanged_lines.py).

A long run of blanks in the default style (the rest of a transcript row, a pane's empty
rows, the status line after its words) is erased (ECH) and stepped over (CUF) instead of
written, where the terminal has ECH (a VT220's; not a VT100's): 11 bytes where 60 spaces
were 60. Erased cells are blanks in the current colours, which there are the default ones,
as the spaces were; the cursor ends where they would have left it (at the right edge, on it
rather than past it: a piece there is the row's last).
"""

from __future__ import annotations

import re

from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

ERASE_FROM = 12  # blanks in a run from which it is erased and stepped over ("\x1b[12X\x1b[12C" is 10 bytes)
_BLANKS = re.compile(f" {{{ERASE_FROM},}}")
CACHED = 4096  # strips and styles remembered; beyond that the caches start again
_DEFAULTS = frozenset(("39", "49", "59"))  # default foreground, background, underline colour
_COLOURS = {"38", "48", "58"}  # extended colours: 5;n or 2;r;g;b follow

_codes: dict[tuple[Style, ColorSystem], str] = {}
_rendered: dict[int, tuple[Strip, ColorSystem, bool, str]] = {}  # by id: the strip kept, so its id is not reused


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


_NO_ERASE = re.compile(r"(dumb|unknown|vt52|vt1\d\d|sun)(-.*)?")  # terminals without ECH


def terminal_erases(term: str) -> bool:
    """Whether the terminal `TERM` names has ECH. Not from terminfo: its entries for tmux and
    screen leave ECH out though tmux has it; those of the VT100 and what it lacks are named."""
    return _NO_ERASE.fullmatch(term.strip().lower()) is None


def _style_codes(style: Style, system: ColorSystem) -> str:
    key = (style, system)
    codes = _codes.get(key)
    if codes is None:
        if len(_codes) >= CACHED:
            _codes.clear()
        codes = _codes[key] = after_reset(Strip.render_ansi(style, system))
    return codes


def _erased(blanks: re.Match[str]) -> str:
    count = len(blanks[0])
    return f"\x1b[{count}X\x1b[{count}C"


def render(strip: Strip, system: ColorSystem, erase: bool = True) -> str:
    """What Textual's `Strip.render` writes, with the SGR sequences it does not need left out
    (and long runs of blanks erased, if `erase`)."""
    cached = _rendered.get(id(strip))
    if cached is not None and cached[0] is strip and cached[1] is system and cached[2] is erase:
        return cached[3]
    out: list[str] = []
    current = ""  # the codes in effect since the last reset
    plain: list[str] = []  # text in the default style since the last sequence, its blanks erased together

    def flush() -> None:
        if plain:
            text = "".join(plain)
            out.append(text if not erase or len(text) < ERASE_FROM else _BLANKS.sub(_erased, text))
            plain.clear()

    for text, style, _ in strip:
        if not text:
            continue
        if style is not None and style.link:  # Textual's own, which ends reset
            flush()
            if current:
                out.append("\x1b[0m")
                current = ""
            out.append(Strip.render_style(style, text, system))
            continue
        codes = "" if style is None else _style_codes(style, system)
        if codes != current:
            flush()
            out.append(f"\x1b[0;{codes}m" if current and codes else f"\x1b[{codes}m" if codes else "\x1b[0m")
            current = codes
        if current:
            out.append(text)
        else:
            plain.append(text)
    flush()
    if current:
        out.append("\x1b[0m")
    text = "".join(out)
    if len(_rendered) >= CACHED:
        _rendered.clear()
    _rendered[id(strip)] = (strip, system, erase, text)
    return text
