"""`pideck view` (app/view_app.py): a JSON-mode run or a session file shown read-only, a
stream followed live, and a recording played back; no pi child in any of them."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.pi_harness import SIZE, stats_text, transcript_text, type_text, wait_until

from app.pi.launch import LaunchConfig
from app.replay_app import ReplayApp
from app.view_app import ViewApp
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.recording import Recorder, read_recording
from protocol.wire.redact import Redactor
from protocol.files.view_client import ReplayClient, ViewClient
from widgets.message_views import ToolCallBlock

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JSON_RUNS = FIXTURES / "json_mode"


def config(tmp_path: Path) -> LaunchConfig:
    return LaunchConfig(argv=("pideck", "view"), env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "HOME": str(tmp_path)},
                        cwd=tmp_path, demo=False, protocol_log=tmp_path / "protocol.log")


def view(tmp_path: Path, path: Path) -> ViewApp:
    return ViewApp(config(tmp_path), ViewClient(str(path)), path=path)


async def opened(pilot, app: ViewApp) -> None:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: app._session_ready and app.pump.idle, what="the file shown")
    await pilot.pause()


async def test_a_json_mode_run_is_shown_with_its_tools_and_outcome(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        text = transcript_text(app)
        assert "Fix the add function in calc.py." in text and "now **adds**" in text
        assert {run.name for run in app.session.tool_runs()} == {"bash", "read", "edit"}
        assert len(app.query(ToolCallBlock)) == 3  # drawn by kind, as live
        stats = stats_text(app)
        assert "scripted/scripted-demo" in stats and "ended    stop" in stats and "↑360" in stats
        assert "read-only view of" in str(app.main.status.render())
        assert app.session.state is not None and app.session.state.session_id.startswith("01a23373")


async def test_a_failed_model_call_says_so_in_the_stats(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_error.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert "ended    error: 401" in stats_text(app)


async def test_a_prompt_or_a_command_that_needs_pi_says_it_is_a_read_only_view(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        await type_text(pilot, "go on please")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "read-only view" in transcript_text(app), what="the refusal")
        assert app.main.editor.text == "go on please"  # what was typed is kept
        await type_text(pilot, "/model")  # (appended to the kept text: clear it first)
        app.main.editor.load("/model")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("/model cannot run here" in n.message for n in app.toasts.center.entries),
                         what="the /model refusal")


async def test_copy_takes_the_last_answer_from_the_file(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        app.main.editor.load("/copy")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.clipboard, what="the copy")
        assert app.clipboard.startswith("## Fixed")


async def test_a_file_that_is_not_pis_says_why_and_nothing_hangs(tmp_path: Path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"name": "x"}\n')
    app = view(tmp_path, bad)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app._exit_status == 1, what="the error screen")
        await pilot.pause()
        assert "not pi's JSON-mode output" in " ".join(str(w.render()) for w in app.screen.query("Static"))


async def test_a_stream_is_followed_and_says_when_its_writer_went_away(tmp_path: Path) -> None:
    lines = (JSON_RUNS / "json_tools.jsonl").read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"tool_execution_start"' in line)
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app._session_ready, what="ready")
        os.write(write_end, b"".join(lines[:cut]))
        await wait_until(pilot, lambda: "Let me look at the project." in transcript_text(app), what="the first reply")
        await wait_until(pilot, lambda: "ended    running" in stats_text(app), what="the stats")
        assert app.session.running and "scripted/scripted-demo" in stats_text(app)
        os.write(write_end, b"".join(lines[cut : cut + 3]))
        await wait_until(pilot, lambda: app.session.tools, what="a tool starting")
        os.close(write_end)  # pi killed mid-run
        await wait_until(pilot, lambda: "went away before the run settled" in transcript_text(app), what="the banner")
        assert not app.session.running and "writer went away" in str(app.main.status.render())
        assert "ended    cut short" in stats_text(app) or "the writer went away" in stats_text(app)


async def test_a_stream_that_settles_says_so(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app._session_ready, what="ready")
        os.write(write_end, (JSON_RUNS / "json_retry.jsonl").read_bytes())
        await wait_until(pilot, lambda: "Answer after one retry." in transcript_text(app), what="the answer")
        os.close(write_end)
        await wait_until(pilot, lambda: "run settled" in str(app.main.status.render()), what="settled")
        assert "ended    stop" in stats_text(app) and "Retried once" in transcript_text(app)


async def test_a_recording_plays_back_as_fast_as_possible(tmp_path: Path) -> None:
    """A recording made of a JSON-mode run's lines, as an RPC session's would be."""
    recorder = Recorder.create(tmp_path / "rec.jsonl", ["pi"], Redactor([]), cwd="/tmp/pideck-fixture-json/json_tools/project")
    for line in (JSON_RUNS / "json_tools.jsonl").read_bytes().splitlines()[1:]:
        recorder.read(line)
    recorder.exited(0)
    recorder.close()
    header, steps = read_recording(tmp_path / "rec.jsonl")
    app = ReplayApp(config(tmp_path), ReplayClient("rec.jsonl", steps, speed=0), cwd=header["cwd"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "finished" in str(app.main.status.render()), what="the end of the replay")
        await wait_until(pilot, lambda: app.pump.idle)
        await pilot.pause()
        assert "now **adds**" in transcript_text(app)
        assert app.session.unknown_records == 0 and not app.session.running


async def test_a_step_that_cannot_be_played_is_skipped_and_said_and_the_replay_goes_on(tmp_path: Path) -> None:
    lines = (JSON_RUNS / "json_tools.jsonl").read_bytes().splitlines()[1:]
    recorder = Recorder.create(tmp_path / "rec.jsonl", ["pi"], Redactor([]))
    for line in lines[:5]:
        recorder.read(line)
    recorder.close()
    with (tmp_path / "rec.jsonl").open("a") as out:
        out.write('{"t": ' + "4" * 400 + ', "in": "{}"}\n')  # float() of it: OverflowError
    recorder = Recorder.create(tmp_path / "more.jsonl", ["pi"], Redactor([]))
    for line in lines[5:]:
        recorder.read(line)
    recorder.close()
    with (tmp_path / "rec.jsonl").open("a") as out:
        out.writelines((tmp_path / "more.jsonl").read_text().splitlines(keepends=True)[1:])
    _, steps = read_recording(tmp_path / "rec.jsonl")
    app = ReplayApp(config(tmp_path), ReplayClient("rec.jsonl", steps, speed=0, protocol_log=ProtocolLog(tmp_path / "p.log")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "finished" in str(app.main.status.render()), what="the end of the replay")
        await wait_until(pilot, lambda: app.pump.idle)
        await pilot.pause()
        assert "now **adds**" in transcript_text(app)  # what came after the bad step
        assert "1 line skipped" in str(app.main.status.render())
        assert any("1 line of it could not be played" in n.message for n in app.toasts.center.entries)
        assert "bad-step" in (tmp_path / "p.log").read_text()


async def test_a_replay_keeps_the_recorded_pace(tmp_path: Path) -> None:
    recorder = Recorder.create(tmp_path / "rec.jsonl", ["pi"], Redactor([]))
    lines = (JSON_RUNS / "json_error.jsonl").read_bytes().splitlines()[1:]
    clock = iter([*([0.0] * 6), *([0.6] * (len(lines) - 6))])  # up to the user's message, then the reply
    recorder._clock, recorder._start = (lambda: next(clock)), 0.0
    for line in lines:
        recorder.read(line)
    recorder.close()
    _, steps = read_recording(tmp_path / "rec.jsonl")
    app = ReplayApp(config(tmp_path), ReplayClient("rec.jsonl", steps, speed=1.0))
    before = asyncio.get_running_loop().time()  # (the replay begins after this: its 0.6 s count from later)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "This request will fail" in transcript_text(app), what="the first lines")
        assert app.view.ended is None  # the rest comes 0.6 s later
        await wait_until(pilot, lambda: app.view.ended is not None, what="the rest")
        assert asyncio.get_running_loop().time() - before >= 0.6


async def test_a_stream_that_is_not_pis_says_so(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app._session_ready, what="ready")
        os.write(write_end, b"Compiling pideck v0.1\nerror: something else\n")
        os.close(write_end)
        await wait_until(pilot, lambda: "does not look like pi's output" in transcript_text(app), what="the banner")
        assert "not a JSON object" in transcript_text(app)
        await wait_until(pilot, lambda: "writer went away" in str(app.main.status.render()) or
                         "run settled" in str(app.main.status.render()), what="the end")



async def test_a_file_whose_run_has_not_settled_is_followed_as_pi_writes_it(tmp_path: Path) -> None:
    data = (JSON_RUNS / "json_tools.jsonl").read_bytes()
    cut = data.index(b'"delta":"roject."}')  # in the middle of a line of the first reply
    path = tmp_path / "run.jsonl"
    path.write_bytes(data[:cut])
    app = view(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert app.session.running and "following it as pi writes" in transcript_text(app)
        assert "following the file" in str(app.main.status.render()) or app.session.running
        with path.open("ab") as out:
            out.write(data[cut:])
        await wait_until(pilot, lambda: "run settled" in str(app.main.status.render()), what="the rest read")
        await wait_until(pilot, lambda: "now **adds**" in transcript_text(app), what="the last answer")
        assert not app.session.running and "ended    stop" in stats_text(app)


async def test_given_several_files_the_first_is_shown_and_the_view_says_so(tmp_path: Path) -> None:
    path = JSON_RUNS / "json_error.jsonl"
    app = ViewApp(config(tmp_path), ViewClient(str(path)), path=path, others=("b.jsonl", "c.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert any("only " + str(path) + " is shown (not b.jsonl, c.jsonl)" in n.message
                   for n in app.toasts.center.entries)


async def test_a_session_file_with_branches_shows_its_active_branch(tmp_path: Path) -> None:
    path = FIXTURES / "sessions" / "branched.jsonl"
    app = view(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        text = transcript_text(app)
        assert "Plan the refactor of the parser" in text and "Approach B is done" in text
        assert "approach A" not in text  # the abandoned branch
        assert app.session.state is not None and app.session.state.session_name == "Parser refactor"
        assert "ended    stop" in stats_text(app)
