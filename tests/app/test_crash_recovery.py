"""pi dies (kill -9 mid-stream, at rest, or will not start again): the crash bar, the
banner, the restart key, and the resumed session. The mid-stream case runs the REAL pi
with a session directory; the others use the fake child for exact control."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, crash_text, kill_group, transcript_text, ui, wait_until

from app.cli.pideck import parse_args
from app.pi.args import resume_argv
from app.pi.launch import build_launch
from app.pideck_app import PideckApp
from protocol.wire.client import ChildExited
from widgets.panes.crash_bar import CrashBar
from widgets.screens.dialogs import SelectDialog
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatusLine


# --- the command a restart runs ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("pi_args", "expected"),
    [
        ([], []),
        (["--continue"], []),
        (["-c", "--provider", "p"], ["--provider", "p"]),
        (["--resume", "--model", "m"], ["--model", "m"]),
        (["--session", "old.jsonl", "--name", "n", "-e", "x.ts"], ["-e", "x.ts"]),
        (["--fork", "abc", "--session-id", "123", "--session-dir", "D"], ["--session-dir", "D"]),
        (["-n", "name", "--", "--continue", "hello"], []),
    ],
)
def test_resume_argv_replaces_the_session_flags(pi_args: list[str], expected: list[str]) -> None:
    argv = ("node", "cli.js", "--mode", "rpc", *pi_args)
    tail = pi_args[pi_args.index("--") :] if "--" in pi_args else []
    assert resume_argv(argv, "/s/f.jsonl") == ("node", "cli.js", "--mode", "rpc", *expected, "--session", "/s/f.jsonl", *tail)


def test_resume_argv_without_a_session_file_keeps_the_command() -> None:
    argv = ("pi", "--mode", "rpc", "--no-session", "--provider", "p")
    assert resume_argv(argv, None) == argv


# --- the real pi, killed mid-stream -----------------------------------------------------------


# --- the fake child: at rest, cannot start again, never saved ----------------------------------


MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "Earlier question at rest."}], "timestamp": 1795952825211},
    {"role": "assistant", "content": [{"type": "text", "text": "Earlier answer at rest."}], "api": "openai-completions",
     "provider": "scripted", "model": "scripted-demo", "usage": {"input": 1, "output": 1, "cacheRead": 0,
     "cacheWrite": 0, "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
     "total": 0}}, "stopReason": "stop", "timestamp": 1795952826527},
]


def fake_with_session(tmp_path: Path, session: bool = True) -> Fake:
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps(MESSAGES))
    args = ["--messages", str(messages)]
    if session:
        args += ["--session-file", str(tmp_path / "session.jsonl")]
    return Fake(tmp_path, *args)


async def crash(pilot: Any) -> None:
    app = pilot.app
    kill_group(app.desk.current.pi.client)
    await wait_until(pilot, lambda: app.query_one(CrashBar).display, what="crash bar")
    await pilot.pause()  # let the bar take its place on screen


async def test_crash_at_rest_then_restart_on_the_same_session(tmp_path: Path) -> None:
    fake = fake_with_session(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: "Earlier answer at rest." in transcript_text(app), what="loaded session")
        fake.inject(ui("select", "sel-1", title="Pick one", options=["A", "B"]))
        await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog), what="dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SelectDialog), what="dialog closed")
        fake.inject(ui("select", "sel-2", title="Asked just before dying", options=["A"]))
        await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog), what="second dialog")
        app.query_one(PromptEditor).insert("unsent words")

        await crash(pilot)

        assert not isinstance(app.screen, SelectDialog), "a question from the dead pi is withdrawn"
        fake.control.write_text("")  # a new fake child replays its control file from the start
        assert "pi was killed (SIGKILL" in crash_text(app)
        assert "Earlier answer at rest." in transcript_text(app)
        await pilot.click("#crash-restart")  # the button does what ctrl+r does
        await wait_until(pilot, lambda: app.desk.current.pi.client.running and not app.query_one(CrashBar).display, what="restart")
        assert app.desk.current.pi.client.link.argv[-2:] == ["--session", str(tmp_path / "session.jsonl")]
        await wait_until(pilot, lambda: "pi restarted" in transcript_text(app), what="restart banner")
        text = transcript_text(app)
        assert "Earlier question at rest." in text and "Earlier answer at rest." in text
        assert "SIGKILL" not in text, "the transcript was reloaded from the resumed session"
        assert app.query_one(PromptEditor).text == "unsent words"
        assert "not running" not in str(app.query_one(StatusLine).render())
        await type_and_send(pilot, fake)


@pytest.mark.parametrize("session_flag", ["--session=abc", "--fork=x"])
async def test_restart_opens_exactly_one_session(tmp_path: Path, session_flag: str) -> None:
    """`pideck -- --session=abc` (or `--fork=x`): the restart drops that flag for `--session <file>`."""
    fake = fake_with_session(tmp_path)
    args = parse_args(["--pi", shlex.join(fake.argv), "--cwd", str(tmp_path), "--", session_flag, "--verbose"])
    async with fake.run(PideckApp(build_launch(args))) as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: "Earlier answer at rest." in transcript_text(app), what="loaded session")
        session_file = app.desk.current.pi.model.state.session_file
        await crash(pilot)
        fake.control.write_text("")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "pi restarted" in transcript_text(app), what="restart banner")
        pi_args = app.desk.current.pi.client.link.argv[app.desk.current.pi.client.link.argv.index("rpc") + 1 :]
        assert pi_args == ["--verbose", "--session", session_file], "one session, no second fork"


async def type_and_send(pilot: Any, fake: Fake) -> None:
    """The restarted child takes prompts."""
    editor = pilot.app.query_one(PromptEditor)
    editor.load("after the restart")
    await pilot.press("enter")
    await wait_until(pilot, lambda: any(p["message"] == "after the restart" for p in fake.commands("prompt")),
                     what="prompt to the new child")


async def test_restart_when_pi_cannot_start_again(tmp_path: Path) -> None:
    fake = fake_with_session(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: "Earlier answer at rest." in transcript_text(app), what="loaded session")
        working = app.desk.current.pi.config  # what a restart runs pi with
        app.desk.current.pi.config = dataclasses.replace(
            working, env={**working.env, "FAKE_PI_EXIT": "1", "FAKE_PI_STDERR": "Error: the session disk is on fire"}
        )
        await crash(pilot)
        app.query_one(PromptEditor).insert("keep me")

        await pilot.press("ctrl+r")

        await wait_until(pilot, lambda: "could not be restarted" in crash_text(app), what="restart failure")
        assert "exited (code 1)" in crash_text(app) and "the session disk is on fire" in crash_text(app)
        assert app.is_running and app.screen is app.screen_stack[0], "no start-up error screen, no traceback"
        text = transcript_text(app)
        assert "Earlier answer at rest." in text and "the session disk is on fire" in text
        assert app.query_one(PromptEditor).text == "keep me"
        assert app.query_one(CrashBar).query_one("#crash-restart").disabled is False, "it can be tried again"

        app.desk.current.pi.config = working
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.desk.current.pi.client.running and not app.query_one(CrashBar).display, what="restart")
        await wait_until(pilot, lambda: "pi restarted" in transcript_text(app), what="restart banner")
        assert app.query_one(PromptEditor).text == "keep me"


async def test_restart_of_an_unsaved_session_keeps_the_old_transcript(tmp_path: Path) -> None:
    fake = fake_with_session(tmp_path, session=False)
    async with fake.run() as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: "Earlier answer at rest." in transcript_text(app), what="loaded session")
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_file is None
        await crash(pilot)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "new, empty session" in transcript_text(app), what="restart banner")
        assert "--session" not in app.desk.current.pi.client.link.argv
        text = transcript_text(app)
        assert "Earlier answer at rest." in text and "SIGKILL" in text, "nothing on screen was thrown away"
        await wait_until(pilot, lambda: not app.query_one(CrashBar).display, what="the crash bar gone once pi is back")


async def test_pi_exiting_as_pideck_exits_is_dropped_quietly(tmp_path: Path) -> None:
    """pi's exit (and anything else it sends) while pideck leaves, or after its screen is
    gone, shows no crash bar and raises nothing."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        app.exit(0)
        app.desk.current.pi.pump.feed(ChildExited(returncode=0, stderr_tail=""))  # as pi closes under the exit
        assert not app.query_one(CrashBar).display and not app.desk.current.pi.pump.pending
    exited = ChildExited(returncode=None, stderr_tail="", error="late")
    app.desk.current.pi.pump.feed(exited)  # the views are gone now
    app.desk.current.pi.pump._start_flush()  # a frame's timer, late
    await app.desk.current.pi.fold([exited])  # a flush, late
    assert app.return_code == 0 and not app.desk.current.pi.pump.pending
