"""Esc followed at once by another key is Esc, then that key (widgets/engine/keys.py), while
the Alt keys terminals send as ESC and a character stay one key."""

from __future__ import annotations

import time

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from widgets.engine.keys import install_alt_keys, install_key_reads, use_alt_ctrl_chords


@pytest.fixture(autouse=True)
def installed() -> None:
    install_alt_keys()
    install_key_reads()


def read(*reads: str) -> list[events.Key]:
    """The keys of `reads`, each one read of the terminal, and then a pause."""
    parser = XTermParser()
    parsed = [event for data in reads for event in parser.feed(data)]
    time.sleep(0.12)  # past Textual's wait for what follows an ESC
    parsed += [*parser.tick(), *parser.feed("")]
    return [event for event in parsed if isinstance(event, events.Key)]


def names(*reads: str) -> list[str]:
    return [key.key for key in read(*reads)]


@pytest.mark.parametrize("control, key", [("\x03", "ctrl+c"), ("\x0c", "ctrl+l"), ("\x0f", "ctrl+o"), ("\x1a", "ctrl+z"),
                                          ("\x15", "ctrl+u")])
def test_esc_and_a_control_key_in_one_read_are_both_read(control: str, key: str) -> None:
    assert names(f"\x1b{control}") == ["escape", key]
    assert names("a\x1b" + control + "b") == ["a", "escape", key, "b"]


def test_the_alt_keys_terminals_send_as_esc_and_a_control_stay_one_key() -> None:
    assert names("\x1b\r") == ["alt+enter"]
    assert names("\x1b\x1d") == ["alt+ctrl+right_square_bracket"]
    assert names("\x1b\x7f") == ["ctrl+w"]  # Alt+Backspace, as Textual reads it
    assert names("\x1b\x08") == ["backspace"]  # Alt+Backspace where Backspace is ^H: never an abort
    assert names("\x1b\t") == ["shift+tab"]


def test_an_esc_that_ends_a_read_is_esc_whatever_the_next_read_begins_with() -> None:
    assert names("\x1b", "n") == ["escape", "n"]
    assert names("\x1b", "\x03") == ["escape", "ctrl+c"]
    assert names("\x1b", "\r") == ["escape", "enter"]
    assert names("ab\x1b", "cd") == ["a", "b", "escape", "c", "d"]


def test_a_sequence_split_between_reads_is_still_one_key() -> None:
    assert names("\x1b", "[A") == ["up"]
    assert names("\x1b", "[1;3A") == ["alt+up"]
    assert names("\x1b", "OB") == ["down"]
    assert names("\x1b", "\x1b[A") == ["escape", "up"]


def test_esc_and_a_character_in_one_read_is_an_alt_key_marked_as_maybe_esc_first() -> None:
    keys = read("\x1bn")
    assert [key.key for key in keys] == ["alt+n"] and getattr(keys[0], "escape_first", False)
    keys = read("x\x1bb")
    assert [key.key for key in keys] == ["x", "ctrl+left"]  # Textual's own Alt+B: a word left
    keys = read("\x1b[110;3u")  # the same Alt+N from a terminal that says which key it was
    assert [key.key for key in keys] == ["alt+n"] and not getattr(keys[0], "escape_first", False)


def test_an_esc_inside_a_paste_is_left_to_the_paste() -> None:
    parser = XTermParser()
    parsed = [*parser.feed("\x1b[200~a\x1b"), *parser.feed("b\x1b[201~")]
    time.sleep(0.12)
    parsed += [*parser.tick(), *parser.feed("")]
    assert not [event for event in parsed if isinstance(event, events.Key) and event.key == "escape"]


def test_an_alt_key_read_with_the_next_key_is_still_marked() -> None:
    parser = XTermParser()
    parsed = [*parser.feed("\x1bn"), *parser.feed("x")]  # the ESC's wait ended by the next read
    keys = [event for event in [*parsed, *parser.feed("")] if isinstance(event, events.Key)]
    assert [key.key for key in keys] == ["alt+n", "x"] and getattr(keys[0], "escape_first", False)


def test_a_ctrl_alt_key_given_an_action_in_pis_keybindings_is_that_chord() -> None:
    try:
        use_alt_ctrl_chords(["alt+ctrl+t", "ctrl+x", "alt+ctrl+backslash"])
        assert names("\x1b\x14") == ["alt+ctrl+t"]
        assert names("\x1b\x1c") == ["alt+ctrl+backslash"]
        assert names("\x1b\x03") == ["escape", "ctrl+c"]  # not bound: Esc, then Ctrl+C
    finally:
        use_alt_ctrl_chords([])
    assert names("\x1b\x14") == ["escape", "ctrl+t"]
