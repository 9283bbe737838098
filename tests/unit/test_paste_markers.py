"""Large pastes as pi's markers: its threshold and format, expansion on send, and a sent
message given back as it was typed."""

from __future__ import annotations

from widgets.prompt.paste_markers import Pastes, cleaned, is_large


def test_pis_threshold_and_marker_format() -> None:
    assert not is_large("\n".join(["x"] * 10)) and is_large("\n".join(["x"] * 11))
    assert not is_large("y" * 1000) and is_large("y" * 1001)
    pastes = Pastes()
    assert pastes.add("".join(f"line {n}\n" for n in range(200))) == "[paste #1 +201 lines]"  # as pi counts them
    assert pastes.add("z" * 1500) == "[paste #2 1500 chars]"
    assert cleaned("a\r\nb\rc\x1b[31m\td\x07") == "a\nb\nc[31m\td"


def test_markers_expand_on_send_once_and_come_back_as_typed() -> None:
    pastes = Pastes()
    big = "".join(f"row {n} [paste #1 +3 lines]\n" for n in range(30))  # a marker inside a paste stays text
    typed = f"look: {pastes.add(big)} and [paste #9 +2 lines]"
    expanded = pastes.sent(typed)
    assert expanded == f"look: {big} and [paste #9 +2 lines]"
    assert pastes.expand(typed) == typed, "sending lets the pastes go"
    back = pastes.given_back(expanded)
    assert back == "look: [paste #1 +31 lines] and [paste #9 +2 lines]", "as typed"
    assert pastes.sent(back) == expanded
    other = "\n".join(["q"] * 40)
    assert pastes.given_back(other) == "[paste #1 +40 lines]", "another large message comes back as a marker"
    assert pastes.given_back("short") == "short"
