"""Alt+Enter and Alt+digits are taught to Textual's key table only where its parser then reads
them (widgets/engine/alt_keys.py); on a Textual whose parser does not, its table is left as
it was."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import textual._xterm_parser
from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

from widgets.engine.alt_keys import ALT_KEYS, teach_alt_keys


def test_this_textual_reads_them() -> None:
    assert teach_alt_keys()
    parser = textual._xterm_parser.XTermParser()
    assert [e.key for e in [*parser.feed("\x1b\r\x1b1"), *parser.feed("")]] == ["alt+enter", "alt+1"]


class _OtherParser:
    """A parser that reads the table some other way: every sequence is Enter."""

    def feed(self, data: str) -> Iterator[events.Key]:
        if data:
            yield events.Key("enter", "\r")


def test_a_textual_that_does_not_keeps_its_own_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual._xterm_parser, "XTermParser", _OtherParser)
    for sequence in ALT_KEYS:
        monkeypatch.delitem(ANSI_SEQUENCES_KEYS, sequence, raising=False)
    monkeypatch.setitem(ANSI_SEQUENCES_KEYS, "\x1b1", "¡")
    before = {sequence: ANSI_SEQUENCES_KEYS.get(sequence) for sequence in ALT_KEYS}
    assert not teach_alt_keys()
    assert {sequence: ANSI_SEQUENCES_KEYS.get(sequence) for sequence in ALT_KEYS} == before
