"""Keys as Textual's events have them, with the engine on or off: the keys typed before the
App ran, read as its parser would; the name Textual gives the key of a character; the clock
of its events; pi's keybindings taught to the key table (where the engine runs, keys.py).
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Iterable

from textual import events
from textual.keys import ASCII_KEY_NAMES, KEY_NAME_REPLACEMENTS

from widgets.engine import ON

# what xterm without metaSendsEscape types for Alt+0 to Alt+9: "°" (U+00B0) to "¹" (U+00B9)
EIGHT_BIT_ALT = {chr(0x80 | ord(digit)): digit for digit in "0123456789"}


def keys_in(typed: bytes) -> list[events.Event]:
    """The events of terminal input `typed`, as Textual's key reader would read them (none
    where Textual's parser is not where the engine knows it)."""
    if not typed:
        return []
    try:
        from textual._xterm_parser import XTermParser
    except ImportError:
        return []
    parser = XTermParser()
    return [*parser.feed(typed.decode("utf-8", errors="replace")), *parser.feed("")]


def key_name(character: str) -> str:
    """Textual's name of the key that types `character` (`-` is `minus`), as its bindings
    name it (Textual's own function; where it is missing, the same rule)."""
    try:
        from textual.keys import _character_to_key
    except ImportError:
        pass
    else:
        return _character_to_key(character)
    if character.isalnum():
        return KEY_NAME_REPLACEMENTS.get(character, character)
    try:
        key = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        key = ASCII_KEY_NAMES.get(character, character)
    return KEY_NAME_REPLACEMENTS.get(key, key)


def key_clock() -> float:
    """Now, on the clock of Textual's events (a key's `time`)."""
    try:
        from textual._time import get_time
    except ImportError:
        return time.monotonic()  # (what Textual's clock is, but on Windows)
    return get_time()


def follow_keymap(keys: Iterable[str]) -> None:
    """ESC and a control character are Esc, then that control key, but Ctrl+Alt and that key
    where pi's keybindings.json gives it to an action (`keys`: every key bound); where the
    engine runs (keys.py)."""
    if ON:
        from widgets.engine.keys import use_alt_ctrl_chords

        use_alt_ctrl_chords(keys)
