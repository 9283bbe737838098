"""What pideck imports before it spawns pi: each module there delays pi's start."""

from __future__ import annotations

import subprocess
import sys

NOT_BEFORE_PI = ("importlib.metadata", "app.scripted_model.demo", "app.scripted_model.server",
                 "app.scripted_model.scenarios", "textual", "widgets.transcript.message_views", "app.cli.exit_output",
                 "asyncio", "hashlib", "msgspec", "app.cli.serve")

# pideck's own start-up up to spawning pi, then what it had imported.
PROBE = f"""
import sys, app.cli.pideck as cli, app.pi.early_start as early
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
import gc, sys, app.cli.pideck as cli, app.terminal.colors as colors, app.terminal.hangup as hangup
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


# Where Textual was first imported (its thread, that thread's priority, whether the garbage
# collector ran), and the main thread's priority before and after, with a pi that does nothing.
PRIORITY_PROBE = """
import gc, os, sys, threading, app.cli.pideck as cli, app.pi.early_start as early
cli.not_a_terminal = lambda: None
seen = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "textual" and not seen:
            seen.append((threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, 0), gc.isenabled()))
        return None
sys.meta_path.insert(0, Watch())
before = os.getpriority(os.PRIO_PROCESS, 0)
behind = early.behind_pi
def imported(work):
    behind(work)
    thread, priority, collecting = seen[0]
    print(thread, before, priority, collecting, os.getpriority(os.PRIO_PROCESS, 0))
    raise SystemExit(0)
early.behind_pi = imported
cli.main(['--pi', 'cat', '--protocol-log', '/dev/null'])
"""


def test_the_ui_is_imported_behind_pi_at_a_lower_priority() -> None:
    """On two cores pi's boot (some 1.3 cores) and the UI's imports (one) shared the CPU, and
    pi answered 0.38 s after its spawn where alone it takes 0.26 s. The imports run in a thread
    of lower priority, Textual's first of all (the exit output and the hang-up guards, imported
    by the main thread, had brought it in at pi's priority); the app's own thread keeps the
    priority it had."""
    done = subprocess.run([sys.executable, "-c", PRIORITY_PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    thread, before, importing, collecting, after = done.stdout.split()
    assert thread == "ui-imports", f"Textual was imported by the {thread} thread"
    assert int(importing) > int(before), "the UI was imported at pi's priority"
    assert collecting == "False", "collected while the UI was imported"
    assert int(after) == int(before)


def test_an_import_error_behind_pi_reaches_the_caller() -> None:
    from app.pi.early_start import behind_pi

    def broken() -> None:
        raise ImportError("no module named 'missing'")

    try:
        behind_pi(broken)
    except ImportError as exc:
        assert "missing" in str(exc)
    else:
        raise AssertionError("the error was lost")
    assert behind_pi(lambda: 42) == 42
