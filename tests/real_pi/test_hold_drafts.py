"""What a user leaves behind with a held pi survives: every window's draft is kept by the
holder, however the window went, whole, and put back at the next attach; a session left
held is saved where `--restore` finds it, which attaches while it is held and resumes it
once the holder is gone."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shlex
import signal
import time
from pathlib import Path
from dataclasses import replace
from typing import Any

from tests.load import out_of_time
from tests.pi_harness import SIZE, UI_EVERYTHING, PiHarness, TmuxPideck, notes, send, started, transcript_text, wait_until
from tests.real_pi.test_hold_real_pi import TerminalPi, _alive, windows

from app.cli.hold import DRAFTS_APART, attach_launches, stop_main
from app.cli.pideck import parse_args
from app.pideck_app import PideckApp
from app.cli.restore import restoring, save_held, save_sessions
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from protocol.files.desk_file import desks
from protocol.hold.ask import ask, held
from protocol.hold.held_link import HeldLink

import pytest

pytestmark = pytest.mark.pi


def _drafts(env: dict[str, str]) -> list[str]:
    (pi,) = held(env, drafts=True)
    return pi["drafts"]


async def _eventually(condition: Any, what: str, timeout: float = 30.0) -> None:
    started = time.monotonic()
    while not condition():
        assert not out_of_time(started, timeout), f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_every_windows_draft_is_kept_newest_first_and_put_back(pi_harness: PiHarness, windows: Any,
                                                                   holder_env: dict[str, str]) -> None:
    """A's window dies without a word (its connection drops, as at a SIGKILL) after it said
    its draft; B detaches with its own, C with an empty prompt: an attach gets both, B's
    first, and takes them (the holder keeps them no more)."""
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    a = PideckApp(config)
    said: list[str] = []
    async with a.run_test(size=SIZE) as pilot:
        await started(pilot)
        number = a.desk.current.pi.client.hello.number
        report = a.desk.current.pi.client.link.report_draft
        a.desk.current.pi.client.link.report_draft = lambda draft: (said.append(draft), report(draft))  # type: ignore[method-assign]
        a.desk.current.main.editor.insert("precious draft")
        await wait_until(pilot, lambda: said and said[-1] == "precious draft", what="the draft said to the holder")
        link = a.desk.current.pi.client.link
        assert isinstance(link, HeldLink) and link._writer is not None
        await link.written(10)
        link._writer.transport.abort()  # (the window is gone: nothing more from it)
        b = await windows(number)
        c = await windows(number)
        await _eventually(lambda: _drafts(holder_env) == ["precious draft"], "A's draft kept")
        a.exit()
    b.client.detach("draft in B")
    await b.client.link.written(10)
    c.client.detach("")
    await c.client.link.written(10)
    await _eventually(lambda: held(holder_env)[0]["windows"] == 0, "B and C gone")
    assert _drafts(holder_env) == ["draft in B", "precious draft"]

    ((launch, draft),) = attach_launches(config, argparse.Namespace(attach=[]), holder_env)
    assert draft == "draft in B" + DRAFTS_APART + "precious draft"
    attached = PideckApp(launch, drafts=[draft])
    async with attached.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: attached.desk.current.pi.ready and attached.desk.current.main.editor.text == draft,
                         what="both drafts in the prompt")
        assert any("2 drafts left by windows that went are in the prompt" in note for note in notes(attached))
        assert _drafts(holder_env) == [], "the drafts are the attached window's now"
        attached.desk.current.main.editor.load("")
        attached.desk.detach()
    assert _drafts(holder_env) == [], "a draft emptied in the prompt is not put back"


async def test_a_draft_over_a_control_frame_is_kept_whole(pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """5 M characters left at Ctrl+\\: the window waits for them to be sent, the holder keeps
    them whole (they were dropped with the connection, or cut to 1 M characters)."""
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    big = ("a long draft é😀\n" * 400_000)[:5_000_000]
    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.desk.current.main.editor.load(big)
        app.desk.detach()
    kept = _drafts(holder_env)
    assert len(kept) == 1 and len(kept[0]) == len(big) and kept[0] == big


def test_a_detached_session_is_restored_attached_while_held_and_resumed_once_the_holder_died(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """Ctrl+\\ with a draft: `pideck --restore` attaches to the held pi (no second pi); Ctrl+\\
    again, then the holder is killed (as by the OOM killer): `--restore list` still lists the
    session, and `pideck --restore` resumes it from pi's file, with its draft."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="the answer before the detach"))
    pi = TerminalPi(pi_harness, tmp_path, holder_env)
    args = ("--pi", shlex.join(pi_harness.runtime.argv), "--", *pi_model_args())
    with TmuxPideck(pi, args=args, cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready", timeout=60)
        term.send("a question")
        term.wait(lambda: "the answer before the detach" in term.screen(), "the answer", timeout=60)
        term.keys("-l", "left at the detach")
        term.wait(lambda: "left at the detach" in term.screen(), "the draft in the prompt")
        term.keys("C-\\")
        term.wait(lambda: "detached; 1 held pi goes on" in term.screen(), "the detach", timeout=30)
    assert "1 left held" in pi.pideck("--restore", "list").stdout
    with TmuxPideck(pi, args=("--restore",), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "left at the detach" in term.screen() and "● ready" in term.screen(), "restored", timeout=60)
        (listed,) = held(holder_env)
        assert listed["windows"] == 1, "the restore attached to the held pi: no second pi on its file"
        term.keys("C-\\")
        term.wait(lambda: "detached; 1 held pi goes on" in term.screen(), "the detach", timeout=30)
    answer = ask({"op": "list"}, holder_env)
    assert answer is not None
    (listed,) = answer["pis"]
    os.kill(answer["holder"], signal.SIGKILL)
    os.kill(listed["pid"], signal.SIGKILL)  # (no orderly end: as a reboot leaves it)
    listed_now = pi.pideck("ls").stdout
    assert "no pi is held" in listed_now and "1 session left held went with its holder" in listed_now, listed_now
    restorable = pi.pideck("--restore", "list").stdout
    assert restorable.count("1 left held") == 1, restorable
    with TmuxPideck(pi, args=("--restore",), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "the answer before the detach" in term.screen() and "left at the detach" in term.screen()
                  and "● ready" in term.screen(), "the session resumed with its draft", timeout=60)


async def test_an_idle_held_pi_is_closed_and_comes_back_on_its_session_file(tmp_path: Path, pi_harness: PiHarness,
                                                                           holder_env: dict[str, str]) -> None:
    """A held pi with no window and no run past PIDECK_HOLD_IDLE is closed (it held 80–180
    MB for nothing), listed as before, and `pideck attach` brings it back under its number
    on its session file: its conversation, and the draft its window left."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="said before it rested"))
    config = replace(pi_harness.launch_config(session_dir=tmp_path / "sessions", env={
        "XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"], "PIDECK_HOLD_IDLE": "1"}), hold=True)
    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "a question")
        await wait_until(pilot, lambda: "said before it rested" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the answer")
        app.desk.current.main.editor.insert("unsent")
        number, pid = app.desk.current.pi.client.hello.number, app.desk.current.pi.client.hello.pid
        app.desk.detach()
    save_held(app.desk.held_at_exit(), app.desk.held_stopped_at_exit(), parse_args([]), os.environ)  # (as pideck does at its exit)
    await _eventually(lambda: not _alive(pid) and [pi["pid"] for pi in held(holder_env)] == [None], "the idle pi closed")
    (listed,) = held(holder_env)
    assert (listed["number"], listed["state"], listed["windows"], listed["pid"]) == (number, "idle", 0, None)
    restored = restoring(parse_args(["--restore"]), os.environ)
    assert restored is not None and restored.launch(config, 0)[0].resumes == number, "--restore brings it back too"
    restored.desk.keep()
    ((launch, draft),) = attach_launches(config, argparse.Namespace(attach=[]), holder_env)
    assert draft == "unsent"
    back = PideckApp(launch, drafts=[draft])
    async with back.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: back.desk.current.pi.ready and "said before it rested" in transcript_text(back)
                         and back.desk.current.main.editor.text == "unsent", timeout=60, what="the session and its draft back")
        (listed,) = held(holder_env)
        assert listed["number"] == number and listed["windows"] == 1 and listed["pid"] not in (None, pid)
        await wait_until(pilot, lambda: any("1 held pi brought back" in note for note in notes(back)),
                         what="the attach's toast")
        back.desk.detach()
    save_held(back.desk.held_at_exit(), back.desk.held_stopped_at_exit(), parse_args([]), os.environ)
    assert [session.held_number for desk in desks(os.environ) for session in desk.sessions] == [number], \
        "the newest desk left held only"
    assert stop_main(["--all"], os.environ, io.StringIO()) == 0
    assert desks(os.environ) == [], "a pi stopped on purpose is not for --restore to bring back"


def test_a_pasted_draft_of_1_5_m_characters_left_at_ctrl_backslash_is_kept_whole(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """pideck in a terminal, 1.5 M characters pasted and Ctrl+\\: the holder has them all (the
    window exited before its frame was sent, or they were cut to 1,048,576 characters)."""
    pi = TerminalPi(pi_harness, tmp_path, holder_env)
    pasted = "".join(f"line {n:07d} of a long paste\n" for n in range(1_500_000 // 30))
    (tmp_path / "paste.txt").write_text(pasted)
    with TmuxPideck(pi, args=pi.args(), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready", timeout=60)
        term._tmux("load-buffer", str(tmp_path / "paste.txt"))
        term._tmux("paste-buffer", "-p", "-t", "t")
        term.wait(lambda: "[paste #1" in term.screen(), "the paste in the prompt", timeout=60)
        term.keys("C-\\")
        term.wait(lambda: "detached; 1 held pi goes on" in term.screen(), "the detach", timeout=60)
    assert _drafts(holder_env) == [pasted]


def test_a_window_pideck_attach_opened_resumes_with_the_held_pis_own_launch(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """pi held in another folder with an extension and a provider: the window `pideck attach`
    opens prints, at its quit, the resume command with pi's folder and flags, and saves them
    in its desk (it printed `pideck -- --session ID`, and --restore lost the extension)."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="an answer to resume"))
    pi = TerminalPi(pi_harness, tmp_path, holder_env)
    project = tmp_path / "project"
    project.mkdir()
    flags = (*pi_model_args(), "-e", str(UI_EVERYTHING))
    args = ("--pi", shlex.join(pi_harness.runtime.argv), "--cwd", str(project), "--", *flags)
    with TmuxPideck(pi, args=args, cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready", timeout=60)
        term.send("a question")
        term.wait(lambda: "an answer to resume" in term.screen(), "the answer", timeout=60)
        term.keys("C-\\")
        term.wait(lambda: "detached; 1 held pi goes on" in term.screen(), "the detach", timeout=30)
    with TmuxPideck(pi, args=("attach",), cwd=tmp_path, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "an answer to resume" in term.screen() and "● ready" in term.screen(), "attached", timeout=60)
        term.keys("C-c")
        term.keys("C-c")
        joined = lambda: term._tmux("capture-pane", "-p", "-J", "-t", "t").stdout  # noqa: E731
        term.wait(lambda: "To resume this session:" in joined(), "the resume command", timeout=30)
        command = joined().split("To resume this session:")[1].strip().splitlines()[0]
    assert f"--cwd {project} -- {shlex.join(flags)} --session " in command, command
    (desk, *_) = desks({"XDG_STATE_HOME": pi.env()["XDG_STATE_HOME"]})
    (saved,) = desk.sessions
    assert saved.cwd == str(project) and saved.pi_args[: len(flags)] == list(flags), saved


def test_two_terminals_on_one_pi_leave_both_drafts_to_pideck_attach(tmp_path: Path, pi_harness: PiHarness,
                                                                    holder_env: dict[str, str]) -> None:
    """"precious draft" typed in A, A's terminal killed; "draft in B" in B, Ctrl+\\: `pideck
    attach` has both in its prompt, B's first (it had B's only: A's was replaced)."""
    pi = TerminalPi(pi_harness, tmp_path, holder_env)
    with TmuxPideck(pi, args=pi.args(), cwd=tmp_path, env=pi.env()) as a:  # type: ignore[arg-type]
        a.wait(lambda: "● ready" in a.screen(), "A ready", timeout=60)
        with TmuxPideck(pi, args=("attach",), cwd=tmp_path, env=pi.env()) as b:  # type: ignore[arg-type]
            b.wait(lambda: "● ready" in b.screen(), "B attached", timeout=60)
            a.keys("-l", "precious draft")
            a.wait(lambda: "precious draft" in a.screen(), "A's draft")
            a.__exit__()  # (A's terminal killed: its hang-up)
            waited = time.monotonic()
            while "1 window" not in pi.pideck("ls").stdout:
                assert not out_of_time(waited, 30), "A did not leave"
                time.sleep(0.05)
            b.keys("-l", "draft in B")
            b.wait(lambda: "draft in B" in b.screen(), "B's draft")
            b.keys("C-\\")
            b.wait(lambda: "detached; 1 held pi goes on" in b.screen(), "B's detach", timeout=30)
    with TmuxPideck(pi, args=("attach",), cwd=tmp_path, env=pi.env()) as c:  # type: ignore[arg-type]
        c.wait(lambda: "● ready" in c.screen() and "precious draft" in c.screen() and "draft in B" in c.screen(),
               "both drafts in the prompt", timeout=60)
        screen = c.screen()
        assert "an older draft, left by another window" in screen and screen.index("draft in B") < screen.index(
            "precious draft"), screen


async def test_a_held_pi_quit_on_purpose_is_no_longer_left_held(tmp_path: Path, pi_harness: PiHarness,
                                                               holder_env: dict[str, str]) -> None:
    """Detached, then attached and quit (pi stopped on purpose): the desk left held goes, the
    quit's own desk stays."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="an answer"))
    config = replace(pi_harness.launch_config(session_dir=tmp_path / "sessions", env={
        "XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "a question")
        await wait_until(pilot, lambda: "an answer" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=60, what="the answer")
        app.desk.detach()
    save_held(app.desk.held_at_exit(), app.desk.held_stopped_at_exit(), parse_args([]), os.environ)
    assert [bool(session.held_number) for desk in desks(os.environ) for session in desk.sessions] == [True]
    ((launch, _),) = attach_launches(config, argparse.Namespace(attach=[]), holder_env)
    back = PideckApp(launch)
    async with back.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: back.desk.current.pi.ready and "an answer" in transcript_text(back), timeout=60,
                         what="attached")
        back.exit()
    save_sessions(back.desk.sessions_at_exit(), parse_args([]), os.environ)  # (as pideck does at its exit)
    save_held(back.desk.held_at_exit(), back.desk.held_stopped_at_exit(), parse_args([]), os.environ)
    assert [bool(session.held_number) for desk in desks(os.environ) for session in desk.sessions] == [False]
