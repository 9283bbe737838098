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
xterm, unless told to send Alt as ESC (its `metaSendsEscape` resource), sets the eighth bit
of the digit: Alt+1 comes as "±" (U+00B1), Alt+0 as "°"; those are characters a keyboard
types too, so they stay characters (`EIGHT_BIT_ALT`, key_events.py, names the digit each
stands for). Alt+Enter and Alt+digits are taught to Textual's table with the engine off too
(alt_keys.py); where the engine does not run, Textual reads the others as it does.

Alt+Up (restore the queue) arrives as `ESC [1;3A` from xterm-like terminals and tmux,
which Textual reads as "alt+up", but as ESC followed by the plain arrow (`ESC ESC [A`)
from terminals where Alt only prefixes ESC (rxvt, some macOS setups). Textual reads
that as Esc, then Up, and Esc aborts the run; `install_key_reads` rewrites it to the
xterm form before Textual parses it. A person cannot type Esc and an arrow within one
read of the terminal, so nothing else is changed.

Esc pressed just before another key must stay Esc (it aborts the run). Textual reads an
ESC followed within 100 ms by another character as one Alt key, and an ESC followed by a
control character as that control alone, so Esc then Ctrl+C quickly (or keys bunched by
tmux or an ssh link) was a lone Ctrl+C: the abort lost. So:
- ESC and a control character that no terminal sends for a key pideck knows (ESC and
  Ctrl+C, Ctrl+L, ...; not Alt+Enter, Alt+Backspace as ESC ^H, ESC Tab (Shift+Tab),
  Ctrl+Alt+]) are read as Esc, then that key: a Ctrl+Alt key, which terminals send
  so, only where pi's keybindings.json gives it an action (`use_alt_ctrl_chords`);
- an ESC that ended one read of the terminal, followed in the next read by anything
  that does not continue an escape sequence, is Esc, then what follows: a terminal
  sends an Alt key in one write, which comes in one read;
- ESC and a character in one read stay Textual's Alt key, marked `escape_first`: the
  prompt editor reads one that no binding takes as Esc, then the character
  (widgets/prompt/readline_area.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from typing import Any

from textual import events
from widgets.engine.alt_keys import Key, teach_alt_keys
from widgets.engine.private import ANSI_SEQUENCES_KEYS, XTermParser, escape_now


_META_ARROWS = {
    f"\x1b\x1b{intro}{final}": f"\x1b[1;3{final}" for intro in ("[", "O") for final in "ABCD"
}
# control characters that after an ESC are a key of their own (see above)
_AFTER_ESCAPE = "".join(chr(code) for code in range(0x20) if chr(code) not in "\x08\t\n\r\x1b\x1d")
# what may follow an ESC in a sequence (CSI, SS3, OSC, DCS, APC, PM, ST, SOS) or a paste's end
_CONTINUES = frozenset("[O]P_^\\X\x1b")
_PASTE_START, _PASTE_END = "\x1b[200~", "\x1b[201~"


def install_alt_keys() -> None:
    """Alt+Enter and Alt+digits (alt_keys.py), Ctrl+Alt+] and the Ctrl+Alt chords."""
    teach_alt_keys()
    ANSI_SEQUENCES_KEYS["\x1b\x1d"] = (Key("alt+ctrl+right_square_bracket"),)  # type: ignore[assignment]
    use_alt_ctrl_chords(())


def use_alt_ctrl_chords(keys: Iterable[str]) -> None:
    """ESC and a control character are Esc, then that control key, but Ctrl+Alt and that key
    where pi's keybindings.json gives it to an action (`keys`: every key bound)."""
    chords = {key for key in keys if key.startswith("alt+ctrl+")}
    for control in _AFTER_ESCAPE:
        plain = ANSI_SEQUENCES_KEYS[control]
        chord = f"alt+{plain[0].value}"  # type: ignore[union-attr]
        keys_read = (Key(chord),) if chord in chords else (Key("escape"), *plain)
        ANSI_SEQUENCES_KEYS[f"\x1b{control}"] = keys_read  # type: ignore[assignment]


class _Reads:
    """What a parser's reads so far tell about the next one."""

    __slots__ = ("escape_ended", "pasting", "tail", "last")

    def __init__(self) -> None:
        self.escape_ended = False  # the last read ended with an ESC
        self.pasting = False  # inside a bracketed paste
        self.tail = ""  # the end of the last read (a paste marker may be split between reads)
        self.last = ""  # the last read, after that end of the one before

    def read(self, data: str) -> None:
        seen = self.tail + data
        start, end = seen.rfind(_PASTE_START), seen.rfind(_PASTE_END)
        if start != end:  # (both -1: no marker, the paste state as it was)
            self.pasting = start > end
        self.tail = seen[-(len(_PASTE_END) - 1):]
        self.escape_ended = data.endswith("\x1b")
        self.last = seen  # (an Alt key is read once the character after its ESC has come)


def install_key_reads() -> None:
    """Alt+arrows from ESC-prefixing terminals, and Esc followed at once by a key (see above)."""
    feed, tick = XTermParser.feed, XTermParser.tick
    if getattr(feed, "pideck_key_reads", False):
        return

    def reads(parser: XTermParser) -> _Reads:
        state = getattr(parser, "_pideck_reads", None)
        if state is None:
            state = parser._pideck_reads = _Reads()  # type: ignore[attr-defined]
        return state

    def feed_keys(self: XTermParser, data: str) -> Iterable[Any]:
        state = reads(self)
        if not data:  # the end of input
            return _marked(state, feed(self, data))
        if "\x1b\x1b" in data:
            for meta, xterm in _META_ARROWS.items():
                data = data.replace(meta, xterm)
        escaped = escape_now(self) if state.escape_ended and data[0] not in _CONTINUES and not state.pasting else ()
        state.read(data)
        parsed = _marked(state, feed(self, data))  # (Textual's own, untouched, for a read without an ESC)
        return chain(escaped, parsed) if escaped else parsed

    def tick_keys(self: XTermParser) -> Iterable[Any]:
        return _marked(reads(self), tick(self))  # (an Alt key comes once the wait for a longer sequence ends)

    feed_keys.pideck_key_reads = True  # type: ignore[attr-defined]
    XTermParser.feed = feed_keys  # type: ignore[method-assign]
    XTermParser.tick = tick_keys  # type: ignore[method-assign]


def _marked(state: _Reads, parsed: Iterable[Any]) -> Iterable[Any]:
    """`parsed` with the Alt keys that came as ESC and the character marked `escape_first`."""
    if "\x1b" not in state.last:
        return parsed
    return (_mark(event, state.last) for event in parsed)


def _mark(event: Any, read: str) -> Any:
    if (isinstance(event, events.Key) and event.key.startswith("alt+") and event.character
            and f"\x1b{event.character}" in read):
        event.escape_first = True
    return event

