"""pi on another host: `pideck --pi "ssh ... HOST <pi>"` against the test ssh server
(tests/remote/conftest.py). pi's RPC goes through ssh; what pideck would read from this
machine's disk for pi (the /resume picker, `@` completion, the folder a session records)
it does not read and says so; paths for pi (/export, /resume FILE) go as typed, for pi to
resolve there; images are read here and sent. ssh failing says why, with what to do."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SIZE, PiHarness, copy_session, quiesce, send, tiny_png, transcript_text, wait_until

from app.cli.pideck import parse_args
from app.pi.launch import LaunchConfig, build_launch
from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from widgets.prompt.attachments import AttachmentBar
from widgets.prompt.completion import CompletionMenu
from widgets.prompt.editor import PromptEditor
from widgets.screens.session_picker import SessionPicker
from widgets.screens.startup_error import StartupErrorScreen

pytestmark = pytest.mark.pi

HOST = "127.0.0.1"


def remote_pi_command(ssh: list[str], harness: PiHarness) -> str:
    """`--pi`: ssh, then the harness's pi run in its working directory over there."""
    env = ["env", f"PI_CODING_AGENT_DIR={harness.agent_dir}", "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1"]
    return shlex.join([*ssh, f"cd {shlex.quote(str(harness.cwd))} && exec {shlex.join([*env, *harness.runtime.argv])}"])


def launch(here: Path, pi: str, *pi_args: str) -> LaunchConfig:
    """pideck's launch as the command line builds it, started in `here`."""
    return build_launch(parse_args(["--pi", pi, "--cwd", str(here), "--protocol-log", str(here / "protocol.log"),
                                    "--", *pi_args]))  # fmt: skip


def notes(app: PideckApp) -> str:
    return "\n".join(str(n.message) for n in app.toasts.center.entries)


async def completions(pilot: Any, text: str) -> list[str]:
    editor = pilot.app.query_one(PromptEditor)
    editor.load("")
    editor.insert(text)
    await pilot.pause()  # the editor's Changed message fills the menu
    labels = [candidate.label for candidate in pilot.app.query_one(CompletionMenu).candidates]
    editor.load("")
    return labels


async def test_pi_over_ssh_runs_and_nothing_reads_this_machines_disk_for_it(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path
) -> None:
    remote_pi.reset_model()
    here = tmp_path / "here"  # pideck's folder, which pi over there does not see
    here.mkdir()
    (here / "only_here.txt").write_text("here\n")
    (here / "picture.png").write_bytes(tiny_png())
    elsewhere = tmp_path / "elsewhere"  # where a session over there was recorded
    elsewhere.mkdir()
    sessions = tmp_path / "sessions"
    recorded = copy_session("plain.jsonl", sessions / "other", elsewhere)
    config = launch(here, remote_pi_command(sshd.ssh(), remote_pi), *pi_model_args(), "--session-dir", str(sessions))
    assert config.remote == HOST

    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=60,
                         what="pi started over ssh")  # fmt: skip
        remote_pi.model.queue(Reply(text="Answered from over there."))
        await send(pilot, "hello over ssh")
        await wait_until(pilot, lambda: "Answered from over there." in transcript_text(app), timeout=30, what="the answer")

        assert await completions(pilot, "@only_") == [], "no files of this machine offered"
        assert "@ completion reads this machine's files, but pi runs on 127.0.0.1" in notes(app)

        await send(pilot, "/resume")
        await wait_until(pilot, lambda: "The /resume picker reads this machine's files, but pi runs on 127.0.0.1"
                         in notes(app), what="/resume says why it has no picker")  # fmt: skip
        assert not isinstance(app.screen, SessionPicker)
        await send(pilot, f"/resume {recorded}")  # a path over there, as typed
        await wait_until(pilot, lambda: "The build uses make" in transcript_text(app), timeout=30,
                         what="the session resumed over there")  # fmt: skip
        assert app.desk.current.pi.cwd == here, "the session file's folder is over there, not a folder here"

        await send(pilot, "/export saved.html")
        await wait_until(pilot, lambda: "Exported on 127.0.0.1 to" in notes(app), timeout=30, what="/export")
        assert (remote_pi.cwd / "saved.html").is_file(), "pi wrote it in its own folder"
        assert not (here / "saved.html").exists()
        (remote_pi.cwd / "saved.html").unlink()

        app.query_one(PromptEditor).insert("look at @picture.png ")  # read here, sent as data
        await wait_until(pilot, lambda: app.query_one(AttachmentBar).attachments, what="the image attached")
        await quiesce(pilot)


@pytest.mark.parametrize("failure", ["unknown host name", "unknown host key", "refused key"])
async def test_ssh_that_cannot_connect_says_why_and_what_to_do(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path, failure: str
) -> None:
    ssh = sshd.ssh()
    if failure == "unknown host name":
        ssh[ssh.index(HOST)] = "no-such-host.invalid"
        expected = "Could not resolve hostname no-such-host.invalid"
    elif failure == "unknown host key":
        (tmp_path / "known_hosts").write_text("")
        ssh[ssh.index("StrictHostKeyChecking=no")] = "StrictHostKeyChecking=yes"
        ssh[ssh.index("UserKnownHostsFile=/dev/null")] = f"UserKnownHostsFile={tmp_path / 'known_hosts'}"
        expected = "Host key verification failed"
    else:
        ssh = sshd.ssh(key=sshd.stray_key)
        expected = "Permission denied (publickey)"
    app = PideckApp(launch(tmp_path, remote_pi_command(ssh, remote_pi), *pi_model_args(), "--no-session"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_until(pilot, lambda: isinstance(app.screen, StartupErrorScreen) and app.screen.query("#startup-stderr")
                                  and app.screen, timeout=60, what="the start-up error composed")  # fmt: skip
        assert expected in str(screen.query_one("#startup-stderr").render())
        hints = str(screen.query_one("#startup-hints").render())
        assert "pi runs on" in hints and "ssh cannot ask anything here" in hints
        await pilot.press("q")
        await wait_until(pilot, lambda: app.return_value == 1, what="pideck to leave with status 1")


async def test_a_connection_dropped_mid_stream_is_reported_and_restarts_on_the_session(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path
) -> None:
    remote_pi.reset_model()
    sessions = tmp_path / "sessions"
    config = launch(tmp_path, remote_pi_command(sshd.ssh(), remote_pi), *pi_model_args(), "--session-dir", str(sessions))
    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=60,
                         what="pi started over ssh")  # fmt: skip
        remote_pi.model.queue(Reply(text="The first answer is kept."),
                              Reply(text=" ".join(f"word{n}" for n in range(400)), chunk_chars=6, delay=0.1))
        await send(pilot, "first question")
        await wait_until(pilot, lambda: "The first answer is kept." in transcript_text(app) and not app.desk.current.pi.model.running,
                         timeout=30, what="the first answer")  # fmt: skip
        await send(pilot, "second question")
        await wait_until(pilot, lambda: "word3" in transcript_text(app), timeout=30, what="the second answer streaming")
        app.query_one(PromptEditor).insert("a draft in the prompt")

        sshd.drop_connections()
        await wait_until(pilot, lambda: "pi exited (code 255)" in transcript_text(app), timeout=30,
                         what="the drop reported")  # fmt: skip
        await pilot.press("ctrl+r")  # the same ssh command, on the session pi had saved
        await wait_until(pilot, lambda: app.desk.current.pi.client.running and app.desk.current.pi.ready and not app.desk.current.pi.model.running
                         and not app.desk.current.pi.model.life.restarting and "The first answer is kept." in transcript_text(app),
                         timeout=60,
                         what="pi back over ssh on the session")  # fmt: skip
        assert app.query_one(PromptEditor).text == "a draft in the prompt"
        remote_pi.model.queue(Reply(text="Still talking over ssh."))
        await send(pilot, "third question")
        await wait_until(pilot, lambda: "Still talking over ssh." in transcript_text(app), timeout=30,
                         what="a prompt after the restart")  # fmt: skip
        await quiesce(pilot)


async def test_a_second_session_opened_on_another_host_streams_beside_the_local_one(
    sshd: Any, remote_pi: PiHarness, tmp_path: Path
) -> None:
    """Several sessions: one pi here, one over ssh (`/open --pi 'ssh …'`), each its own."""
    from protocol.state.desk import Mark
    from widgets.panes.sessions_row import SessionsRow

    def reply_to(body: dict[str, Any]) -> Reply:  # (both pis share the model: each prompt its answer)
        asked = str([m for m in body.get("messages", []) if m.get("role") == "user"][-1]["content"])
        if "over ssh" in asked:
            return Reply(text="Answered from over there.", chunk_chars=2, delay=0.1)
        return Reply(text="Answered here.")

    remote_pi.reset_model()
    remote_pi.model.responder = reply_to
    app = PideckApp(remote_pi.launch_config())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.commands, timeout=60, what="the local pi")
        pi = remote_pi_command(sshd.ssh(), remote_pi)
        await send(pilot, f"/open --pi {shlex.quote(pi)} -- {shlex.join(pi_model_args())} --no-session")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.slots[1].pi.ready, timeout=60,
                         what="the session over ssh")
        far = app.desk.slots[1]
        assert far.config.remote == HOST and "127.0.0.1:" in str(app.screen.query_one(SessionsRow).render())
        app.desk.current.main.query_one(PromptEditor).load("hello over ssh")
        await pilot.pause()
        await pilot.press("enter", "alt+1")  # (in one burst: shown at its end, the far run would not be unseen)
        await send(pilot, "hello here")
        await wait_until(pilot, lambda: "Answered here." in transcript_text(app), timeout=30, what="the local answer")
        await wait_until(pilot, lambda: far.mark is Mark.DONE, timeout=30, what="the far run done unseen")
        await pilot.press("alt+2")
        await wait_until(pilot, lambda: "Answered from over there." in transcript_text(app), timeout=30,
                         what="its answer, once shown")
        assert "Answered here." not in transcript_text(app)
        await quiesce(pilot)
    remote_pi.reset_model()
