"""What pideck imports before it spawns pi: each module there delays pi's start."""

from __future__ import annotations

import subprocess
import sys

NOT_BEFORE_PI = ("importlib.metadata", "app.scripted_model.demo", "app.scripted_model.server",
                 "app.scripted_model.scenarios")


def test_modules_only_some_runs_need_are_not_imported_before_pi_starts() -> None:
    probe = ("import sys, app.cli, app.pi.early_start; "
             f"print(' '.join(m for m in {NOT_BEFORE_PI!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert found == []


def test_version_still_says_the_version() -> None:
    out = subprocess.run([sys.executable, "-m", "app", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("pideck 0.") and "pinned pi" in out
