"""The engine runs only on the Textual it was checked on, and not with PIDECK_ENGINE=off:
then pideck runs on Textual's own compositor, timer, display and parser, touches none of the
private names the engine needs, and `pideck --version` says so."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version

from widgets.engine import SETTING, TEXTUAL_CHECKED, engine_mode, setting_problem, textual_version


def test_the_engine_runs_on_the_textual_it_was_checked_on_unless_turned_off() -> None:
    assert engine_mode(None, TEXTUAL_CHECKED) == (True, f"engine: on (Textual {TEXTUAL_CHECKED})")
    assert engine_mode(" On ", TEXTUAL_CHECKED)[0]
    assert engine_mode("OFF", TEXTUAL_CHECKED) == (False, f"engine: off (PIDECK_ENGINE=off; Textual {TEXTUAL_CHECKED})")
    assert engine_mode(None, "8.3.0") == (False, f"engine: off (Textual 8.3.0 is not the checked {TEXTUAL_CHECKED})")
    assert engine_mode("on", "8.2.0") == (False, f"engine: off (Textual 8.2.0 is not the checked {TEXTUAL_CHECKED})")


def test_a_setting_it_does_not_understand_is_named() -> None:
    assert setting_problem(None) is None and setting_problem("off") is None and setting_problem("") is None
    problem = setting_problem("fast\x1b[2J")
    assert problem is not None and problem.startswith("PIDECK_ENGINE='fast\\x1b[2J' is neither on nor off")


def test_the_version_read_is_textuals() -> None:
    assert textual_version() == version("textual")


def _run(code: str, engine: str | None) -> str:
    env = {key: value for key, value in os.environ.items() if key != SETTING}
    if engine is not None:
        env[SETTING] = engine
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pideck_version_says_whether_the_engine_runs() -> None:
    code = "import app.cli.pideck; app.cli.pideck.main(['--version'])"
    installed = version("textual")
    on = f"engine: on (Textual {installed})" if installed == TEXTUAL_CHECKED else (
        f"engine: off (Textual {installed} is not the checked {TEXTUAL_CHECKED})")
    assert _run(code, None).splitlines()[1] == on
    assert _run(code, "off").splitlines()[1] == (
        f"engine: off (PIDECK_ENGINE=off; Textual {installed})" if installed == TEXTUAL_CHECKED else on)


# pideck's App and screens made and run, then what of the engine's is in place.
PROBE = """
import sys
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver
from textual.strip import Strip
from app.main_screen import MainScreen
from app.pideck_app import PideckApp
from widgets.engine.app import EngineApp
from widgets.engine.kept_strip import KeptStrip
app = EngineApp()
print("private" if "widgets.engine.private" in sys.modules else "-",
      "display" if "_display" in vars(EngineApp) else "-",
      "compositor" if "_compositor_refresh" in vars(MainScreen.__mro__[1]) else "-",
      "parser" if getattr(XTermParser.feed, "pideck_key_reads", False) else "-",
      "writer" if linux_driver.WriterThread.__module__.startswith("widgets") else "-",
      "strip" if KeptStrip.__init__ is not Strip.__init__ else "-")
"""


def test_with_the_engine_off_textuals_own_parts_run_and_its_private_names_are_not_imported() -> None:
    """But the driver's threads, which keep a dead terminal from holding pideck."""
    assert _run(PROBE, "off").split() == ["-", "-", "-", "-", "writer", "-"]
    if version("textual") == TEXTUAL_CHECKED:
        assert _run(PROBE, None).split() == ["private", "display", "compositor", "parser", "writer", "strip"]
