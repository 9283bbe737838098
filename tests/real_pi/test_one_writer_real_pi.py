"""One pi per session file (protocol/hold/session_claims.py, app/pi/one_writer.py): wherever
pideck starts pi on a session file another pi has open, the new pi is closed before it
writes, and the window shows the held pi that has the file (attached), or says in one line
why it cannot. Real pi, the scripted model; each test has a holder folder of its own."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.load import out_of_time
from tests.pi_harness import (SIZE, HarnessPi, PiHarness, TmuxPideck, kill_group, notes, send, started, transcript_text,
                              wait_until)

from app.pi.launch import LaunchConfig
from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from app.view.app import ViewApp
from protocol.files.view_client import ViewClient
from protocol.hold import session_claims
from protocol.hold.ask import ask, held
from protocol.hold.held_link import held_client
from protocol.hold.place import hold_dir
from protocol.wire.commands import GetState
from widgets.screens.session_picker import SessionPicker

pytestmark = pytest.mark.pi



def _config(pi_harness: PiHarness, holder_env: dict[str, str], sessions: Path, *pi_args: str, hold: bool = True) -> Any:
    config = pi_harness.launch_config(session_dir=sessions, extra_args=pi_args,
                                      env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]})
    return replace(config, hold=hold, pi_args=tuple(pi_args))


def _user_messages(session_file: str) -> list[tuple[str, str | None]]:
    """(text, parent id) of each user message in the file."""
    found = []
    for line in Path(session_file).read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
            found.append((text, entry.get("parentId")))
    return found


def _unwrapped(text: str) -> str:
    """`text` without its white space (a terminal wraps a long line where the width falls)."""
    return "".join(text.split())


async def _held_run_left(pi_harness: PiHarness, holder_env: dict[str, str], sessions: Path) -> dict[str, Any]:
    """A window sends a prompt, gets its reply, and goes (its terminal closed): the held pi
    that goes on, as `pideck ls` lists it."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="the held reply"))
    first = PideckApp(_config(pi_harness, holder_env, sessions))
    async with first.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "first prompt")
        await wait_until(pilot, lambda: "the held reply" in transcript_text(first) and not first.desk.current.pi.model.running,
                         timeout=30, what="the reply")
        session_file = first.desk.current.pi.model.state.session_file
        first._hang_up()
    (pi,) = await _listed(holder_env, lambda pis: len(pis) == 1 and pis[0]["windows"] == 0, "the run held, no window")
    return {**pi, "session_file": session_file}


def _pis_started(env: dict[str, str]) -> int:
    """How many pis the holder has started (its log names each)."""
    log = hold_dir(env) / "holder.log"
    return log.read_text().count(" started (pid ") if log.exists() else 0


async def _listed(env: dict[str, str], condition: Any, what: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The held pis once `condition` holds of them (the holder reads a window's leaving in its own time)."""
    started = time.monotonic()
    while not condition(pis := held(env)):
        assert not out_of_time(started, timeout), f"timed out waiting for {what}: {pis}"
        await asyncio.sleep(0.05)
    return pis


@pytest.mark.parametrize("hold", [True, False], ids=["held", "no-hold"])
async def test_continue_on_a_held_session_attaches_to_the_held_pi(tmp_path: Path, pi_harness: PiHarness,
                                                                  holder_env: dict[str, str], hold: bool) -> None:
    """`pideck -- --continue` in the folder of a held run (held or --no-hold) shows that pi,
    attached, where it started a second pi on the file: one pi is held, the held run's
    reply is in the window, and the window's prompt follows it in the file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    pi_harness.model.queue(Reply(text="the second reply"))
    app = PideckApp(_config(pi_harness, holder_env, sessions, "--continue", hold=hold))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await _listed(holder_env, lambda pis: [(p["number"], p["windows"]) for p in pis] == [(pi["number"], 1)],
                      "one pi held, this window's (the one it started closed)")
        assert "the held reply" in transcript_text(app)
        assert any(f"Held pi {pi['number']} had this session open already" in note for note in notes(app)), notes(app)
        assert held(holder_env)[0]["session_file"] == pi["session_file"]
        await send(pilot, "second prompt")
        await wait_until(pilot, lambda: "the second reply" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the second reply")
        app._hang_up()
    messages = _user_messages(pi["session_file"])
    assert [text for text, _ in messages] == ["first prompt", "second prompt"]
    assert len(list(sessions.glob("*.jsonl"))) == 1


async def test_a_session_another_windows_own_pi_has_is_refused(tmp_path: Path, pi_harness: PiHarness,
                                                              holder_env: dict[str, str]) -> None:
    """A session file another pideck's own pi (--no-hold) has open: `--session FILE` says so
    in one line (in the window, in the terminal when pideck is started so), before any pi is
    started on it; the file is unchanged."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    ask({"op": "stop", "all": True}, holder_env, timeout=30.0)
    session_file = pi["session_file"]
    before = Path(session_file).read_bytes()
    own = HarnessPi(pi_harness, tmp_path)
    args = ("--no-hold", "--pi", shlex.join(pi_harness.runtime.argv), "--", *pi_model_args(), "--session", session_file)
    with TmuxPideck(own, args=args, cwd=tmp_path, env=own.env() | {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "the other pideck ready", timeout=60)
        other = session_claims.owner(session_file, None)
        assert other is not None and isinstance(other.get("pid"), int), other
        app = PideckApp(_config(pi_harness, holder_env, sessions, "--session", session_file))
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.desk.current.pi.model.life.startup_error is not None, timeout=30,
                             what="the refusal")
            error = app.desk.current.pi.model.life.startup_error
            assert f"is open in another pideck (pid {other['pid']}), whose pi is its own (--no-hold)" in error, error
            started_here = _pis_started(holder_env)
            assert started_here == 1, "a pi was started on the file (the held run's was the only one)"
            app.exit()
        env = own.env() | {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"], "XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"],
                           "PIDECK_HOLD": ""}
        with TmuxPideck(own, args=args[1:], cwd=tmp_path, env=env, typed=True) as typed:  # type: ignore[arg-type]
            said = f"pideck: {Path(session_file).name} is open in another pideck (pid {other['pid']}), whose pi is its own"
            typed.wait(lambda: _unwrapped(said) in _unwrapped(typed.screen()), "pideck's refusal", timeout=60)
        await _listed(holder_env, lambda pis: pis == [], "no pi held (the one started closed)")
        assert "● ready" in term.screen()
    assert Path(session_file).read_bytes() == before


async def test_open_of_a_session_this_window_shows_shows_that_session(tmp_path: Path, pi_harness: PiHarness,
                                                                     holder_env: dict[str, str]) -> None:
    """/open (or the picker's Alt+Enter) of the session this window shows: that session is
    shown, and no second pi is started on its file (one was, and closed once it named it)."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="the only reply"))
    app = PideckApp(_config(pi_harness, holder_env, tmp_path / "sessions"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "a prompt")
        await wait_until(pilot, lambda: "the only reply" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the reply")
        session_file = app.desk.current.pi.model.state.session_file
        opened = app.desk.open(pi_harness.cwd, session=session_file)
        await wait_until(pilot, lambda: opened not in app.desk.slots and any("open here already" in n for n in notes(app)),
                         timeout=30, what="the session opened again closed, the first shown")
        assert app.desk.slots == [app.desk.current] and app.desk.current.pi.model.state.session_file == session_file
        await wait_until(pilot, lambda: len(app.desk.sessions_at_exit()) == 1, what="the session saved and resumed once")
        await _listed(holder_env, lambda pis: len(pis) == 1, "one pi held")
        started_here = _pis_started(holder_env)
        assert started_here == 1, "a second pi was started on the file"
        app._hang_up()
    assert [text for text, _ in _user_messages(session_file)] == ["a prompt"]


async def test_open_with_the_session_of_a_held_pi_attaches_to_it(tmp_path: Path, pi_harness: PiHarness,
                                                                  holder_env: dict[str, str]) -> None:
    """`/open -- --session FILE`, FILE open in a held pi with no window: the new session shows
    that pi, attached, and no pi is started on the file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    app = PideckApp(_config(pi_harness, holder_env, sessions))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, f"/open -- --session {shlex.quote(pi['session_file'])}")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.current is app.desk.slots[1]
                         and app.desk.current.pi.ready and "the held reply" in transcript_text(app),
                         timeout=30, what="the held session opened, attached")
        await _listed(holder_env, lambda pis: len(pis) == 2 and {p["number"]: p["windows"] for p in pis}[pi["number"]] == 1,
                      "this window's own pi and the held one, attached")
        started_here = _pis_started(holder_env)
        assert started_here == 2, "a pi was started on the held session's file"
        app._hang_up()


async def test_resume_of_a_held_session_opens_it_beside_attached(tmp_path: Path, pi_harness: PiHarness,
                                                                holder_env: dict[str, str]) -> None:
    """/resume FILE of a session a held pi has open: this window's pi is not switched to it
    (two pis would write it); it opens beside, attached to the held pi, and no other pi is
    started on the file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    app = PideckApp(_config(pi_harness, holder_env, sessions))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, f"/resume {pi['session_file']}")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.current is app.desk.slots[1]
                         and app.desk.current.pi.ready and "the held reply" in transcript_text(app),
                         timeout=30, what="the held session beside, attached")
        assert app.desk.slots[0].pi.model.state.session_file != pi["session_file"]
        await _listed(holder_env, lambda pis: len(pis) == 2 and {p["number"]: p["windows"] for p in pis}[pi["number"]] == 1,
                      "this window's own pi and the held one, attached")
        started_here = _pis_started(holder_env)
        assert started_here == 2, "a pi was started on the held session's file"
        app._hang_up()


async def test_the_resume_lists_alt_enter_on_a_held_session_attaches_to_it(tmp_path: Path, pi_harness: PiHarness,
                                                                          holder_env: dict[str, str]) -> None:
    """/resume's list, Alt+Enter (in a session of its own) on a session a held pi has open: it
    opens beside, attached to that pi, and no pi is started on its file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    app = PideckApp(_config(pi_harness, holder_env, sessions))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/resume")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen, what="the list")
        await wait_until(pilot, lambda: [str(s.path) for s in picker.sessions] == [pi["session_file"]],
                         what="the held session listed")
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.current is app.desk.slots[1]
                         and app.desk.current.pi.ready and "the held reply" in transcript_text(app),
                         timeout=30, what="the held session beside, attached")
        await _listed(holder_env, lambda pis: len(pis) == 2 and {p["number"]: p["windows"] for p in pis}[pi["number"]] == 1,
                      "this window's own pi and the held one, attached")
        started_here = _pis_started(holder_env)
        assert started_here == 2, "a pi was started on the held session's file"
        app._hang_up()


async def test_a_restored_session_a_held_pi_has_attaches_to_it(tmp_path: Path, pi_harness: PiHarness,
                                                               holder_env: dict[str, str]) -> None:
    """--restore of a desk saved before its session was held: the restored session shows the
    held pi, attached, and no pi is started on its file (`pideck ls` listed two pis on one
    file; then one was started, and closed once it named the file)."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    first = _config(pi_harness, holder_env, sessions)
    restored = _config(pi_harness, holder_env, sessions, "--session", pi["session_file"])
    app = PideckApp(first, restore=[restored])
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await wait_until(pilot, lambda: app.desk.slots[1].pi.ready, timeout=30, what="the restored session")
        await _listed(holder_env, lambda pis: len(pis) == 2 and {p["number"]: p["windows"] for p in pis}[pi["number"]] == 1,
                      "the first session's pi and the held one, attached")
        started_here = _pis_started(holder_env)
        assert started_here == 2, "a pi was started on the held session's file"
        app.desk.show(2)
        await wait_until(pilot, lambda: app.desk.slots[1].main.composed.is_set(), what="the restored session shown")
        await wait_until(pilot, lambda: "the held reply" in transcript_text(app), what="the held run's reply")
        app._hang_up()


@pytest.mark.parametrize("hold", [False, True], ids=["no-hold", "held"])
async def test_a_restart_on_a_session_a_held_pi_has_now_attaches_to_it(tmp_path: Path, pi_harness: PiHarness,
                                                                       holder_env: dict[str, str], hold: bool) -> None:
    """Ctrl+R after pi died, when a held pi has opened its session file meanwhile: the window
    shows the held pi, attached, where it started a second pi on the file."""
    sessions = tmp_path / "sessions"
    pi = await _held_run_left(pi_harness, holder_env, sessions)
    ask({"op": "stop", "all": True}, holder_env, timeout=30.0)
    await _listed(holder_env, lambda pis: pis == [], "the held run stopped")
    session_file = pi["session_file"]
    app = PideckApp(_config(pi_harness, holder_env, sessions, "--session", session_file, hold=hold))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        claimed = session_claims.owner(session_file, None)
        assert claimed is not None and claimed["pi_pid"] == app.desk.current.pi.client.link.pid
        kill_group(app.desk.current.pi.client)
        await wait_until(pilot, lambda: app.desk.current.main.check_action("restart_pi", ()) is True
                         and session_claims.owner(session_file, None) is None, timeout=30,
                         what="the crash, and the file free")
        other = held_client(pi_harness.make_argv(session_dir=sessions, extra_args=["--session", session_file]),
                           holder_env=holder_env, env=pi_harness.env, cwd=pi_harness.cwd)
        await other.start()
        await other.call(GetState(), timeout=30)
        other.detach()
        (now,) = held(holder_env)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "pi shown again" in transcript_text(app) and app.desk.current.pi.client.running,
                         timeout=30, what="the held pi, attached")
        assert [(p["number"], p["windows"]) for p in held(holder_env)] == [(now["number"], 1)]
        app._hang_up()


async def test_pideck_view_of_a_held_session_file_reads_it_and_claims_nothing(tmp_path: Path, pi_harness: PiHarness,
                                                                             holder_env: dict[str, str]) -> None:
    """`pideck view FILE` reads a session file a held pi has open: it writes nothing, so it is
    shown as read, not taken for a second pi and turned into an attach."""
    pi = await _held_run_left(pi_harness, holder_env, tmp_path / "sessions")
    path = Path(pi["session_file"])
    config = LaunchConfig(argv=("pideck", "view"), env=dict(os.environ), cwd=tmp_path, demo=False,
                          protocol_log=tmp_path / "protocol.log")
    app = ViewApp(config, ViewClient(str(path)), path=path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and "the held reply" in transcript_text(app), timeout=60,
                         what="the file shown")
        assert [p["windows"] for p in held(holder_env)] == [0]
        assert not any("Held pi" in note for note in notes(app))


async def test_pideck_session_file_a_held_pi_has_attaches_without_starting_pi(tmp_path: Path, pi_harness: PiHarness,
                                                                       holder_env: dict[str, str]) -> None:
    """`pideck -- --session FILE` in a terminal, FILE open in a held pi: pideck attaches to it
    and says so, and no other pi is started (the holder's log names one pi only)."""
    pi = await _held_run_left(pi_harness, holder_env, tmp_path / "sessions")
    user = HarnessPi(pi_harness, tmp_path)
    env = user.env() | {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"], "XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"],
                        "PIDECK_HOLD": ""}
    args = ("--pi", shlex.join(pi_harness.runtime.argv), "--", *pi_model_args(), "--session", pi["session_file"])
    with TmuxPideck(user, args=args, cwd=tmp_path, env=env) as term:  # type: ignore[arg-type]
        term.wait(lambda: "the held reply" in term.screen() and "● ready" in term.screen(), "the held pi", timeout=60)
        term.wait(lambda: "brought back" in term.screen(), "that it attached")
        assert [(p["number"], p["windows"]) for p in held(holder_env)] == [(pi["number"], 1)]
    log = (hold_dir(holder_env) / "holder.log").read_text()
    assert log.count(" started (pid ") == 1, log


async def test_a_held_pi_that_switched_session_leaves_the_old_file_free(tmp_path: Path, pi_harness: PiHarness,
                                                                       holder_env: dict[str, str]) -> None:
    """/new in a held pi: its claim moves to the new session's file, and the old one is free
    (a pideck --session OLD then starts its own pi on it, not an attach to the wrong one)."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="a reply"))
    app = PideckApp(_config(pi_harness, holder_env, tmp_path / "sessions"))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "a prompt")
        await wait_until(pilot, lambda: "a reply" in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the reply")
        old = app.desk.current.pi.model.state.session_file
        assert session_claims.owner(old, None)["number"] == held(holder_env)[0]["number"]
        await send(pilot, "/new")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state.session_file != old, timeout=30, what="the new session")
        new = app.desk.current.pi.model.state.session_file
        await wait_until(pilot, lambda: held(holder_env)[0]["session_file"] == new, timeout=30, what="the claim moved")
        assert session_claims.owner(old, None) is None
        app._hang_up()
