"""Alt+Enter, Ctrl+Alt+] and Alt+arrows as one key.

Most terminals (and tmux) send Alt+Enter as ESC followed by CR. Textual's parser
reads that pair as a plain "enter" and drops the ESC, so it could neither queue a
follow-up nor be told apart from Enter. Mapping the pair to "alt+enter" keeps it
one key press; it never becomes an Esc (which would abort the run). Ctrl+Alt+] (pi's
jump backward to a character) is ESC followed by Ctrl+], which Textual reads as a plain
Ctrl+] (jump forward); it is mapped to "alt+ctrl+right_square_bracket" the same way.
Alt+0 to Alt+9 (the keys that show a session) come as ESC and the digit, which Textual reads
as the characters WezTerm on macOS types with Option ("¡" for Alt+1, into the prompt); they
are mapped to "alt+0" to "alt+9". A terminal that types "¡" sends the character itself.

Alt+Up (restore the queue) arrives as `ESC [1;3A` from xterm-like terminals and tmux,
which Textual reads as "alt+up", but as ESC followed by the plain arrow (`ESC ESC [A`)
from terminals where Alt only prefixes ESC (rxvt, some macOS setups). Textual reads
that as Esc, then Up, and Esc aborts the run; `install_alt_arrows` rewrites it to the
xterm form before Textual parses it. A person cannot type Esc and an arrow within one
read of the terminal, so nothing else is changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple
from widgets.textual_private import ANSI_SEQUENCES_KEYS, XTermParser


_META_ARROWS = {
    f"\x1b\x1b{intro}{final}": f"\x1b[1;3{final}" for intro in ("[", "O") for final in "ABCD"
}


class _Key(NamedTuple):
    value: str


def install_alt_keys() -> None:
    ANSI_SEQUENCES_KEYS["\x1b\r"] = (_Key("alt+enter"),)  # type: ignore[assignment]
    for digit in "0123456789":  # (Textual types WezTerm-on-macOS's Option characters for these: "¡" for Alt+1)
        ANSI_SEQUENCES_KEYS[f"\x1b{digit}"] = (_Key(f"alt+{digit}"),)  # type: ignore[assignment]
    ANSI_SEQUENCES_KEYS["\x1b\x1d"] = (_Key("alt+ctrl+right_square_bracket"),)  # type: ignore[assignment]


def install_alt_arrows() -> None:
    feed = XTermParser.feed
    if getattr(feed, "pideck_alt_arrows", False):
        return

    def feed_alt_arrows(self: XTermParser, data: str) -> Iterable[Any]:
        if "\x1b\x1b" in data:
            for meta, xterm in _META_ARROWS.items():
                data = data.replace(meta, xterm)
        return feed(self, data)

    feed_alt_arrows.pideck_alt_arrows = True  # type: ignore[attr-defined]
    XTermParser.feed = feed_alt_arrows  # type: ignore[method-assign]
