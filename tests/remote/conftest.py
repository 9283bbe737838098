"""pideck through a real ssh server, and pi on another host (tests/remote).

`sshd` (session) is OpenSSH's own server (Debian's `openssh-server`, which `.ci/run` installs
when missing) on 127.0.0.1, on a free port, with a throwaway host key and user key in a temp
folder, letting in only the user running the tests, with XDG_STATE_HOME in a folder of its own. OpenSSH rather than asyncssh's server:
it is the server users connect to, so a pty, window changes, SIGHUP on a dropped link and the
byte timing of keys are OpenSSH's own; its start is one process and well under a second. It
runs as the current user (without privilege separation, UsePAM no, StrictModes no) or, as
root, with the system's privilege separation directory.

`remote_pi` (session) is a PiHarness (tests/pi_harness.py): the scripted model, an agent
directory and a working directory, which the commands run over ssh point pi at (the
"remote" host is this one, so the paths are the same on both sides).

`SshPideck` runs pideck in a private tmux server through `ssh -t` into `sshd`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.load import out_of_time
from tests.pi_harness import ROOT, PiHarness, TmuxPideck

from app.scripted_model.agent_dir import pi_model_args

SBIN_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
SSHD = shutil.which("sshd", path=SBIN_PATH)
SSH = shutil.which("ssh")
PIDECK = ROOT / ".venv" / "bin" / "pideck"

# Everything after `ssh` that reaches the test server without a prompt or the user's own
# ssh config (BatchMode: a question would wait for ever).
SSH_OPTIONS = (
    "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
    "-o", "IdentitiesOnly=yes", "-o", "LogLevel=ERROR",
)  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "pideck-test", "-f", str(path)], check=True)
    return path


class SshServer:
    """A running sshd; `ssh(...)` is the client command that logs in to it."""

    def __init__(self, directory: Path) -> None:
        assert SSHD is not None
        self.dir = directory
        self.host_key = _keygen(directory / "host_ed25519")
        self.user_key = _keygen(directory / "user_ed25519")
        self.stray_key = _keygen(directory / "stray_ed25519")  # a key the server does not know
        (directory / "authorized_keys").write_text((directory / "user_ed25519.pub").read_text())
        self.log = directory / "sshd.log"
        self.state = directory / "state"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory

    def start(self) -> SshServer:
        for _ in range(5):  # another process may take the free port before sshd binds it
            self.port = _free_port()
            config = self.dir / "sshd_config"
            config.write_text("\n".join([
                f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
                f"PidFile {self.dir / 'sshd.pid'}", f"AuthorizedKeysFile {self.dir / 'authorized_keys'}",
                "UsePAM no", "StrictModes no", "PubkeyAuthentication yes", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", f"AllowUsers {_user()}",
                "PrintMotd no", "PrintLastLog no", "LogLevel ERROR",
                f"SetEnv XDG_STATE_HOME={self.state}",  # what pideck keeps on the "host" stays in the test's folder
                "",
            ]))  # fmt: skip
            with self.log.open("ab") as log:
                self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
            if self._listening():
                return self
            self.stop()
        raise AssertionError(f"sshd did not start; its log:\n{self.log.read_text()}")

    def _listening(self, timeout: float = 15.0) -> bool:
        assert self.process is not None
        started = time.monotonic()
        while not out_of_time(started, timeout) and self.process.poll() is None:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return True
            time.sleep(0.05)
        return False

    def ssh(self, *, tty: bool = False, key: Path | None = None, host: str = "127.0.0.1") -> list[str]:
        """The client command up to the remote command; `key` replaces the server's user key."""
        return [SSH or "ssh", *(["-t"] if tty else []), "-p", str(self.port), "-i", str(key or self.user_key),
                *SSH_OPTIONS, host]  # fmt: skip

    def drop_connections(self) -> None:
        """Kill the server's side of every open connection, as a link that drops."""
        assert self.process is not None
        below = [self.process.pid]
        while below:
            pid = below.pop()
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if Path(f"/proc/{child}/comm").read_text().startswith("sshd"):
                    below.append(child)
                    os.kill(child, signal.SIGKILL)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # sessions still open keep their own processes, ended by the tests
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SshServer]:
    if SSHD is None or SSH is None:
        pytest.skip("OpenSSH is not installed (apt-get install openssh-server openssh-client; .ci/run does)")
    server = SshServer(tmp_path_factory.mktemp("sshd")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def remote_pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PiHarness]:
    harness = PiHarness(tmp_path_factory.mktemp("remote-pi"))
    try:
        yield harness
    finally:
        harness.model.stop()


def pi_env(harness: PiHarness) -> list[str]:
    """`env` words that point a pi started over ssh (which passes no environment) at the harness,
    and pideck at the test's own state folder (tests/conftest.py)."""
    return ["env", f"PI_CODING_AGENT_DIR={harness.agent_dir}", "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PIDECK_HOLD=0",
            f"XDG_STATE_HOME={os.environ['XDG_STATE_HOME']}"]


def pideck_over_ssh(harness: PiHarness, sessions: Path, log: Path, pi_args: Sequence[str] = (),
                    own: Sequence[str] = ()) -> str:
    """The remote command that runs pideck from this checkout on the harness's pi and model,
    saving sessions in `sessions`; `sessions` is in the environment of pideck and pi too
    (PIDECK_TEST_MARK: pi's command line is only its title, "pi"), and so is the test's
    holder folder (XDG_RUNTIME_DIR: ssh passes no environment). `own`: pideck's words first
    (`attach`, `--hold`)."""
    pideck = [*pi_env(harness), f"XDG_RUNTIME_DIR={os.environ['XDG_RUNTIME_DIR']}", f"PIDECK_TEST_MARK={sessions}",
              str(PIDECK), *own, "--pi", shlex.join(harness.runtime.argv), "--cwd", str(harness.cwd),
              "--protocol-log", str(log), "--", *pi_model_args(), "--session-dir", str(sessions), *pi_args]  # fmt: skip
    return f"cd {shlex.quote(str(ROOT))} && exec {shlex.join(pideck)}"


class _NoFake:
    """TmuxPideck reports a fake child's commands on a timeout; there is none here."""

    def kinds(self) -> list[str]:
        return []


class SshPideck(TmuxPideck):
    """A tmux client (its own server, 120×36, xterm-256color, OSC 52 into tmux's buffers)
    running `command`, e.g. `ssh -t ... 127.0.0.1 'pideck ...'`; the pane's process is the
    command itself (exec'd)."""

    def __init__(self, command: Sequence[str]) -> None:  # noqa: D107 (TmuxPideck's own set-up is for a fake)
        self.fake: Any = _NoFake()
        self.socket = f"pideck-ssh-{uuid.uuid4().hex[:10]}"
        started = self._tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "36", "-e", "TERM=xterm-256color",
                             "-c", str(ROOT), f"exec {shlex.join(command)}")  # fmt: skip
        assert started.returncode == 0, started.stderr
        self._tmux("set-option", "-g", "set-clipboard", "on")
        self._tmux("set-option", "-g", "remain-on-exit", "on")  # the pane's last words stay readable
        self.socket_path = self._tmux("display-message", "-p", "#{socket_path}").stdout.strip()

    @property
    def pane_pid(self) -> int:
        return int(self._tmux("display-message", "-p", "-t", "t", "#{pane_pid}").stdout)

    def pane_dead(self) -> bool:
        return self._tmux("display-message", "-p", "-t", "t", "#{pane_dead}").stdout.strip() == "1"

    def exit_status(self) -> int | None:
        status = self._tmux("display-message", "-p", "-t", "t", "#{pane_dead_status}").stdout.strip()
        return int(status) if status else None

    def wait_ready(self, timeout: float = 60.0) -> None:
        self.wait(lambda: "● ready" in self.screen(), "pideck ready on the status line", timeout=timeout)


@pytest.fixture
def ssh_pideck(sshd: SshServer, remote_pi: PiHarness) -> Iterator[Callable[..., SshPideck]]:
    """`ssh_pideck(sessions, log, *pi_args, own=())`: pideck in tmux over `ssh -t` into `sshd` (closed
    at the end of the test: the tmux server goes, and pideck with its connection)."""
    opened: list[SshPideck] = []

    def open_one(sessions: Path, log: Path, *pi_args: str, own: Sequence[str] = ()) -> SshPideck:
        term = SshPideck([*sshd.ssh(tty=True), pideck_over_ssh(remote_pi, sessions, log, pi_args, own)])
        opened.append(term)
        return term

    yield open_one
    for term in opened:
        term.__exit__(None, None, None)
