"""Alt+Enter and Alt+0 to Alt+9 read as such by Textual's key table, the engine on or off.

Terminals send them as ESC and the key. Textual's own table reads ESC CR as a plain Enter
(Alt+Enter, pi's follow-up, sent the message at once as a steer) and ESC and a digit as the
characters WezTerm on macOS types with Option ("¡" for Alt+1, typed into the prompt where it
should show session 1). These are entries in the table, not a parser of pideck's: they are
taught to any Textual whose table and parser take them, checked by reading each sequence
with a parser of its own after teaching it, and left as Textual had them otherwise.
"""

from __future__ import annotations

from typing import Any, NamedTuple

ALT_KEYS = {"\x1b\r": "alt+enter", **{f"\x1b{digit}": f"alt+{digit}" for digit in "0123456789"}}


class Key(NamedTuple):
    """A key in Textual's table, as its own `Keys` are read there (by `.value`)."""

    value: str


def teach_alt_keys() -> bool:
    """Teach Textual's key table the Alt keys; whether it reads them now."""
    try:
        from textual import events
        from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
        from textual._xterm_parser import XTermParser
    except ImportError:
        return False
    if not isinstance(ANSI_SEQUENCES_KEYS, dict):
        return False
    before: dict[str, Any] = {sequence: ANSI_SEQUENCES_KEYS.get(sequence) for sequence in ALT_KEYS}
    for sequence, key in ALT_KEYS.items():
        ANSI_SEQUENCES_KEYS[sequence] = (Key(key),)
    try:
        def read(sequence: str) -> list[str]:
            parser = XTermParser()
            return [event.key for event in [*parser.feed(sequence), *parser.feed("")] if isinstance(event, events.Key)]

        taught = all(read(sequence) == [key] for sequence, key in ALT_KEYS.items())
    except Exception:  # another Textual's parser, used as this one is: its own table then
        taught = False
    if not taught:
        for sequence, value in before.items():
            if value is None:
                ANSI_SEQUENCES_KEYS.pop(sequence, None)
            else:
                ANSI_SEQUENCES_KEYS[sequence] = value
    return taught
