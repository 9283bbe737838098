"""widgets.safe_text: terminal control sequences stripped, markup kept literal."""

from __future__ import annotations

import time

import pytest
from rich.console import Console

from widgets.safe_text import clean, safe


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\x1b[31mred\x1b[0mb", "aredb"),  # CSI SGR
        ("a\x1b[2J\x1b[1;1Hb", "ab"),  # CSI clear screen, cursor move
        ("a\x1b[?1049hb", "ab"),  # CSI private mode (alternate screen)
        ("a\x9b31mb", "ab"),  # 8-bit CSI
        ("a\x1b]52;c;aGVsbG8=\x07b", "ab"),  # OSC 52 clipboard, BEL-terminated
        ("a\x1b]0;pwned\x1b\\b", "ab"),  # OSC 0 title, ST-terminated
        ("a\x1b]2;pwned\x07b", "ab"),  # OSC 2 title
        ("a\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 hyperlink
        ("a\x9d0;pwned\x9cb", "ab"),  # 8-bit OSC and ST
        ("a\x1bP1$r0m\x1b\\b", "ab"),  # DCS
        ("a\x1bXsos\x1b\\b", "ab"),  # SOS
        ("a\x1b^pm\x1b\\b", "ab"),  # PM
        ("a\x1b_apc\x1b\\b", "ab"),  # APC
        ("a\x90dcs\x9cb", "ab"),  # 8-bit DCS
        ("a\x1b7\x1b8\x1bcb", "ab"),  # single-char ESC sequences
        ("a\x1b(Bb", "ab"),  # charset designation (ESC with intermediate)
        ("ab\x1b", "ab"),  # lone trailing ESC
        ("a\x85\x8e\x9fb", "ab"),  # C1 controls
        ("a\x00\x01\x07\x0b\x0c\x1a\x7fb", "ab"),  # C0 controls and DEL
        ("a\x08\x08b", "ab"),  # backspace
        ("one\r\ntwo", "one\ntwo"),  # CRLF is a newline
        ("50%\r100%", "50%100%"),  # lone CR dropped
        ("a\u2028b\u2029c", "a\nb\nc"),  # line/paragraph separators become newlines
    ],
)
def test_clean_strips_control_sequences(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_unterminated_string_sequence_loses_only_its_introducer() -> None:
    assert clean("\x1b]0;title then more text") == "0;title then more text"


def test_normal_text_is_untouched() -> None:
    text = "tabs\tand\nlines, émoji 🎉👩‍💻, CJK 漢字かな한글, RTL שלום, math ∑∫ [bold]x[/]"
    assert clean(text) == text


def test_safe_keeps_markup_literal() -> None:
    text = safe("[bold]x[/] [@click=app.quit]y[/]", style="italic")
    assert text.plain == "[bold]x[/] [@click=app.quit]y[/]"
    assert text.spans == []
    assert str(text.style) == "italic"


def test_safe_renders_brackets_and_no_escape_codes() -> None:
    console = Console(width=40, force_terminal=True, color_system="truecolor")
    with console.capture() as capture:
        console.print(safe("[bold]x[/] \x1b]0;pwned\x07\x1b[31mred"))
    output = capture.get()
    assert "[bold]x[/] red" in output
    assert "pwned" not in output
    assert "\x1b[1m" not in output  # no bold was applied


def test_large_input_is_cleaned_quickly() -> None:
    chunk = "line 漢字 🎉 \x1b[31mred\x1b[0m \x1b]52;c;aGVsbG8=\x07 end\r\n"
    text = chunk * (5_000_000 // len(chunk))
    started = time.perf_counter()
    result = clean(text)
    elapsed = time.perf_counter() - started
    assert result == "line 漢字 🎉 red  end\n" * (5_000_000 // len(chunk))
    assert elapsed < 5
