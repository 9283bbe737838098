"""pideck installed as a tool (what `uv tool install .` and `pipx install .` do): its wheel,
built from the sources, installed with pip in a fresh virtual environment outside the
checkout, gives a `pideck` whose `--version` answers and whose `--demo` streams the scripted
model's answer in a terminal and quits with status 0; the wheel holds every style sheet."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from tests.load import out_of_time

from app.runtime import PiRuntime

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "widgets", "protocol")


def run(*argv: str | Path, cwd: Path, timeout: float = 300) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{argv} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.timeout(900)
def test_the_wheel_installs_a_pideck_whose_demo_runs(pi_runtime: PiRuntime, tmp_path: Path) -> None:
    source = tmp_path / "source"  # a copy, so the build leaves nothing in the checkout
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-w", tmp_path / "dist",
        source, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("pideck-*.whl")
    styles = {str(p.relative_to(ROOT)) for package in PACKAGES for p in (ROOT / package).rglob("*.tcss")}
    assert styles and styles <= set(zipfile.ZipFile(wheel).namelist()), "every .tcss is in the wheel"

    venv = tmp_path / "tool"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    run(venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel, cwd=tmp_path)
    where = run(venv / "bin" / "python", "-c", "import app; print(app.__file__)", cwd=tmp_path)
    assert where.startswith(str(venv)), f"pideck comes from the tool's environment, not the checkout: {where}"
    assert run(venv / "bin" / "pideck", "--version", cwd=tmp_path).startswith("pideck ")

    socket = f"pideck-tool-{uuid.uuid4().hex[:10]}"

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10).stdout

    def wait_for(text: str, timeout: float = 120.0) -> None:
        started = time.monotonic()
        while text not in (screen := tmux("capture-pane", "-p", "-t", "t")):
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {text!r}; screen:\n{screen}")
            time.sleep(0.2)

    command = f"env -u PYTHONPATH {venv}/bin/pideck --demo; echo EXIT=$?; sleep 120"
    tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "36", "-e", "TERM=xterm-256color", "-c", str(tmp_path), command)
    try:
        wait_for("● ready")
        tmux("send-keys", "-t", "t", "-l", "hello from the wheel")
        wait_for("hello from the wheel")
        tmux("send-keys", "-t", "t", "Enter")
        wait_for("\u201chello from the wheel\u201d")  # the demo model quoting the prompt: its answer streams
        tmux("send-keys", "-t", "t", "C-d")
        wait_for("EXIT=0", timeout=60)
    finally:
        tmux("kill-server")
