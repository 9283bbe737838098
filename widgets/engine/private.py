"""The names the engine takes from Textual's private modules (and Rich's, as Textual uses
it), each with what it is for; imported by the engine's modules only."""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message

# The clock and sleep of Textual's timers, which the frame timer keeps to (frame_timer.py),
# and the clock of its events' times (a prompt compares a key's time with when text came back).
from textual import _time as textual_time

# The frame Textual hands its driver, looked into to leave out what the terminal shows already
# (unchanged_lines.py); the compositor, whose partial frames render only the rows they repaint
# (rows_compositor.py).
from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate, MapGeometry, ReflowResult

# Textual's key table and parser: Alt+Enter, Ctrl+Alt+] and Alt+arrows arrive as one key
# only if taught there (keys.py); type-ahead read before the App runs is parsed as Textual
# would (keys_before.py).
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser

# The writer thread of the Linux driver, replaced by one that survives a dead terminal
# (driver.py): the driver creates it by this name.
from textual.drivers._writer_thread import WriterThread

# pi's key names to Textual's (`-` is `minus`): the mapping Textual itself uses for bindings.
from textual.keys import _character_to_key as character_to_key

# Where a Static's line wraps: the cuts Textual's Content wraps at (it calls this function of
# Rich's), for search to bring the row of a match in a long wrapped line on screen
# (widgets/transcript_search.py); `Content.wrap` gives the wrapped lines without their offsets.
from rich._wrap import divide_line

# One key of the Footer, measured so that only keys that fit whole are shown (widgets/key_footer.py).
from textual.widgets._footer import FooterKey


def escape_now(parser: XTermParser) -> Iterable[Message]:
    """What `parser` holds while it waits to see whether an ESC starts a sequence, read now
    as if that wait had ended (a lone ESC: the Esc key)."""
    if parser._timeout_time is None:
        return ()
    parser._timeout_time = 0.0
    return parser.tick()


__all__ = [
    "ANSI_SEQUENCES_KEYS", "ChopsUpdate", "Compositor", "CompositorUpdate", "FooterKey", "LayoutUpdate", "MapGeometry",
    "ReflowResult",
    "WriterThread", "XTermParser", "character_to_key", "divide_line", "escape_now", "textual_time",
]
