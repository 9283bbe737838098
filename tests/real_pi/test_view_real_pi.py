"""`pideck view` and `--record`/`pideck replay` against the real pi 1.6.0 on the scripted
model: a live JSON-mode pipe (`pi -p --mode json TASK | pideck view -`), and a recorded
session played back against the live run it recorded."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import os
import re
from pathlib import Path

import pytest

from tests.pi_harness import PiHarness, SIZE, quiesce, send, started, stats_text, tool_run, transcript_text, wait_until

from app.pideck_app import PideckApp
from app.view.replay import ReplayApp
from app.runtime import PiRuntime
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply, ToolCallSpec
from app.view.app import ViewApp
from protocol.wire.recording import Recorder, read_recording
from protocol.wire.redact import Redactor
from protocol.files.view_client import ReplayClient, ViewClient


JSON_RUNS = Path(__file__).resolve().parents[1] / "fixtures" / "json_mode"


def view_config(tmp_path: Path):  # type: ignore[no-untyped-def]
    from app.pi.launch import LaunchConfig

    return LaunchConfig(argv=("pideck", "view"), env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "HOME": str(tmp_path)},
                        cwd=tmp_path, demo=False, protocol_log=tmp_path / "protocol.log")


def tool_replies() -> tuple[Reply, ...]:
    bash = "for i in 1 2 3; do echo \"step $i\"; sleep 0.3; done"
    return (
        Reply(reasoning="I run the loop first.", text="Running it.",
              tool_calls=(ToolCallSpec("bash", {"command": bash}, id="call_loop"),), chunk_chars=6, delay=0.02),
        Reply(text="The loop printed **three** steps.", chunk_chars=4, delay=0.02),
    )


async def test_a_live_json_mode_pipe_streams_and_settles(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(*tool_replies())
    read_end, write_end = os.pipe()
    argv = [*pi_harness.runtime.argv, "-p", "--mode", "json", *pi_model_args(), "--no-session", "Run the loop."]
    pi = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                              stderr=asyncio.subprocess.DEVNULL, env=pi_harness.env, cwd=pi_harness.cwd)
    written = bytearray()

    async def tee() -> None:  # pi | pideck view -, keeping what went through
        assert pi.stdout is not None
        while chunk := await pi.stdout.read(65536):
            written.extend(chunk)
            os.write(write_end, chunk)
        os.close(write_end)

    app = ViewApp(view_config(tmp_path), ViewClient("stdin", fd=read_end))
    try:
        async with app.run_test(size=SIZE) as pilot:
            copying = asyncio.create_task(tee())
            await wait_until(pilot, lambda: app.desk.current.pi.model.running and app.desk.current.pi.model.tools, timeout=30, what="the tool running")
            await wait_until(pilot, lambda: "step 1" in transcript_text(app), timeout=30, what="its output streaming")
            assert not tool_run(app.desk.current.pi.model, "call_loop").done  # seen while it ran
            await wait_until(pilot, lambda: "run settled" in str(app.desk.current.main.status.render()), timeout=30, what="the end")
            await copying
            assert await pi.wait() == 0
            live = transcript_text(app)
            assert "The loop printed **three** steps." in live and "step 3" in live
            assert "ended    stop" in stats_text(app) and "scripted/scripted-demo" in stats_text(app)
        saved = tmp_path / "run.jsonl"
        saved.write_bytes(bytes(written))
        again = ViewApp(view_config(tmp_path), ViewClient(str(saved)), path=saved)
        async with again.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: again.desk.current.pi.ready and again.desk.current.pi.pump.idle, what="the file shown")
            await pilot.pause()
            assert transcript_text(again) == live  # the same run, read whole, draws the same
    finally:
        if pi.returncode is None:
            pi.kill()
            await pi.wait()


async def test_a_recording_replays_as_the_live_session_showed(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    pi_harness.model.queue(*tool_replies())
    launch = pi_harness.launch_config()
    recorder = Recorder.create(tmp_path / "bug.jsonl", launch.argv, Redactor.from_env(launch.env), str(launch.cwd))
    app = PideckApp(dataclasses.replace(launch, recorder=recorder))
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "Run the loop.")
        await wait_until(pilot, lambda: "three" in transcript_text(app) and not app.desk.current.pi.model.running, timeout=30,
                         what="the run")
        await wait_until(pilot, lambda: app.desk.current.pi.pump.idle)
        await quiesce(pilot)
        live = transcript_text(app)
        live_stats = stats_text(app)
    recorder.close()
    assert (tmp_path / "bug.jsonl").stat().st_mode & 0o777 == 0o600
    header, steps = read_recording(tmp_path / "bug.jsonl")
    replay = ReplayApp(view_config(tmp_path), ReplayClient("bug.jsonl", steps, speed=0), cwd=header["cwd"])
    async with replay.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: replay.view.ended is not None and replay.desk.current.pi.pump.idle, timeout=30, what="the replay")
        await pilot.pause()
        assert transcript_text(replay) == live
        shown = stats_text(replay)
        for line in live_stats.splitlines():
            if line.startswith(("model", "tokens", "cost")):
                assert line in shown


@pytest.mark.parametrize("run", ["json_tools.jsonl", "json_tools.session.jsonl"])
async def test_export_writes_pis_html_of_the_run(pi_runtime: PiRuntime, tmp_path: Path, run: str) -> None:
    path = JSON_RUNS / run
    app = ViewApp(view_config(tmp_path), ViewClient(str(path)), path=path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.pump.idle, what="the file shown")
        app.desk.current.main.editor.load(f"/export {tmp_path / 'run.html'}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("Exported to" in n.message for n in app.toasts.center.entries),
                         timeout=60, what="the export")
    html = (tmp_path / "run.html").read_text()
    data = re.search(r'id="session-data" type="application/json">([^<]+)<', html)
    assert data is not None, "pi's exporter embeds the session"
    session = base64.b64decode(data.group(1)).decode()
    assert "Fix the add function in calc.py." in session and "now **adds**" in session
