"""The keys that switch sessions, in a real terminal (tmux): Ctrl+PgUp and Ctrl+PgDn, and the
characters xterm types for Alt+digit unless it sends Alt as Esc ("±" for Alt+1), which a
toast explains once."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def two_fakes(tmp_path: Path) -> tuple[Fake, Fake]:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    return Fake(tmp_path / "one"), Fake(tmp_path / "two")


def open_second(term: TmuxPideck, second: Fake) -> None:
    term.keys("-l", f"/open --pi {shlex.quote(shlex.join(second.argv))} {second.dir}")
    term.keys("Enter")  # (the keys in order: Enter sends what was typed before it)
    term.wait(lambda: "2 ○ two" in term.screen() and "get_commands" in second.kinds(), "the second session open")


def test_ctrl_pageup_and_pagedown_switch_sessions_round_the_end(tmp_path: Path) -> None:
    first, second = two_fakes(tmp_path)
    with TmuxPideck(first, cwd=first.dir) as term:
        term.wait_started()
        open_second(term, second)
        term.keys("-l", "draft in two")
        term.wait(lambda: "draft in two" in term.screen(), "session 2's draft")
        term.keys("C-PPage")
        term.wait(lambda: "draft in two" not in term.screen(), "session 1 shown")
        term.keys("-l", "draft in one")
        term.wait(lambda: "draft in one" in term.screen(), "session 1's draft")
        term.keys("C-PPage")  # from the first, round to the last
        term.wait(lambda: "draft in two" in term.screen() and "draft in one" not in term.screen(), "session 2 again")
        term.keys("C-NPage")  # from the last, round to the first
        term.wait(lambda: "draft in one" in term.screen() and "draft in two" not in term.screen(), "session 1 again")


def test_xterms_alt_digit_characters_are_typed_and_explained_once(tmp_path: Path) -> None:
    """xterm's default sends Alt+1 as 0xB1, "±" in a UTF-8 locale: it went into the prompt
    with no word of why Alt+1 did not switch."""
    first, second = two_fakes(tmp_path)
    with TmuxPideck(first, cwd=first.dir) as term:
        term.wait_started()
        term.keys("-l", "°")  # one session open: nothing to switch to, nothing to explain
        term.wait(lambda: "│ °" in term.screen(), "the character typed")
        term.keys("C-u")
        term.wait(lambda: "│ °" not in term.screen(), "the prompt emptied")
        open_second(term, second)
        term.keys("-l", "±")  # xterm's Alt+1, as it writes it in a UTF-8 locale
        term.wait(lambda: "metaSendsEscape" in term.screen(), "the toast that explains it")
        screen = term.screen()
        assert "xterm types for Alt+1" in screen and "Ctrl+PgUp" in screen, screen
        assert "│ ±" in screen, "the character is typed as ever"
        term.keys("-l", "²")
        term.keys("C-PPage")  # (read after the character: once it acted, the character was read)
        term.wait(lambda: "│ ±² " not in term.screen() and "Alt+1" in term.screen(), "session 1 shown")
        assert "Alt+2" not in term.screen(), "said once"
