"""Streamed text is cleaned of control sequences where records enter the session model, as
if it were cleaned whole: a sequence that two deltas cut shows neither half, and the
`*_end` record's text is cleaned once and replaces what the deltas built."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.control_codes import clean, unfinished_at
from protocol.wire.events import MessageStart, MessageUpdate, TextDelta, TextEnd, ThinkingDelta
from protocol.state.joined_text import MAX_HELD, CleanedText
from protocol.wire.messages import AssistantMessage
from protocol.state.session_model import MessageItem, SessionModel


def update(event: object) -> MessageUpdate:
    return MessageUpdate(assistant_message_event=event)  # type: ignore[arg-type]


def streaming(*events: object) -> tuple[SessionModel, MessageItem]:
    model = SessionModel()
    model.apply(MessageStart(message=AssistantMessage(stop_reason="pending")))
    for event in events:
        model.apply(update(event))
    item = model.items[-1]
    assert isinstance(item, MessageItem)
    return model, item


def test_an_escape_two_deltas_cut_shows_neither_half() -> None:
    model, item = streaming(TextDelta(content_index=0, delta="hello \x1b"))
    assert item.blocks[0].text == "hello "
    model.take_changes()
    model.apply(update(TextDelta(content_index=0, delta="[31mred")))
    assert item.blocks[0].text == "hello red"
    assert model.take_changes().appended == {(item.key, 0): ["red"]}, "the view appends only the cleaned text"
    model.apply(update(TextEnd(content_index=0, content="hello \x1b[31mred")))
    assert item.blocks[0].text == "hello red" and not model.take_changes().replaced, "the end's text is what streamed"


def test_an_osc_cut_in_three_and_thinking_too() -> None:
    _, item = streaming(*(ThinkingDelta(content_index=0, delta=d) for d in ("a \x1b]52;c;", "RVZJTA", "==\x1b", "\\ b")))
    assert item.blocks[0].text == "a  b"


def test_the_end_of_a_block_is_cleaned_and_replaces_what_streamed() -> None:
    model, item = streaming(TextDelta(content_index=0, delta="par"))
    model.take_changes()
    model.apply(update(TextEnd(content_index=0, content="partial \x1b[2Jend\x9b6n")))
    assert item.blocks[0].text == "partial end" and (item.key, 0) in model.take_changes().replaced


def test_a_string_never_terminated_is_held_back_no_longer_than_max_held() -> None:
    text = CleanedText()
    assert text.append("before \x1b]0;") == "before "
    shown = "".join(text.append("x" * 100) for _ in range(MAX_HELD // 100 + 2))
    assert shown.startswith("0;x") and str(text) == "before " + shown, "shown without its introducer"


def test_a_long_run_of_8_bit_introducers_is_searched_in_linear_time() -> None:
    text = "\x9d" * 200_000
    assert unfinished_at(text) == 0
    assert unfinished_at("\x07" + "\x9b1" * 100_000) == 1 + 2 * 99_999


PIECES = ["a", " ", "\n", "\x1b", "[", "]", "P", "_", "^", "X", "\\", "\x07", "\x9b", "\x9c", "\x9d", "\x90",
          "3", "1", ";", "m", "J", "(", "B", "c", "\u2028", "é"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), max_size=12))
def test_text_cleaned_in_parts_is_text_cleaned_whole(parts: list[str]) -> None:
    text = CleanedText()
    shown = "".join(text.append(part) for part in parts)
    whole = "".join(parts)
    held = whole[unfinished_at(whole):]
    assert shown == str(text) == clean(whole[: len(whole) - len(held)])
    assert clean(whole).startswith(shown)
