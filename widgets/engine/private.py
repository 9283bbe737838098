"""The names the engine takes from Textual's private modules, each with what it is for;
imported by the modules that run only where the engine does (widgets/engine/__init__.py).
The small functions that work with the engine off too import what they need themselves,
each with a way round a name that is missing."""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message

# The clock and sleep of Textual's timers, which the frame timer keeps to (frame_timer.py).
from textual import _time as textual_time

# The frame Textual hands its driver, looked into to leave out what the terminal shows already
# (unchanged_lines.py); the compositor, whose partial frames render only the rows they repaint
# (rows_compositor.py).
from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate, MapGeometry, ReflowResult

# Textual's key table and parser: Alt+Enter, Ctrl+Alt+] and Alt+arrows arrive as one key
# only if taught there (keys.py).
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser


def escape_now(parser: XTermParser) -> Iterable[Message]:
    """What `parser` holds while it waits to see whether an ESC starts a sequence, read now
    as if that wait had ended (a lone ESC: the Esc key)."""
    if parser._timeout_time is None:
        return ()
    parser._timeout_time = 0.0
    return parser.tick()


__all__ = [
    "ANSI_SEQUENCES_KEYS", "ChopsUpdate", "Compositor", "CompositorUpdate", "LayoutUpdate", "MapGeometry",
    "ReflowResult", "XTermParser", "escape_now", "textual_time",
]
