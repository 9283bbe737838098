"""pideck follows the terminal's size when it changes, also where the shell exported COLUMNS
and LINES (bash's checkwinsize, an rc file): Textual reads those before the terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_a_resize_is_followed_with_columns_and_lines_exported(tmp_path: Path) -> None:
    with TmuxPideck(Fake(tmp_path), wrapper=("env", "COLUMNS=120", "LINES=36")) as term:
        term.wait_started()
        term._tmux("resize-window", "-t", "t", "-x", "90", "-y", "24")

        def fitted() -> bool:
            rows = term.screen().splitlines()
            prompt = next((row for row in rows if row.startswith("╭─ prompt")), "")
            return bool(rows) and "Clear/Quit" in rows[-1] and prompt.rstrip().endswith("╮") and len(prompt.rstrip()) <= 90

        term.wait(fitted, "the layout at 90x24: the footer on the last row, the prompt's box whole")
