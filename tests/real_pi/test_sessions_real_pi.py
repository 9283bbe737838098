"""Session commands (/new, /name, /resume, /fork, /clone, /tree) and pi's session flags at
start-up, driven through pideck (Pilot) against the REAL pi and the scripted model.

Each test starts one app (its own pi child) on sessions in its own directory: the
hand-written fixtures in tests/fixtures/sessions (with the header's cwd set to the
harness's) and sessions pi writes during the test.
"""

from __future__ import annotations

import io
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.pi_harness import (
    EXTENSIONS_DIR,
    SIZE,
    PiHarness,
    copy_session,
    notes,
    quiesce,
    send,
    stats_text,
    transcript_text,
    wait_until,
)
from textual.widgets import OptionList, Tree

from app.cli.pideck import parse_args
from app.pi.launch import build_launch
from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from widgets.prompt.editor import PromptEditor
from widgets.screens.session_picker import ForkPicker, SessionPicker
from widgets.screens.tree_view import SessionTreeScreen

pytestmark = pytest.mark.pi

CANCEL_SESSIONS = EXTENSIONS_DIR / "cancel_sessions.ts"


async def ready(pilot: Any) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=30, what="start-up")
    await quiesce(pilot)


def session_file(app: PideckApp) -> str | None:
    return app.desk.current.pi.model.state.session_file if app.desk.current.pi.model.state is not None else None


def option_texts(screen: Any) -> list[str]:
    options = screen.query_one(OptionList)
    texts = []
    for index in range(options.option_count):
        console = Console(width=110, file=io.StringIO(), record=True)
        console.print(options.get_option_at_index(index).prompt)
        texts.append(console.export_text())
    return texts


async def pick(pilot: Any, kind: type, what: str) -> Any:
    return await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind) and pilot.app.screen, what=what)


async def test_new_name_and_resume_a_session_made_earlier(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="Hello from the model."))
    sessions = tmp_path / "sessions"
    copy_session("plain.jsonl", sessions, pi_harness.cwd)
    app = PideckApp(pi_harness.launch_config(session_dir=sessions))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "Say hello")
        await wait_until(pilot, lambda: "Hello from the model." in transcript_text(app) and not app.desk.current.pi.model.running,
                         what="answer")  # fmt: skip
        await send(pilot, "/name Greeting work")
        await wait_until(pilot, lambda: "Greeting work" in stats_text(app), what="name in the stats pane")
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_name == "Greeting work"
        greeting = session_file(app)
        assert greeting is not None and Path(greeting).parent == sessions

        await send(pilot, "/new")
        await wait_until(pilot, lambda: session_file(app) not in (None, greeting), what="a new session")
        await quiesce(pilot)
        assert "Hello from the model." not in transcript_text(app)
        assert "(unnamed)" in stats_text(app)
        await wait_until(pilot, lambda: "New session started." in notes(app), what="the notice")

        await send(pilot, "/resume")
        picker = await pick(pilot, SessionPicker, "the session picker")
        await wait_until(pilot, lambda: len(picker.shown) == 2, what=f"two sessions: {option_texts(picker)}")
        rows = option_texts(picker)
        assert "Greeting work" in rows[0] and "Say hello" in rows[0]  # newest first, name and first message
        assert "Explain the build system" in rows[1] and str(pi_harness.cwd) in rows[1]
        await pilot.press(*"greeting")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="the filter")
        await pilot.press("enter")
        await wait_until(pilot, lambda: session_file(app) == greeting, what="switch back")
        await wait_until(pilot, lambda: "Hello from the model." in transcript_text(app), what="transcript reload")
        await wait_until(pilot, lambda: "Greeting work" in stats_text(app), what="stats reload")
        assert app.desk.current.pi.model.steering == [] and app.desk.current.pi.model.follow_up == []

        await send(pilot, "/resume build")  # the words become the picker's filter
        picker = await pick(pilot, SessionPicker, "the filtered picker")
        await wait_until(pilot, lambda: len(picker.shown) == 1 and picker.rows, what="one match")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "The build uses make" in transcript_text(app), what="the plain session")
        assert session_file(app) == str(sessions / "plain.jsonl")
        assert "Hello from the model." not in transcript_text(app)
        await quiesce(pilot)


async def test_fork_and_clone(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    sessions = tmp_path / "sessions"
    original = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    before = original.read_bytes()
    app = PideckApp(pi_harness.launch_config(session_dir=sessions, extra_args=["--session", str(original)]))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "Approach B is done" in transcript_text(app)
        await send(pilot, "/fork")
        picker = await pick(pilot, ForkPicker, "the fork picker")
        rows = option_texts(picker)
        assert len(rows) == 3  # pi lists the user messages of every branch
        assert "Plan the refactor" in rows[0] and "approach A" in rows[1] and "Try approach B" in rows[2]
        assert picker.highlighted_value() == "u0000003"  # the newest message first
        await pilot.press("enter")
        await wait_until(pilot, lambda: session_file(app) not in (None, str(original)), what="the forked session")
        await wait_until(pilot, lambda: "Approach B is done" not in transcript_text(app), what="transcript reload")
        forked = session_file(app)
        assert "Here is a plan" in transcript_text(app)
        assert app.query_one(PromptEditor).text == "Try approach B instead: a generated lexer"
        assert original.read_bytes() == before

        await send(pilot, "/clone")
        await wait_until(pilot, lambda: session_file(app) not in (None, forked), what="the clone")
        await quiesce(pilot)
        await wait_until(pilot, lambda: "Cloned the current branch into a new session." in notes(app), what="the notice")
        assert "Here is a plan" in transcript_text(app) and "Approach B" not in transcript_text(app)
        clone = Path(session_file(app) or "")
        assert clone.parent == sessions and clone.is_file()


async def test_tree_shows_branches_and_forks_from_a_node(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    sessions = tmp_path / "sessions"
    original = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    app = PideckApp(pi_harness.launch_config(session_dir=sessions, extra_args=["--session", str(original)]))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/tree")
        screen = await pick(pilot, SessionTreeScreen, "the tree view")
        tree = screen.query_one(Tree)
        await wait_until(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "a0000004",
                         what="the cursor on the current leaf")  # fmt: skip
        lines = [str(tree.get_node_at_line(n).label) for n in range(tree.last_line + 1)]
        assert lines[0] == "  user Plan the refactor of the parser [start]"
        assert lines[-1].startswith("● assistant Approach B is done") and lines[-1].endswith("← current leaf")
        assert "RPC cannot move the leaf" in str(screen.query_one("#tree-note").render())

        await pilot.press("t")  # hide tool results
        await wait_until(pilot, lambda: not any("tool read" in str(tree.get_node_at_line(n).label)
                                                for n in range(tree.last_line + 1)), what="tools hidden")  # fmt: skip
        await pilot.press("t")
        await pilot.press("up")  # the user message that heads branch B
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.data == "u0000003"
        await pilot.press("up")  # an assistant reply: not forkable over RPC
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Only a user message can be forked" in n for n in notes(app)),
                         what="the not-possible note")  # fmt: skip
        assert app.screen is screen
        for _ in range(3):
            await pilot.press("up")
        assert tree.cursor_node is not None and tree.cursor_node.data == "u0000002"
        await pilot.press("enter")
        await wait_until(pilot, lambda: session_file(app) not in (None, str(original)), what="fork from the tree")
        await wait_until(pilot, lambda: "Approach B" not in transcript_text(app), what="transcript reload")
        await quiesce(pilot)
        text = transcript_text(app)
        assert "Plan the refactor of the parser" in text and "Here is a plan" in text
        assert "Approach A is done" not in text
        assert app.query_one(PromptEditor).text == "Go with approach A: a hand-written lexer"


async def test_extension_cancellation_is_reported(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    sessions = tmp_path / "sessions"
    original = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    copy_session("plain.jsonl", sessions, pi_harness.cwd)
    app = PideckApp(pi_harness.launch_config(
        session_dir=sessions, extra_args=["--session", str(original)], extensions=[CANCEL_SESSIONS]
    ))  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/new")
        await wait_until(pilot, lambda: any("cancelled /new" in n for n in notes(app)), what="/new cancelled")
        await send(pilot, "/resume build")
        picker = await pick(pilot, SessionPicker, "the picker")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="one match")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("cancelled /resume" in n for n in notes(app)), what="/resume cancelled")
        await send(pilot, "/fork")
        await pick(pilot, ForkPicker, "the fork picker")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("cancelled /fork" in n for n in notes(app)), what="/fork cancelled")
        await send(pilot, "/clone")
        await wait_until(pilot, lambda: any("cancelled /clone" in n for n in notes(app)), what="/clone cancelled")
        await quiesce(pilot)
        assert session_file(app) == str(original)
        assert "Approach B is done" in transcript_text(app)
        assert app.query_one(PromptEditor).text == ""
        assert sorted(p.name for p in sessions.iterdir()) == ["branched.jsonl", "plain.jsonl"]


# --- pi's session flags at start-up, through pideck's own command line -----------------------------


def cli_app(harness: PiHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *pi_args: str) -> PideckApp:
    """`pideck --pi <pinned pi> --cwd <harness cwd> -- <scripted model> PI_ARGS...`, as the CLI builds it."""
    for key in [key for key in os.environ if key.startswith("PI_")]:
        monkeypatch.delenv(key)
    for key, value in harness.env.items():
        if key.startswith("PI_"):
            monkeypatch.setenv(key, value)
    args = parse_args([
        "--pi", shlex.join(harness.runtime.argv), "--cwd", str(harness.cwd),
        "--protocol-log", str(tmp_path / "protocol.log"), "--", *pi_model_args(), *pi_args,
    ])  # fmt: skip
    return PideckApp(build_launch(args))


async def test_startup_session_file(pi_harness: PiHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = tmp_path / "sessions"
    path = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    app = cli_app(pi_harness, tmp_path, monkeypatch, "--session-dir", str(sessions), "--session", str(path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert session_file(app) == str(path)
        await wait_until(pilot, lambda: "Approach B is done" in transcript_text(app), what="the session's transcript")
        assert "Parser refactor" in stats_text(app)


async def test_startup_no_session_with_name(pi_harness: PiHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="Nothing is saved."))
    app = cli_app(pi_harness, tmp_path, monkeypatch, "--no-session", "--name", "Scratch pad")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert session_file(app) is None
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_name == "Scratch pad"
        assert "Scratch pad" in stats_text(app)
        await send(pilot, "Anything")
        await wait_until(pilot, lambda: "Nothing is saved." in transcript_text(app) and not app.desk.current.pi.model.running,
                         what="answer")  # fmt: skip
        await quiesce(pilot)
        assert session_file(app) is None


async def test_startup_continue(pi_harness: PiHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = tmp_path / "sessions"
    older = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    newer = copy_session("plain.jsonl", sessions, pi_harness.cwd)
    os.utime(older, (1_700_000_000, 1_700_000_000))
    os.utime(newer, (1_700_000_500, 1_700_000_500))
    app = cli_app(pi_harness, tmp_path, monkeypatch, "--session-dir", str(sessions), "--continue")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert session_file(app) == str(newer)
        await wait_until(pilot, lambda: "The build uses make" in transcript_text(app), what="the newest session")
