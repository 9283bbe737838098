"""Terminal control sequences stripped from foreign text (model, tool, extension output).

`clean` strips every terminal control sequence so text cannot move the cursor,
set the window title, write the clipboard (OSC 52) or hide content.

Bidirectional controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069
isolates, the LRM, RLM and ALM marks) are stripped too: a terminal that honours them
would show text in another order than it is (names, paths and code reversed).

Kept: all other printable Unicode, `\\n` and `\\t`. `\\r` is dropped, so `\\r\\n` reads
as `\\n`. U+2028 and U+2029 (line and paragraph separators) become `\\n`.
Unterminated OSC/DCS/SOS/PM/APC strings lose only their introducer: the rest
shows as plain text rather than swallowing the remainder of the output.

`one_row` is the text of one screen row (a numbered line of code, a diff row, a row of
the full-output view, a file name, a title): no character in it ends the row. A line
break there (`\\n`, U+2028, U+2029, and the others `str.splitlines` splits on, which
`clean` strips) shows as `ROW_BREAK`, one character for one, so a row's columns and
styles stay where they were computed and a view's rows stay the text's lines. A lone
surrogate (a file name's byte that is not UTF-8) shows as U+FFFD.

`visible` keeps the text whole and shows what `clean` would strip instead of letting the
terminal act on it, for what pideck prints outside its screen (a refusal naming a folder,
the exit output): a C0 control as its control picture (`␛` for ESC, `␇` for BEL), DEL as
`␡`, a C1 control, a bidi control or a line separator as `\\x9b`, `\\u202e`, a file name's
byte that is not UTF-8 (a lone surrogate of `surrogateescape`) as `\\xff`.

`unfinished_at` finds where streamed text ends inside a sequence that later text could
complete, so that text streamed in parts is cleaned as it would be whole
(`joined_text.CleanedText`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_CONTROL = re.compile(
    r"""
      (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])   # OSC, DCS, SOS, PM, APC (7- or 8-bit)
      [^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)     #   payload up to BEL or ST
    | (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]         # CSI (7- or 8-bit)
    | \x1b[ -/]*[0-~]?                         # other ESC sequences, or a lone ESC
    | [\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]    # remaining C0 (not \t \n), DEL, C1
    | [\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]  # bidi controls: marks, embeddings, overrides, isolates
    """,
    re.VERBOSE,
)

_ANY = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")
"""A character `clean` changes or that starts what it strips: text without one is clean."""

_UNFINISHED = re.compile(
    r"""
      (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*\x1b?\Z  # a string, not terminated yet
    | (?:\x1b\[|\x9b)[0-?]*[ -/]*\Z                                  # a CSI without its final byte
    | \x1b[ -/]*\Z                                                   # ESC, and intermediates
    """,
    re.VERBOSE,
)


def clean(text: str) -> str:
    """`text` without terminal control sequences or control characters."""
    if not _ANY.search(text):  # most text: one scan of a character class
        return text
    return _CONTROL.sub("", text).replace("\u2028", "\n").replace("\u2029", "\n")


ROW_BREAK = "⏎"
_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), "\ufffd")  # lone ones cannot be written to the terminal
_BREAKS = str.maketrans({**_SURROGATES, **dict.fromkeys(map(ord, "\n\u2028\u2029"), ROW_BREAK)})
_SEPARATORS = str.maketrans({**_SURROGATES, **dict.fromkeys(map(ord, "\u2028\u2029"), ROW_BREAK)})


def one_row(text: str) -> str:
    """`text` cleaned for one screen row: each line break shown as ROW_BREAK."""
    return _CONTROL.sub("", text).translate(_BREAKS)


def clean_lines(text: str) -> str:
    """`text` cleaned, its lines (split at `\\n`) each `one_row`: U+2028/U+2029 as ROW_BREAK."""
    return _CONTROL.sub("", text).translate(_SEPARATORS)


_PICTURES: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)},  # ␀ … ␟
    0x7F: "\u2421",  # ␡
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},  # C1: no pictures exist for them
    **{ord(char): f"\\u{ord(char):04x}" for char in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
       "\u2028\u2029\u2066\u2067\u2068\u2069"},
    **_SURROGATES,
    **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)},  # surrogateescape's bytes
}
_VISIBLE = str.maketrans(_PICTURES)
_VISIBLE_ROW = str.maketrans({**_PICTURES, 0x0A: ROW_BREAK})
_SHOWN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]")


def visible(text: str, one_line: bool = False) -> str:
    """`text` with its controls shown, not acted on; tabs and line breaks kept (with
    `one_line`, a line break shown as ROW_BREAK)."""
    if not _SHOWN.search(text):
        return text
    return text.translate(_VISIBLE_ROW if one_line else _VISIBLE)


_INTRODUCERS = "\x1b\x9b\x90\x98\x9d\x9e\x9f"
SEQUENCE_LIMIT = 65_536  # a control sequence longer than this may be cut like text


def spanning(text: str, at: int, start: int = 0) -> tuple[int, int] | None:
    """The (start, end) of the control sequence of `text[start:]` that a cut at `at` would
    fall inside, or None: where a long line is cut into pieces that are cleaned one by one,
    a piece must not begin with the rest of a sequence (its parameters would show as text)."""
    begin = max(text.rfind(char, max(start, at - SEQUENCE_LIMIT), at) for char in _INTRODUCERS)
    if begin < 0:
        return None
    match = _CONTROL.match(text, begin, min(len(text), at + SEQUENCE_LIMIT))
    return (begin, match.end()) if match is not None and match.end() > at else None


def controls(text: str) -> Iterator[re.Match[str]]:
    """The control sequences and characters `clean` strips from `text`, in order."""
    return _CONTROL.finditer(text)


def unfinished_at(text: str) -> int:
    """Where a control sequence that more text could still complete starts at the end of
    `text`; `len(text)` if none does. Cleaning `text[:at]` now and the rest once more text
    has come gives what cleaning it all at once would."""
    if not _ANY.search(text):
        return len(text)
    # Nothing unfinished starts before the last BEL, ST or ESC that is not the last character
    # (a string's payload holds none of them): the search is linear in what follows it.
    bound = max(text.rfind("\x07"), text.rfind("\x9c"), text.rfind("\x1b", 0, len(text) - 1), 0)
    match = _UNFINISHED.search(text, bound)
    return len(text) if match is None else match.start()
