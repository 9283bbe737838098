"""Foreign text (model, tool, extension output) made safe to show.

`clean` strips every terminal control sequence so text cannot move the cursor,
set the window title, write the clipboard (OSC 52) or hide content. `safe` wraps
the result in a `rich.text.Text`, so brackets stay literal and never become
Rich or Textual markup (`[bold]`, `[@click=...]`).

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
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.text import Text

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


def clean(text: str) -> str:
    """`text` without terminal control sequences or control characters."""
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


def safe(text: str, style: str = "") -> Text:
    """Foreign `text` as a literal Rich `Text` (cleaned, never parsed as markup)."""
    return Text(clean(text), style=style)
