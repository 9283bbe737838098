"""Alt+1 shows session 1 in a real terminal, with the engine on and off (`make
test-engine-off`): Textual's own key table read ESC 1 as "¡" typed into the prompt. (Alt+Enter,
read as Enter there: tests/app/test_app.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_alt_digits_show_sessions(tmp_path: Path) -> None:
    with TmuxPideck(Fake(tmp_path)) as term:
        term.wait_started()
        term.send("/open")
        term.wait(lambda: "Session 2 opened" in term.screen(), "a second session")
        term.keys("-l", "draft two")
        term.wait(lambda: "draft two" in term.screen(), "the text typed")
        term.keys("M-1")
        term.wait(lambda: "draft two" not in term.screen(), "session 1 shown")
        assert "¡" not in term.screen()
        term.keys("M-2")
        term.wait(lambda: "draft two" in term.screen(), "session 2 again, its draft kept")
