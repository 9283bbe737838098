"""`make demo` installs only what running pideck needs; `make test` adds the test extras
(pytest, hypothesis, playwright...), also on top of a venv `make demo` made. Checked with
`make -n` on a venv path of the test's own, so nothing is installed."""

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
    assert [line.split()[-1] for line in planned(venv, "test")] == [".", "'.[test]'"], "a clean clone: both"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".pideck-installed").touch()  # as `make demo` leaves it, newer than pyproject.toml
    assert [line.split()[-1] for line in planned(venv, "test")] == ["'.[test]'"]
    assert planned(venv, "demo") == []
