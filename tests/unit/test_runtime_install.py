"""Installing the pinned runtime while other processes start: parallel test workers, or two
pidecks opened at once on a fresh machine. npm here is a fake that stops half-way through
until the test lets it finish."""

from __future__ import annotations

import stat
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from app import runtime
from app.runtime import PI_BIN, PI_PACKAGE, PiRuntime, ensure_runtime, installed_runtime, node_package


def fake_npm(bin_dir: Path, log: Path, midway: Path, go: Path) -> None:
    """npm on PATH that logs its --prefix, installs node and cli.js, marks `midway`, then waits
    for `go` before the rest of pi."""
    npm = bin_dir / "npm"
    npm.write_text(f"""#!{sys.executable}
import sys, time
from pathlib import Path
args = sys.argv[1:]
prefix = Path(args[args.index("--prefix") + 1])
with open({str(log)!r}, "a") as log:
    log.write(str(prefix) + "\\n")
modules = prefix / "node_modules"
node = modules / {node_package()!r} / "bin" / "node"
node.parent.mkdir(parents=True, exist_ok=True)
node.write_text("#!/bin/sh\\n")
node.chmod(0o755)
cli = modules / {PI_PACKAGE!r} / {str(PI_BIN)!r}
cli.parent.mkdir(parents=True, exist_ok=True)
cli.write_text("// pi\\n")  # node and cli.js are there; the rest of pi is not yet
Path({str(midway)!r}).touch()
deadline = time.monotonic() + 60
while not Path({str(go)!r}).exists():
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.01)
(modules / {PI_PACKAGE!r} / "package.json").write_text("{{}}")
""")
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)


def wait_for(path: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.01)


def test_a_runtime_being_installed_is_not_used_half_way_and_not_installed_twice(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log, midway, go = tmp_path / "npm.log", tmp_path / "midway", tmp_path / "go"
    fake_npm(bin_dir, log, midway, go)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path / "cache"))

    def complete_when_returned() -> bool:
        ensure_runtime(lambda line: None)
        return (runtime.runtime_dir() / "node_modules" / PI_PACKAGE / "package.json").is_file()

    with ThreadPoolExecutor(2) as pool:
        first: Future[PiRuntime] = pool.submit(ensure_runtime, lambda line: None)
        wait_for(midway)
        assert installed_runtime() is None, "half of the runtime is visible while npm still runs"
        second: Future[bool] = pool.submit(complete_when_returned)
        go.touch()
        found = first.result(timeout=30)
        assert second.result(timeout=30), "a second start took the runtime before its install finished"
    assert log.read_text().count("\n") == 1, "npm ran once"
    assert (runtime.runtime_dir() / "node_modules" / PI_PACKAGE / "package.json").is_file()
    assert not (runtime.runtime_dir() / ".staging").exists()
    assert installed_runtime() == found


@pytest.mark.parametrize("leftover", ["node_modules", ".staging"])
def test_an_install_cut_short_is_replaced(tmp_path, monkeypatch, leftover):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log, midway, go = tmp_path / "npm.log", tmp_path / "midway", tmp_path / "go"
    go.touch()
    fake_npm(bin_dir, log, midway, go)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path / "cache"))
    stale = runtime.runtime_dir() / leftover / "node_modules" / PI_PACKAGE / "dist"
    stale.mkdir(parents=True)  # pi without node: not a runtime
    found = ensure_runtime(lambda line: None)
    assert installed_runtime() == found and not (runtime.runtime_dir() / ".staging").exists()
