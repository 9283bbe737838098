"""`make demo` installs only what running pideck needs; `make test` adds the test extras
(pytest, hypothesis, playwright...), also on top of a venv `make demo` made, and runs the
whole suite in its three parts. Checked with `make -n` on venv paths of the test's own, so
nothing is installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(venv: Path, target: str) -> list[str]:
    """The commands `make TARGET` would run with its venv at `venv`."""
    done = subprocess.run(["make", "-n", "-C", str(ROOT), f"VENV={venv}", target],
                          capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_the_demo_installs_pideck_without_the_test_extras(tmp_path: Path) -> None:
    installs = planned(tmp_path / "venv", "demo")
    assert len(installs) == 1 and installs[0].endswith(" -e .")


def test_the_install_compiles_pideck_s_modules(tmp_path: Path) -> None:
    """An editable install leaves them to be compiled at each start where Python may not
    write bytecode (PYTHONDONTWRITEBYTECODE): 0.15 s of every start-up."""
    done = subprocess.run(["make", "-n", "-C", str(ROOT), f"VENV={tmp_path / 'venv'}", "demo"],
                          capture_output=True, text=True, check=True)
    assert any("-m compileall" in line and line.split()[-3:] == ["app", "widgets", "protocol"]
               for line in done.stdout.splitlines())


def test_the_tests_add_their_extras_to_what_the_demo_installed(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    assert [line.split()[-1] for line in planned(venv, "test-engine-on")] == [".", "'.[test]'"], "a clean clone: both"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".pideck-installed").touch()  # as `make demo` leaves it, newer than pyproject.toml
    assert [line.split()[-1] for line in planned(venv, "test-engine-on")] == ["'.[test]'"]
    assert planned(venv, "demo") == []


def test_make_test_runs_every_part_of_the_suite(tmp_path: Path) -> None:
    """The README's one command: every test, the app tests with the engine off, the unit
    tests on the lowest Textual allowed."""
    done = subprocess.run(["make", "-n", "-C", str(ROOT), f"VENV={tmp_path / 'venv'}",
                           f"LOWEST={tmp_path / 'lowest'}", "test"], capture_output=True, text=True, check=True)
    runs = [line for line in done.stdout.splitlines() if "/pytest " in line]
    assert len(runs) == 3, runs
    assert "PIDECK_ENGINE" not in runs[0] and " tests/" not in runs[0], "every test, engine on"
    assert runs[1].startswith("PIDECK_ENGINE=off") and " tests/app" in runs[1]
    assert runs[2].startswith(f"{tmp_path / 'lowest'}/bin/pytest") and " tests/unit" in runs[2]
