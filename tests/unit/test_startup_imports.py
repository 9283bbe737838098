"""What pideck imports before it spawns pi: each module there delays pi's start."""

from __future__ import annotations

import subprocess
import sys

NOT_BEFORE_PI = ("importlib.metadata", "app.scripted_model.demo", "app.scripted_model.server",
                 "app.scripted_model.scenarios", "textual", "widgets.message_views", "app.exit_output")

# pideck's own start-up up to spawning pi, then what it had imported.
PROBE = f"""
import sys, app.cli as cli, app.pi.early_start as early
cli.not_a_terminal = lambda: None
def spawned(config):
    print(' '.join(m for m in {NOT_BEFORE_PI!r} if m in sys.modules))
    raise SystemExit(0)
early.start_pi = spawned
cli.main(['--pi', 'true'])
"""


def test_modules_only_some_runs_need_are_not_imported_before_pi_starts() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], "imported before pi was spawned"


def test_version_still_says_the_version() -> None:
    out = subprocess.run([sys.executable, "-m", "app", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("pideck 0.") and "pinned pi" in out
