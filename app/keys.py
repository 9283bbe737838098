"""Alt+Enter as one key.

Most terminals (and tmux) send Alt+Enter as ESC followed by CR. Textual's parser
reads that pair as a plain "enter" and drops the ESC, so it could neither queue a
follow-up nor be told apart from Enter. Mapping the pair to "alt+enter" keeps it
one key press; it never becomes an Esc (which would abort the run).
"""

from __future__ import annotations

from typing import NamedTuple

from textual._ansi_sequences import ANSI_SEQUENCES_KEYS


class _Key(NamedTuple):
    value: str


def install_alt_enter() -> None:
    ANSI_SEQUENCES_KEYS["\x1b\r"] = (_Key("alt+enter"),)  # type: ignore[assignment]
