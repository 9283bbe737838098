"""The pideck command line: flags, pi arguments, launch configuration, errors, and one real demo run."""

from __future__ import annotations

import http.client
import json
import os
import pty
import shlex
import stat
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from app.cli.pideck import main, parse_args
from app.pi.launch import build_launch

PI_ARGS = [
    "--provider", "X", "--model", "Y", "-e", "ext.ts", "--session-dir", "D",
    "--no-session", "--continue", "--session", "F", "--name", "N",
]


@pytest.fixture(autouse=True)
def in_a_terminal(monkeypatch) -> None:
    """main() called here runs as if from a terminal (pytest's stdin and stdout are not one)."""
    monkeypatch.setattr("app.cli.pideck.not_a_terminal", lambda: None)


@pytest.fixture
def fake_pi(tmp_path) -> Path:
    """An executable `pi` in a directory whose name has a space."""
    path = tmp_path / "my tools" / "pi"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\necho 1.6.0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def pi_flag(fake_pi) -> str:
    return shlex.quote(str(fake_pi))


def launch(*argv: str):
    return build_launch(parse_args(list(argv)))


def test_everything_after_double_dash_reaches_pi_verbatim(fake_pi, pi_flag):
    args = parse_args(["--pi", pi_flag, "--", *PI_ARGS, "--", "-p"])
    assert args.pi_args == [*PI_ARGS, "--", "-p"]
    config = build_launch(args)
    assert config.argv == (str(fake_pi), "--mode", "rpc", *PI_ARGS, "--", "-p")


def test_pi_flag_is_split_like_a_shell_without_one(fake_pi):
    config = launch("--pi", f"{shlex.quote(str(fake_pi))} --flag 'a b' \"$HOME\"")
    assert config.argv[:4] == (str(fake_pi), "--flag", "a b", "$HOME")
    assert config.pi_source.startswith("--pi ")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--pi", "pi 'unclosed"], ["--pi", "no closing quotation"]),
        (["--pi", "  "], ["--pi needs a command"]),
        (["--pi", "no-such-pi-command-here"], ["no-such-pi-command-here", "not an executable"]),
        (["--cwd", "/no/such/dir"], ["--cwd /no/such/dir", "does not exist"]),
        (["--cwd", __file__], ["is not a directory"]),
        (["--protocol-log", str(Path(__file__).parent)], ["--protocol-log", "is a directory"]),
        (["--bogus"], ["unknown option --bogus", "see pideck --help"]),
        (["--demo=yes"], ["--demo", "see pideck --help"]),
        (["hello"], ["'hello'", "go after --", "see pideck --help"]),
        (["--pi"], ["--pi", "expected one argument"]),
        (["--", "--mode", "json"], ["--mode cannot be passed to pi"]),
        (["--", "--print", "hi"], ["--print cannot be passed to pi"]),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("pideck: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err


HOSTILE = "\x1b]52;c;aGk=\x07\x1b]0;title\x07\x1b[2J\x1bP1$qm\x1b\\\x1bc\x9b2J\u202e"


@pytest.mark.parametrize("argv", [["--cwd", f"/no/such{HOSTILE}"], [f"--bogus{HOSTILE}"], [f"hello{HOSTILE}"],
                                  ["--pi", f"no-such-pi{HOSTILE}"], ["--record", f"/no/such{HOSTILE}/r"]])
def test_what_pideck_prints_shows_controls_and_never_acts_on_them(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.endswith("\n") and err[:-1].isprintable(), repr(err)
    assert "␛]52;c;aGk=␇" in err or "\\x1b]52" in err, err


def test_bad_flag_from_the_installed_command(tmp_path):
    pideck = Path(sys.executable).parent / "pideck"
    done = subprocess.run(
        [str(pideck), "--bogus"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert "--bogus" in done.stderr and "see pideck --help" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


@pytest.mark.parametrize("redirected", ["stdout", "stdin"])
def test_without_a_terminal_pideck_refuses_in_one_line(tmp_path, redirected):
    master, slave = pty.openpty()
    pideck = Path(sys.executable).parent / "pideck"
    try:
        done = subprocess.run(
            [str(pideck), "--demo"], stderr=subprocess.PIPE, text=True, timeout=60, env={**os.environ, "TMPDIR": str(tmp_path)},
            stdin=subprocess.DEVNULL if redirected == "stdin" else slave,
            stdout=subprocess.PIPE if redirected == "stdout" else slave,
        )
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode == 2
    assert done.stderr == f"pideck: {redirected} is not a terminal; pideck runs full screen in one\n"
    assert not list(tmp_path.iterdir()), "no demo was started"


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for words in ("--pi CMD", "--demo", "--cwd DIR", "--protocol-log PATH", "--version", "examples:", "pideck -- --provider"):
        assert words in out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("pideck 0.1.0 (pinned pi 1.6.0")


def test_environment_cwd_and_protocol_log(fake_pi, pi_flag, monkeypatch, tmp_path):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("PI_OFFLINE", raising=False)
    monkeypatch.chdir(tmp_path)
    config = launch("--pi", pi_flag, "--protocol-log", str(tmp_path / "log" / "p.log"))
    assert config.env["PI_CODING_AGENT_DIR"] == str(tmp_path / "agent")
    assert "PI_OFFLINE" not in config.env and config.demo_server is None
    assert config.cwd == tmp_path and not config.demo
    assert config.protocol_log == tmp_path / "log" / "p.log"
    assert launch("--pi", pi_flag, "--cwd", str(fake_pi.parent)).cwd == fake_pi.parent


def test_demo_config_points_pi_at_a_live_scripted_model(fake_pi, pi_flag, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/elsewhere")
    config = launch("--demo", "--pi", pi_flag, "--", "--name", "N")
    assert config.demo and config.demo_server is not None
    workdir = config.demo_server.workdir
    assert config.env["PI_CODING_AGENT_DIR"] == str(workdir / "agent")
    assert config.env["PI_OFFLINE"] == "1" and config.env["PI_SKIP_VERSION_CHECK"] == "1"
    assert config.argv == (
        str(fake_pi), "--mode", "rpc", "--provider", "scripted", "--model", "scripted-demo",
        "--session-dir", str(workdir / "sessions"), "--name", "N",
    )
    base_url = json.loads((workdir / "agent" / "models.json").read_text())["providers"]["scripted"]["baseUrl"]
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", "/v1/models")
    assert connection.getresponse().status == 200
    config.close()
    config.close()  # the app closes it too
    assert not workdir.exists()
    with pytest.raises(OSError):
        http.client.HTTPConnection("127.0.0.1", port, timeout=5).request("GET", "/v1/models")


def test_main_runs_the_app_then_stops_the_demo(pi_flag, monkeypatch):
    seen = []

    class FakeApp:
        def __init__(self, config, client, terminal_colors=(None, None), type_ahead=b"", restore=(), drafts=(), notes=()):
            seen.append(config)
            self.client = client
            self.slots, self.current, self.detached = [], None, 0
            self.desk = self  # (its desk's at-exit answers: none)

        def sessions_at_exit(self) -> list:
            return []

        def held_at_exit(self) -> list:
            return []

        def held_stopped_at_exit(self) -> set:
            return set()

        def run_app(self, signals, runner) -> int:
            assert seen[0].demo_server.workdir.exists()
            assert self.client.running and self.client.link.child is None, "pi was spawned before the app was made (and not read yet)"
            runner.run(self.client.start())
            runner.run(self.client.close())
            runner.close()
            return 7

    monkeypatch.setitem(sys.modules, "app.pideck_app", types.SimpleNamespace(PideckApp=FakeApp))
    assert main(["--demo", "--pi", pi_flag]) == 7
    assert not seen[0].demo_server.workdir.exists()


def test_provision_failure_exits_1_without_traceback(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pi, no npm
    monkeypatch.setenv("PIDECK_CACHE_DIR", str(tmp_path / "cache"))
    servers = sum(t.name == "scripted-model" for t in threading.enumerate())
    assert main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pideck: ") and "npm is not on PATH" in err
    assert sum(t.name == "scripted-model" for t in threading.enumerate()) == servers
