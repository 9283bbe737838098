"""Over ssh, every word pideck adds to the `--pi` command reaches pi as it is, never as shell.

ssh joins the words after the host with spaces and the remote shell splits them again, so a
word pideck passes unquoted is run as shell there: `/login foo;touch MARK` ran `touch`, a
session path holding `$(…)` ran on Ctrl+R's restart, and one with a space opened another
session. Here `ssh` is a stand-in that does what ssh does with its words (joined with
spaces, run by `sh -c`) on this host, and `pi` a stand-in that records the words it got,
then runs the fake child (with `--mode rpc`) or exits (`auth login …`)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from tests.app.test_crash_recovery import crash
from tests.pi_harness import Fake, notes, send, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.pi.remote import with_words
from widgets.panes.crash_bar import CrashBar

CLAUDE = {"id": "claude-x", "name": "Claude X", "api": "anthropic-messages", "provider": "anthropic",
          "baseUrl": "https://api.anthropic.com", "reasoning": True, "input": ["text"],
          "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
          "contextWindow": 200000, "maxTokens": 8192}


def stand_ins(tmp_path: Path, fake: Fake) -> tuple[Path, Path, Path]:
    """The `ssh` and `pi` stand-ins (`pi --mode rpc` runs `fake`, with its own options and the
    words after `rpc`), and the file `pi` records each start's words in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    ssh.write_text('#!/bin/sh\n# ssh HOST WORDS...: the words joined with spaces, run by the shell "there"\nshift\n'
                   'exec sh -c "$*"\n')
    record = tmp_path / "record.jsonl"
    pi = bin_dir / "pi"
    pi.write_text(f"""#!{sys.executable}
import json, os, sys
with open({str(record)!r}, "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:3] == ["--mode", "rpc"]:
    os.execv(sys.executable, [*{list(fake.argv)!r}, *sys.argv[3:]])
""")
    for path in (ssh, pi):
        path.chmod(0o755)
    return ssh, pi, record


def started(record: Path) -> list[list[str]]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def marks(tmp_path: Path) -> list[str]:
    return sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("MARK*"))


def over_ssh(tmp_path: Path, *pi_args: str, session: str = "") -> tuple[Fake, PideckApp, Path]:
    """pideck over the fake child, through the stand-ins (pi's session file `session`, given
    to the fake in its environment: not a word on the command line)."""
    fake = Fake(tmp_path, "--answer", "get_available_models+1=" + json.dumps({"models": [CLAUDE]}),
                "--answer", "switch_session=" + json.dumps({"cancelled": False}))
    ssh, pi, record = stand_ins(tmp_path, fake)
    argv = (str(ssh), "devbox", str(pi), "--mode", "rpc", *pi_args)
    app = PideckApp(replace(fake.config({"FAKE_PI_SESSION_FILE": session}), argv=argv, remote="devbox"))

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:  # App.suspend is not supported headless
        yield

    app.suspend = suspend  # type: ignore[method-assign]
    return fake, app, record


async def test_pis_flags_reach_pi_over_ssh_as_they_are(tmp_path: Path) -> None:
    pi_args = ["--note", "$(touch MARK_START); touch MARK_START2", "two words", "it's"]
    fake, app, record = over_ssh(tmp_path, *pi_args)
    async with fake.run(app):
        assert started(record) == [["--mode", "rpc", *pi_args]]
    assert marks(tmp_path) == [], "nothing ran in the remote shell"


async def test_a_restart_over_ssh_resumes_the_session_it_names(tmp_path: Path) -> None:
    session = str(tmp_path / "my pi" / "$(touch MARK_RESTART)" / "s.jsonl")  # a space, and shell in a folder's name
    fake, app, record = over_ssh(tmp_path, session=session)
    async with fake.run(app) as pilot:
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_file == session
        await crash(pilot)
        fake.control.write_text("")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.desk.current.pi.client.running and not app.query_one(CrashBar).display, what="the restart")
        await wait_until(pilot, lambda: "pi restarted" in transcript_text(app), what="the restart banner")
        assert started(record)[1] == ["--mode", "rpc", "--session", session]
        assert app.desk.current.pi.model.state.session_file == session, "the session the banner names"
        assert f"resumed session {session}" in transcript_text(app)
    assert marks(tmp_path) == [], "nothing ran in the remote shell"


async def test_login_and_logout_words_reach_pi_over_ssh_as_they_are(tmp_path: Path) -> None:
    fake, app, record = over_ssh(tmp_path, session=str(tmp_path / "s.jsonl"))
    async with fake.run(app) as pilot:
        await send(pilot, "/login foo;touch MARK_LOGIN")
        await wait_until(pilot, lambda: any(n.startswith("Models") for n in notes(app)), what="the login's toast")
        await send(pilot, "/logout $(touch MARK_LOGOUT)")
        await wait_until(pilot, lambda: len(started(record)) == 3, what="the logout")
        assert started(record)[1:] == [["auth", "login", "foo;touch", "MARK_LOGIN"],
                                       ["auth", "logout", "$(touch", "MARK_LOGOUT)"]]
    assert marks(tmp_path) == [], "nothing ran in the remote shell"


def test_the_users_own_words_stay_for_the_remote_shell_and_local_commands_are_untouched() -> None:
    command = ["/usr/bin/ssh", "-p", "22", "devbox", "cd ~/src && pi"]
    assert with_words(command, ["--mode", "rpc", "a b", "$(x)"]) == [*command, "--mode", "rpc", "'a b'", "'$(x)'"]
    assert with_words(["/usr/bin/pi"], ["a b", "$(x)"]) == ["/usr/bin/pi", "a b", "$(x)"]
