"""Several sessions in one pideck, each its own real pi 1.6.0 on the scripted model: two and
three children at once, a reply and a dialog of a session not shown, a timed dialog that
runs out there, a crash of one while another streams; and, through the installed command
in tmux, quitting with one resume command per session and `pideck --restore`."""

from __future__ import annotations

import shlex
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from protocol.state.desk import Mark
from tests.load import out_of_time
from tests.pi_harness import (
    ROOT,
    SIZE,
    PiHarness,
    burst,
    drawn_text,
    kill_group,
    make_app,
    notes,
    press_alone,
    question,
    quiesce,
    send,
    started,
    wait_until,
)
from widgets.screens.dialogs import ExtensionDialog, SelectDialog
from widgets.panes.sessions_row import SessionsRow

pytestmark = pytest.mark.pi

SLOW = {"chunk_chars": 3, "delay": 0.02}


def toasts(app: object) -> list[str]:
    """The titles of the toasts up."""
    return [notification.title for notification in app._notifications]  # type: ignore[attr-defined]


async def open_session(pilot: object, folder: Path, count: int) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    folder.mkdir(exist_ok=True)
    await send(pilot, f"/open {folder}")
    await wait_until(pilot, lambda: len(app.desk.slots) == count and app.desk.slots[-1].pi.ready and app.desk.slots[-1].pi.commands,
                     timeout=40, what=f"session {count} started")
    await wait_until(pilot, lambda: app.screen is app.desk.slots[-1].main, what=f"session {count} shown")


async def test_three_pis_at_once_each_reply_and_dialog_in_its_own_session(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    model = pi_harness.model
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await open_session(pilot, tmp_path / "two", 2)
        await open_session(pilot, tmp_path / "three", 3)
        pids = {slot.pi.client.link.pid for slot in app.desk.slots if slot.pi.client.link.pid is not None}
        assert len(pids) == 3, "each session has its own pi"
        assert [slot.pi.cwd for slot in app.desk.slots[1:]] == [(tmp_path / "two").resolve(), (tmp_path / "three").resolve()]

        # a reply streaming in session 2 while session 1 is shown
        model.queue(Reply(text="second " * 80, **SLOW))
        await pilot.press("alt+2")
        asked = len(model.requests)
        await send(pilot, "Answer in session two.")
        await wait_until(pilot, lambda: len(model.requests) > asked, what="session 2's request")
        await pilot.press("alt+1")
        two = app.desk.slots[1]
        await wait_until(pilot, lambda: two.pi.model.running, what="session 2 working")
        model.queue(Reply(text="First answer."))
        await send(pilot, "Answer in session one.")
        await wait_until(pilot, lambda: "First answer." in drawn_text(app.desk.slots[0].main) and not app.desk.current.pi.model.running,
                         timeout=30, what="session 1's answer")
        await wait_until(pilot, lambda: not two.pi.model.running and two.unread, timeout=40, what="session 2 done unseen")
        # (its first deltas may have been drawn before Alt+1 was read; the rest waited)
        assert drawn_text(two.main).count("second") < 80, "a session not shown draws nothing"
        assert "First answer." not in drawn_text(two.main) and "second second" not in drawn_text(app.desk.slots[0].main)
        assert "2 ✓" in str(app.screen.query_one(SessionsRow).render())
        await pilot.press("alt+2")
        await wait_until(pilot, lambda: drawn_text(two.main).count("second") == 80, what="session 2 drawn whole once shown")

        # a dialog of session 3 while session 1 is shown: it waits, marked, and is answered there
        await pilot.press("alt+3")
        await send(pilot, "/ui-dialogs")
        await pilot.press("alt+1")
        three = app.desk.slots[2]
        await wait_until(pilot, lambda: three.mark is Mark.NEEDS_YOU, what="session 3 needs you")
        assert not isinstance(app.screen, ExtensionDialog), "the dialog is not shown over session 1"
        await pilot.press("alt+0")
        await question(pilot, SelectDialog)  # in session 3
        await pilot.press("down")
        await press_alone(pilot, "enter")
        await wait_until(pilot, lambda: "select=\"green\"" in notes(app), what="session 3's pi got the answer")
        for _ in range(3):  # confirm, input, editor: cancelled
            await wait_until(pilot, lambda: isinstance(app.screen, ExtensionDialog), what="the next dialog")
            await pilot.pause(0.1)
            await pilot.press("escape")
        await wait_until(pilot, lambda: any(n.startswith("editor=") for n in notes(app)), what="the last answer")
        assert three.mark is not Mark.NEEDS_YOU
        await quiesce(pilot)


async def test_a_timed_dialog_runs_out_unseen_and_a_crash_spares_the_session_streaming(
        pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    model = pi_harness.model
    app = make_app(pi_harness)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await open_session(pilot, tmp_path / "two", 2)
        two = app.desk.slots[1]
        await send(pilot, "/ui-timeout 1500")  # three dialogs of 1.5 s each, nobody to answer them
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: "timeout-input=<undefined>" in notes(app), timeout=30,
                         what="every dialog of session 2 ran out, as pi's timers say")
        # pi's timer started before it wrote the request, ours when it was read: ours ends a moment later
        await wait_until(pilot, lambda: two.mark is not Mark.NEEDS_YOU, timeout=5, what="session 2's mark cleared")
        assert not isinstance(app.screen, ExtensionDialog), "no dialog of session 2 over session 1"

        model.queue(Reply(text="steady " * 60, **SLOW))
        await send(pilot, "Stream in session one.")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running, what="session 1 streaming")
        kill_group(two.pi.client)
        await wait_until(pilot, lambda: two.mark is Mark.EXITED and two.pi.model.life.crash is not None,
                         timeout=20, what="session 2's pi crashed")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "steady steady" in drawn_text(app.desk.current.main),
                         timeout=30, what="session 1's reply whole")
        assert app.desk.slots[0].pi.client.running and app.desk.current.pi.model.life.crash is None, "one crash never touches another"
        await quiesce(pilot)


async def test_the_toasts_of_a_session_opened_and_of_one_that_asks(pi_harness: PiHarness, tmp_path: Path) -> None:
    """/open's toast is titled with the session it opened (it read "work · Sessions", the
    name of the session left); the toast that a session asks goes once it is shown (it
    stayed up, over the dialog it announced, until its time ran out)."""
    pi_harness.reset_model()
    app = make_app(pi_harness)
    app.NOTIFICATION_TIMEOUT = 60  # (a toast that stays is not one whose time ran out)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await open_session(pilot, tmp_path / "two", 2)
        assert "Session 2 opened: two" in toasts(app) and not [title for title in toasts(app) if "·" in title]
        two = app.desk.slots[1]
        two.main.editor.load("/ui-dialogs")
        await pilot.pause()
        burst(app, "enter", "alt+1")  # session 1 shown before pi asks
        await wait_until(pilot, lambda: two.mark is Mark.NEEDS_YOU and "Needs you" in toasts(app),
                         what="a toast says session 2 asks")
        assert app.screen is app.desk.slots[0].main
        await pilot.press("alt+2")
        await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog), what="the dialog in session 2")
        await wait_until(pilot, lambda: "Needs you" not in toasts(app), what="the toast gone once session 2 shows")
        for _ in range(4):  # select, confirm, input, editor: cancelled
            await wait_until(pilot, lambda: isinstance(app.screen, ExtensionDialog), what="the next dialog")
            await pilot.pause(0.1)
            await pilot.press("escape")
        await wait_until(pilot, lambda: any(n.startswith("editor=") for n in notes(app)), what="the last answer")
        await quiesce(pilot)


def test_quit_prints_a_resume_command_per_session_and_restore_opens_them(pi_harness: PiHarness, tmp_path: Path) -> None:
    """The installed pideck over the pinned pi, as a user runs it, in tmux."""
    one, two, sessions, state = tmp_path / "one", tmp_path / "two", tmp_path / "sessions", tmp_path / "state"
    for folder in (one, two, sessions):
        folder.mkdir()
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="Answer one."), Reply(text="Answer two."))
    socket = f"pideck-desk-{uuid.uuid4().hex[:10]}"
    env = {**pi_harness.env, "XDG_STATE_HOME": str(state), "TERM": "xterm-256color"}

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10).stdout

    def screen() -> str:
        return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "t")

    def wait_for(text: str, timeout: float = 60.0) -> str:
        started = time.monotonic()
        while text not in (shown := screen()):
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {text!r}; screen:\n{shown}")
            time.sleep(0.2)
        return shown

    def quit_twice() -> None:
        """Ctrl+C on the empty prompt, and again once pideck says a second one quits."""
        tmux("send-keys", "-t", "t", "C-c")
        wait_for("again to quit", timeout=30)
        tmux("send-keys", "-t", "t", "C-c")

    def type_line(text: str) -> None:
        tmux("send-keys", "-t", "t", "-l", text)
        wait_for(text[-20:])
        tmux("send-keys", "-t", "t", "Enter")

    pideck = shlex.join([str(ROOT / ".venv" / "bin" / "pideck"), "--pi", shlex.join(pi_harness.runtime.argv)])
    first = f"{pideck} --cwd {shlex.quote(str(one))} -- {shlex.join(pi_model_args())} --session-dir {sessions}"
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items()
                       if key.startswith(("PI_", "PIDECK_", "XDG_")))
    tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", str(tmp_path),
         f"env {exports} {first}; echo EXIT=$?; env {exports} {pideck} --restore; echo EXIT=$?; sleep 120")
    try:
        wait_for("● ready")
        type_line("Say one.")
        wait_for("Answer one.")
        type_line("/open ../two")
        wait_for("2 ○ two")
        type_line("Say two.")
        wait_for("Answer two.")
        tmux("send-keys", "-t", "t", "-l", "a draft for later")  # left unsent in a session then not shown
        wait_for("a draft for later")
        tmux("send-keys", "-t", "t", "M-1")
        waited = time.monotonic()
        while "a draft for later" in screen():  # session one shown, its prompt empty
            assert not out_of_time(waited, 30), screen()
            time.sleep(0.1)
        quit_twice()
        shown = wait_for("EXIT=0")
        assert "To resume this session:" in shown and "The other sessions:" in shown
        assert shown.count("--session ") >= 2 and f"--cwd {two}" in shown, shown
        assert "pideck: an unsent draft was left in two (saved: pideck --restore puts it back)" in shown
        saved = list((state / "pideck" / "desks").iterdir())
        assert len(saved) == 1 and oct(saved[0].stat().st_mode & 0o777) == "0o600", saved

        wait_for("1 ○ one  2 ○ two", timeout=90)  # pideck --restore: both, on their session files
        wait_for("Answer one.")  # the first session's transcript, shown first
        tmux("send-keys", "-t", "t", "M-2")
        wait_for("Answer two.")
        wait_for("a draft for later")  # back in its prompt
        tmux("send-keys", "-t", "t", "C-c")  # (a prompt with text: Ctrl+C clears it)
        waited = time.monotonic()
        while "a draft for later" in screen():
            assert not out_of_time(waited, 30), screen()
            time.sleep(0.1)
        quit_twice()
        assert screen().count("EXIT=0") == 2 or wait_for("EXIT=0")
    finally:
        tmux("kill-server")
