"""`pideck view` (app/view/app.py): a JSON-mode run or a session file shown read-only, a
stream followed live, and a recording played back; no pi child in any of them."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from textual.widgets import OptionList

from tests.pi_harness import SIZE, notes, stats_text, transcript_text, type_text, wait_until

from app.pi.launch import LaunchConfig
from app.view.replay import ReplayApp
from app.view.app import ViewApp
from protocol.wire.protocol_log import ProtocolLog
from protocol.wire.recording import Recorder, read_recording
from protocol.wire.redact import Redactor
from protocol.files.view_client import ReplayClient, ViewClient
from widgets.transcript.message_views import ToolCallBlock
from widgets.panes.queue_lines import QueueLines
from widgets.screens.notification_list import NotificationList

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JSON_RUNS = FIXTURES / "json_mode"


def config(tmp_path: Path) -> LaunchConfig:
    return LaunchConfig(argv=("pideck", "view"), env={"PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "HOME": str(tmp_path)},
                        cwd=tmp_path, demo=False, protocol_log=tmp_path / "protocol.log")


def view(tmp_path: Path, path: Path) -> ViewApp:
    return ViewApp(config(tmp_path), ViewClient(str(path)), path=path)


async def opened(pilot, app: ViewApp) -> None:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.pump.idle, what="the file shown")
    await pilot.pause()


async def test_a_json_mode_run_is_shown_with_its_tools_and_outcome(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        text = transcript_text(app)
        assert "Fix the add function in calc.py." in text and "now **adds**" in text
        assert {run.name for run in app.desk.current.pi.model.tool_runs()} == {"bash", "read", "edit"}
        assert len(app.query(ToolCallBlock)) == 3  # drawn by kind, as live
        stats = stats_text(app)
        assert "scripted/scripted-demo" in stats and "ended    stop" in stats and "↑360" in stats
        assert "read-only view of" in str(app.desk.current.main.status.render())
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_id.startswith("01a23373")


async def test_a_failed_model_call_says_so_in_the_stats(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_error.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert "ended    error: 401" in stats_text(app)


def shown_keys(app: ViewApp) -> set[str]:
    """The descriptions of the keys the footer offers (the prompt's and the screen's)."""
    return {active.binding.description for active in app.screen.active_bindings.values() if active.binding.show}


def status_row(app: ViewApp) -> str:
    """The status line as it is drawn (one row)."""
    return app.desk.current.main.status.render_line(0).text


async def test_a_view_offers_only_what_works_without_pi(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        keys = shown_keys(app)
        assert not keys & {"Send", "Follow-up", "Model", "Abort"} and {"Find or run", "Search"} <= keys
        assert not {"app.model.select", "app.interrupt", "app.thinking.cycle"} & {b.id for _, b in app.key_bindings}
        assert "nothing goes to pi" in str(app.desk.current.main.editor.border_title)
        assert str(app.desk.current.main.queue.render()) == "empty"  # nothing of steering
        await pilot.press("escape")  # no abort to offer
        await type_text(pilot, "calc.py")
        await pilot.press("enter")  # found in the transcript: the line is a search, never a prompt
        await wait_until(pilot, lambda: app.desk.current.main.searching, what="the search")
        assert app.desk.current.main.search_bar.query_one("#search-input").value == "calc.py" and app.desk.current.main.editor.text == ""
        assert "refused" not in transcript_text(app) and not any("refused" in note for note in notes(app))
        await pilot.press("escape")
        app.desk.current.main.editor.load("/model")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("/model needs pi, and pideck view starts none" in note
                                            for note in notes(app)), what="the /model refusal")
        assert app.desk.current.main.editor.text == "/model"  # what was typed is kept
        assert "Here: /copy /export" in notes(app)[-1]


async def test_a_refused_command_in_a_replay_keeps_its_text_and_its_toast_is_in_the_list(tmp_path: Path) -> None:
    recorder = Recorder.create(tmp_path / "rec.jsonl", ["pi"], Redactor([]))
    for line in (JSON_RUNS / "json_error.jsonl").read_bytes().splitlines()[1:]:
        recorder.read(line)
    recorder.close()
    _, steps = read_recording(tmp_path / "rec.jsonl")
    app = ReplayApp(config(tmp_path), ReplayClient("rec.jsonl", steps, speed=0))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "finished" in status_row(app), what="the end of the replay")
        await type_text(pilot, "/open /tmp")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("/open needs pi, and pideck replay starts none" in note
                                            for note in notes(app)), what="the refusal")
        assert app.desk.current.main.editor.text == "/open /tmp"
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, NotificationList), what="the list")
        await pilot.pause()
        listed = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
        assert any("/open needs pi" in text for text in listed)
        assert not shown_keys(app) & {"Send", "Follow-up", "Model", "Abort"}


async def test_copy_takes_the_last_answer_from_the_file(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        app.desk.current.main.editor.load("/copy")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.clipboard, what="the copy")
        assert app.clipboard.startswith("## Fixed")


async def test_a_file_that_is_not_pis_says_why_and_nothing_hangs(tmp_path: Path) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"name": "x"}\n')
    app = view(tmp_path, bad)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.exit_status == 1, what="the error screen")
        await pilot.pause()
        assert "not pi's JSON-mode output" in " ".join(str(w.render()) for w in app.screen.query("Static"))


async def test_a_stream_is_followed_and_says_when_its_writer_went_away(tmp_path: Path) -> None:
    lines = (JSON_RUNS / "json_tools.jsonl").read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"tool_execution_start"' in line)
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, what="ready")
        os.write(write_end, b"".join(lines[:cut]))
        await wait_until(pilot, lambda: "Let me look at the project." in transcript_text(app), what="the first reply")
        await wait_until(pilot, lambda: "ended    running" in stats_text(app), what="the stats")
        assert app.desk.current.pi.model.running and "scripted/scripted-demo" in stats_text(app)
        row = status_row(app)
        assert "read-only view of stdin · following · turn 1" in row and "working" not in row and "esc" not in row
        assert app.desk.current.pi.model.cwd == "/tmp/pideck-fixture-json/json_tools/project"  # the run's, from its header
        stats = stats_text(app)  # what the stream said (the first reply's thinking level), no defaults
        assert "thinking medium" in stats and "queue" not in stats and "auto" not in stats and "session " not in stats
        os.write(write_end, b"".join(lines[cut : cut + 3]))
        await wait_until(pilot, lambda: app.desk.current.pi.model.tools, what="a tool starting")
        os.close(write_end)  # pi killed mid-run
        await wait_until(pilot, lambda: "went away before the run settled" in transcript_text(app), what="the banner")
        assert not app.desk.current.pi.model.running and "writer went away" in str(app.desk.current.main.status.render())
        assert "ended    cut short" in stats_text(app) or "the writer went away" in stats_text(app)


async def test_the_session_pane_shows_the_settings_the_stream_said(tmp_path: Path) -> None:
    lines = (JSON_RUNS / "json_tools.jsonl").read_bytes().splitlines(keepends=True)
    settled = next(i for i, line in enumerate(lines) if b'"agent_settled"' in line)
    said = [b'{"type":"thinking_level_changed","level":"high"}\n',
            b'{"type":"session_info_changed","name":"Fix add"}\n']
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, what="ready")
        first_update = next(i for i, line in enumerate(lines) if b'"message_update"' in line)
        os.write(write_end, b"".join(lines[:first_update]))
        await wait_until(pilot, lambda: "scripted/scripted-demo" in stats_text(app), what="the reply's model")
        assert "thinking" not in stats_text(app)  # not said yet (its message_end says it): no default
        os.write(write_end, b"".join(lines[first_update:settled]))
        await wait_until(pilot, lambda: "thinking medium" in stats_text(app), what="the replies' thinking level")
        os.write(write_end, b"".join([*said, *lines[settled:]]))
        await wait_until(pilot, lambda: "thinking high" in stats_text(app) and "session  Fix add" in stats_text(app),
                         what="what the stream said last")
        os.close(write_end)
        await wait_until(pilot, lambda: "run settled" in status_row(app), what="settled")
        stats = stats_text(app)
        assert "thinking high" in stats and "session  Fix add" in stats and "queue" not in stats


async def test_a_stream_that_settles_says_so(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, what="ready")
        os.write(write_end, (JSON_RUNS / "json_retry.jsonl").read_bytes())
        await wait_until(pilot, lambda: "Answer after one retry." in transcript_text(app), what="the answer")
        os.close(write_end)
        await wait_until(pilot, lambda: "run settled" in str(app.desk.current.main.status.render()), what="settled")
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
        await wait_until(pilot, lambda: "finished" in str(app.desk.current.main.status.render()), what="the end of the replay")
        await wait_until(pilot, lambda: app.desk.current.pi.pump.idle)
        await pilot.pause()
        assert "now **adds**" in transcript_text(app)
        assert app.desk.current.pi.model.unknown_records == 0 and not app.desk.current.pi.model.running


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
    client = ReplayClient("rec.jsonl", steps, speed=0, protocol_log=ProtocolLog(tmp_path / "p.log"))
    app = ReplayApp(config(tmp_path), client)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "finished" in str(app.desk.current.main.status.render()), what="the end of the replay")
        await wait_until(pilot, lambda: app.desk.current.pi.pump.idle)
        await pilot.pause()
        assert "now **adds**" in transcript_text(app)  # what came after the bad step
        assert "1 line skipped" in str(app.desk.current.main.status.render())
        assert any("1 line of it could not be played" in n.message for n in app.toasts.center.entries)
        assert "bad-step" in (tmp_path / "p.log").read_text()


async def test_a_replay_keeps_the_recorded_pace(tmp_path: Path) -> None:
    recorder = Recorder.create(tmp_path / "rec.jsonl", ["pi"], Redactor([]))
    lines = (JSON_RUNS / "json_error.jsonl").read_bytes().splitlines()[1:]
    clock = iter([*([0.0] * 6), *([2.0] * (len(lines) - 6))])  # up to the user's message, then the reply
    recorder._clock, recorder._start = (lambda: next(clock)), 0.0
    for line in lines:
        recorder.read(line)
    recorder.close()
    _, steps = read_recording(tmp_path / "rec.jsonl")
    app = ReplayApp(config(tmp_path), ReplayClient("rec.jsonl", steps, speed=1.0))
    before = asyncio.get_running_loop().time()  # (the replay begins after this: its 2 s count from later)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "This request will fail" in transcript_text(app), what="the first lines")
        assert app.view.ended is None  # the rest comes 2 s later (room for a loaded machine to draw the first)
        await wait_until(pilot, lambda: app.view.ended is not None, what="the rest")
        assert asyncio.get_running_loop().time() - before >= 2.0


async def test_a_stream_that_is_not_pis_says_so(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    app = ViewApp(config(tmp_path), ViewClient("stdin", fd=read_end))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, what="ready")
        os.write(write_end, b"Compiling pideck v0.1\nerror: something else\n")
        os.close(write_end)
        await wait_until(pilot, lambda: "does not look like pi's output" in transcript_text(app), what="the banner")
        assert "the first line is not JSON" in transcript_text(app)
        await wait_until(pilot, lambda: "writer went away" in str(app.desk.current.main.status.render()) or
                         "run settled" in str(app.desk.current.main.status.render()), what="the end")



async def test_a_file_whose_run_has_not_settled_is_followed_as_pi_writes_it(tmp_path: Path) -> None:
    data = (JSON_RUNS / "json_tools.jsonl").read_bytes()
    cut = data.index(b'"delta":"roject."}')  # in the middle of a line of the first reply
    path = tmp_path / "run.jsonl"
    path.write_bytes(data[:cut])
    app = view(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert app.desk.current.pi.model.running and "following it as pi writes" in transcript_text(app)
        assert "following the file" in str(app.desk.current.main.status.render()) or app.desk.current.pi.model.running
        with path.open("ab") as out:
            out.write(data[cut:])
        await wait_until(pilot, lambda: "run settled" in str(app.desk.current.main.status.render()), what="the rest read")
        await wait_until(pilot, lambda: "now **adds**" in transcript_text(app), what="the last answer")
        assert not app.desk.current.pi.model.running
        await wait_until(pilot, lambda: "ended    stop" in stats_text(app), what="the Session pane's end of the run")


async def test_given_several_files_the_first_is_shown_and_the_view_says_so(tmp_path: Path) -> None:
    path = JSON_RUNS / "json_error.jsonl"
    app = ViewApp(config(tmp_path), ViewClient(str(path)), path=path, others=("b.jsonl", "c.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        assert any("only " + str(path) + " is shown (not b.jsonl, c.jsonl)" in n.message
                   for n in app.toasts.center.entries)


async def test_the_status_line_shows_the_path_of_a_session_file_cut_in_its_middle(tmp_path: Path) -> None:
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--home-me-a-project-with-a-rather-long-name--\x1b[31mred"
    folder.mkdir(parents=True)
    path = folder / "2026-12-01T10-00-00-000Z_0191a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b.jsonl"
    path.write_bytes((FIXTURES / "sessions" / "branched.jsonl").read_bytes())
    app = ViewApp(config(tmp_path), ViewClient(str(path)), path=path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        await wait_until(pilot, lambda: "read-only view of" in status_row(app), what="the view's line")
        row = status_row(app)
        assert row.rstrip().endswith("0191a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b.jsonl") and f" {tmp_path}"[:20] in row
        assert "…" in row and "\x1b" not in row and len(row) <= SIZE[0]
        await pilot.resize_terminal(60, SIZE[1])
        await wait_until(pilot, lambda: "4a5b.jsonl  scripted-demo" in status_row(app), what="the line at 60 columns")


async def test_with_the_side_panes_hidden_the_status_line_says_only_what_the_run_said(tmp_path: Path) -> None:
    app = view(tmp_path, JSON_RUNS / "json_tools.jsonl")
    async with app.run_test(size=(90, 30)) as pilot:
        await opened(pilot, app)
        await wait_until(pilot, lambda: "scripted-demo" in status_row(app), what="the model on the right")
        row = status_row(app)
        assert "↑360 ↓50" in row and "(auto)" not in row and "%/" not in row  # no context use: the run said none


async def test_a_session_file_with_branches_shows_its_active_branch(tmp_path: Path) -> None:
    path = FIXTURES / "sessions" / "branched.jsonl"
    app = view(tmp_path, path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, app)
        text = transcript_text(app)
        assert "Plan the refactor of the parser" in text and "Approach B is done" in text
        assert "approach A" not in text  # the abandoned branch
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_name == "Parser refactor"
        assert "ended    stop" in stats_text(app)


async def test_the_queue_above_the_prompt_names_no_key_in_a_view(tmp_path: Path) -> None:
    """Below 100 columns the queue a recorded pi had shows above the prompt, without the keys
    that take it back: none reaches a pi here."""
    run = tmp_path / "queued.jsonl"
    queued = {"type": "queue_update", "steering": ["Be brief."], "followUp": ["Then summarize."]}
    run.write_text((JSON_RUNS / "json_tools.jsonl").read_text() + json.dumps(queued) + "\n")
    app = view(tmp_path, run)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot, app)
        lines = app.desk.current.main.query_one(QueueLines)
        await wait_until(pilot, lambda: lines.display, what="the queue above the prompt")
        assert str(lines.render()).split("\n") == ["Steering: Be brief.", "Follow-up: Then summarize."]
