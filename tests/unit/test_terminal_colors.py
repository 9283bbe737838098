"""The terminal's colours, asked over a pty before Textual starts: the answer is read in
full (never left for the key reader), and a terminal that does not know OSC 11 costs no
wait once it has answered the DA1 request."""

from __future__ import annotations

import os
import pty
import threading
import termios
import time

from app.terminal.colors import QUERY, parse_answers, query_terminal_colors


def test_answers_in_either_ending_and_digit_count() -> None:
    data = b"\x1b]11;rgb:ffff/ffff/f0f0\x1b\\\x1b]10;rgb:00/80/ff\x07\x1b[?62;22c"
    assert parse_answers(data) == ((255, 255, 240), (0, 128, 255))
    assert parse_answers(b"\x1b[?1;2c") == (None, None)


def terminal(answer: bytes) -> tuple[int, threading.Thread, list[bytes]]:
    """A pty whose far end answers pideck's query with `answer`; the slave fd, the
    answering thread and what it received."""
    master, slave = pty.openpty()
    received: list[bytes] = []

    def answer_query() -> None:
        data = b""
        while not data.endswith(b"\x1b[c"):
            data += os.read(master, 1024)
        received.append(data)
        os.write(master, answer)

    thread = threading.Thread(target=answer_query, daemon=True)
    thread.start()
    return slave, thread, received


def test_the_terminal_is_asked_and_its_answer_read_in_full() -> None:
    slave, thread, received = terminal(b"\x1b]11;rgb:fdfd/f6f6/e3e3\x1b\\\x1b]10;rgb:6565/7b7b/8383\x1b\\\x1b[?62c")
    assert query_terminal_colors(slave, limit=10)[:2] == ((253, 246, 227), (101, 123, 131))
    thread.join(10)
    assert received == [QUERY]
    os.set_blocking(slave, False)
    try:
        left = os.read(slave, 1024)
    except BlockingIOError:
        left = b""
    assert left == b""  # nothing of the answer is left for Textual to read as keys


def test_a_terminal_without_osc_11_costs_no_wait() -> None:
    slave, thread, _ = terminal(b"\x1b[?1;2c")
    started = time.monotonic()
    assert query_terminal_colors(slave, limit=30)[:2] == (None, None)
    assert time.monotonic() - started < 20  # it ended on the DA1 answer, not the limit
    thread.join(10)


def test_not_a_terminal_is_not_asked(tmp_path: object) -> None:
    read, write = os.pipe()
    assert query_terminal_colors(read, limit=5)[:2] == (None, None)
    os.close(read)
    os.close(write)


def test_keys_typed_before_and_while_the_terminal_answers_are_kept_in_order() -> None:
    master, slave = pty.openpty()
    os.write(master, b"hel")  # typed while pideck started, before it asked
    answered: list[bytes] = []

    def answer_query() -> None:
        data = b""
        while not data.endswith(b"\x1b[c"):
            data += os.read(master, 1024)
        os.write(master, b"\x1b]11;rgb:0000/0000/0000\x1b\\lo\x1b[?62c wor")
        answered.append(data)

    thread = threading.Thread(target=answer_query, daemon=True)
    thread.start()
    answers = query_terminal_colors(slave, limit=10)
    thread.join(10)
    assert answers.background == (0, 0, 0)
    assert answers.typed.startswith(b"hello"), "the answers are taken out, the keys kept in order"
    assert b"\x1b" not in answers.typed


def test_enter_typed_before_raw_mode_is_enter_not_ctrl_j() -> None:
    """The terminal's line discipline, in its usual mode (ICRNL), turns a typed Enter into a
    line feed; the prompt would read it as Ctrl+J (a new line), and the message would stay."""
    master, slave = pty.openpty()
    assert termios.tcgetattr(slave)[0] & termios.ICRNL
    os.write(master, b"def\r")  # typed while pideck started, before it asked

    def answer_query() -> None:
        data = b""
        while not data.endswith(b"\x1b[c"):  # (after the echo of what was typed: the query, in raw mode)
            data += os.read(master, 1024)
        os.write(master, b"\x1b[?62c\n")  # the answer, then Ctrl+J

    thread = threading.Thread(target=answer_query, daemon=True)
    thread.start()
    answers = query_terminal_colors(slave, limit=10)
    thread.join(10)
    assert answers.typed.startswith(b"def\r"), answers.typed
    assert answers.typed.endswith(b"\n"), "a line feed typed in raw mode stays one"
