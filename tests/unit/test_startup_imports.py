"""What pideck imports before it spawns pi: each module there delays pi's start."""

from __future__ import annotations

import subprocess
import sys

NOT_BEFORE_PI = ("importlib.metadata", "app.scripted_model.demo", "app.scripted_model.server",
                 "app.scripted_model.scenarios", "textual", "widgets.message_views", "app.exit_output",
                 "asyncio", "hashlib", "msgspec", "app.serve")

# pideck's own start-up up to spawning pi, then what it had imported.
PROBE = f"""
import sys, app.cli as cli, app.pi.early_start as early
cli.not_a_terminal = lambda: None
def spawned(argv, env, cwd):
    print(' '.join(m for m in {NOT_BEFORE_PI!r} if m in sys.modules))
    raise SystemExit(0)
early.spawn = spawned
cli.main(['--pi', 'true'])
"""


def test_modules_only_some_runs_need_are_not_imported_before_pi_starts() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], "imported before pi was spawned"


def test_version_still_says_the_version() -> None:
    out = subprocess.run([sys.executable, "-m", "app", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("pideck 0.") and "pinned pi" in out


NOT_BEFORE_MARKDOWN = ("markdown_it", "pygments", "rich.syntax", "rich.markdown")

# pideck's own start-up up to its UI imported (the terminal's colours are asked right after),
# with a pi that does nothing.
UI_PROBE = f"""
import gc, sys, app.cli as cli, app.terminal.colors as colors, app.terminal.hangup as hangup
cli.not_a_terminal = lambda: None
hangup.stdin_fd = lambda: 0
def imported(fd):
    print(gc.isenabled(), ' '.join(m for m in {NOT_BEFORE_MARKDOWN!r} if m in sys.modules) or '-')
    raise SystemExit(0)
colors.query_terminal_colors = imported
cli.main(['--pi', 'cat', '--protocol-log', '/dev/null'])
"""


def test_the_ui_is_imported_without_the_garbage_collector_and_without_markdown() -> None:
    """What start-up allocates lives as long as the app (its collections were 35 ms of the
    imports); markdown-it and Pygments wait for the first markdown or code shown."""
    done = subprocess.run([sys.executable, "-c", UI_PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    enabled, markdown = done.stdout.split()
    assert enabled == "False", "collected while the UI was imported"
    assert markdown == "-", "imported before anything was shown"
