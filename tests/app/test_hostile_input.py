"""Hostile and odd output from the child, through the whole app (fake pi child): nothing
crashes or freezes, the user sees a clear rate-limited indicator, the raw bytes land in the
protocol log (0600, capped), and pideck keeps talking to pi afterwards."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, start_run, transcript_text, ui, wait_until
from rich.cells import cell_len

import app.pi.problem_monitor as problem_monitor
from app.pideck_app import PideckApp
from protocol.hold.ask import ask
from protocol.wire.protocol_log import ProtocolLog
from widgets.panes.crash_bar import CrashBar
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatusLine

ASSISTANT = {
    "role": "assistant", "api": "openai-completions", "provider": "scripted", "model": "scripted-demo",
    "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
    "stopReason": "stop", "timestamp": 1795952826527,
}


def inject_bytes(fake: Fake, *lines: bytes) -> None:
    with fake.control.open("ab") as handle:
        for line in lines:
            handle.write(line + b"\n")


def toasts(app: Any) -> list[str]:
    """The problem monitor's notifications (all kept, however few of them a toast shows)."""
    return [n.message for n in app.toasts.center.entries if n.title == "pi misbehaved"]


def status(app: Any) -> str:
    return str(app.query_one(StatusLine).render())


async def prompt_goes_through(pilot: Any, fake: Fake, text: str) -> None:
    """Typing and Enter still work and reach pi: the app did not freeze."""
    editor = pilot.app.query_one(PromptEditor)
    editor.load("")
    await pilot.press(*text)
    assert editor.text == text
    await pilot.press("enter")
    await wait_until(pilot, lambda: any(p["message"] == text for p in fake.commands("prompt")), what=f"prompt {text!r}")


def total(toasts: list[str], label: str) -> int:
    """How many problems of one kind the toasts reported, together."""
    return sum(int(count.replace(",", "")) for toast in toasts for count in re.findall(rf"(\d[\d,]*) [^,;]*{label}", toast))


def all_told(app: Any) -> list[str] | None:
    """The toasts once they tell every problem reported so far, else None."""
    told = toasts(app)
    return told if total(told, "") == sum(app.desk.current.pi.problems.reported.values()) else None


async def test_every_kind_of_odd_record_is_survived_shown_and_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(problem_monitor, "INTERVAL", 0.0)  # toast whatever is new at once
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        monkeypatch.setattr(app, "NOTIFICATION_TIMEOUT", 3600.0)  # the toasts must outlast a slow machine
        answer = {**ASSISTANT, "content": [{"type": "hologram", "beam": 1}, {"type": "text", "text": "Text beside a hologram."}]}
        inject_bytes(
            fake,
            b"this is not json {",
            b'{"type":"agent_start","note":"\xff\xfe not UTF-8"}',
            bytes(range(0, 10)) + bytes(range(11, 256)),  # binary noise (no LF)
            b'{"type":"tool_execution_start","toolName":"bash"}',  # toolCallId missing
            json.dumps({"type": "hologram_event", "x": 1}).encode(),
            json.dumps({"type": "message_start", "message": {"role": "alien", "content": "from afar", "timestamp": 7}}).encode(),
            json.dumps({"type": "message_end", "message": {"role": "alien", "content": "from afar", "timestamp": 7}}).encode(),
            # block events out of order: a delta before its message and its block start, the end before
            # a late delta for the same block
            json.dumps({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 1, "delta": "early "}}).encode(),
            json.dumps({"type": "message_update", "assistantMessageEvent": {"type": "text_end", "contentIndex": 1, "content": "ended block"}}).encode(),
            json.dumps({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "contentIndex": 1, "delta": "LATE"}}).encode(),
            json.dumps({"type": "message_end", "message": answer}).encode(),
            json.dumps({"type": "message_end", "message": answer}).encode(),  # duplicate
            json.dumps({"type": "response", "id": "nobody-asked", "command": "get_state", "success": True}).encode(),
            json.dumps(ui("hologram", "ui-unknown-1", beam=True)).encode(),
            json.dumps(ui("setStatus", statusKey="probe", statusText="still reading")).encode(),
        )
        await wait_until(pilot, lambda: "still reading" in status(app), what="the record after the odd ones")
        declined = await wait_until(pilot, lambda: fake.commands("extension_ui_response"), what="unknown method declined")
        assert declined == [{"type": "extension_ui_response", "id": "ui-unknown-1", "cancelled": True}]

        def shown() -> str | None:  # the status line reads the model, which can be ahead of views still mounting
            text = transcript_text(app)
            return text if "block pideck does not show" in text else None

        text = await wait_until(pilot, shown, what="the unknown block in the transcript")
        assert "alien (message type pideck does not know)" in text and "from afar" in text
        assert "Text beside a hologram." in text
        assert text.count("Text beside a hologram.") == 1, "a duplicate message_end does not add a message"
        assert "LATE" not in text

        model = app.desk.current.pi.model
        assert model.protocol_errors == 4  # not JSON, not UTF-8, noise, missing field
        assert model.unknown_records == 2  # the event type and the UI method
        assert model.odd_records == 2  # the late delta and the duplicate message_end
        assert app.desk.current.pi.client.unexpected_responses == 1
        await wait_until(pilot, lambda: app.desk.current.pi.problems.reported == app.desk.current.pi.problems.counts(), what="everything reported")
        told = await wait_until(pilot, lambda: all_told(app), what="the toasts")  # Notify is a message, handled later
        assert total(told, "pideck could not read") == 4 and total(told, "pideck does not know") == 2
        assert total(told, "out of place") == 2 and total(told, "to no request") == 1
        assert all(str(app.config.protocol_log) in toast for toast in told)
        line = status(app)
        assert "4 unreadable" in line and "2 unknown" in line and "2 odd" in line and "1 stray" in line

        log = app.config.protocol_log
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        content = log.read_bytes()
        assert b"this is not json {" in content and b"\xff\xfe not UTF-8" in content and bytes(range(11, 256)) in content
        assert content.count(b" bad-record: ") == 4
        assert content.count(b" unknown-record: ") == 2 and b"hologram_event" in content
        assert content.count(b" unexpected-response: ") == 1 and b"nobody-asked" in content

        await prompt_goes_through(pilot, fake, "still alive")
        assert app.is_running


async def test_indicator_is_rate_limited_and_sums_up_later(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(problem_monitor, "INTERVAL", 3600.0)
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        for burst in range(5):
            inject_bytes(fake, *(b"garbage %d-%d" % (burst, n) for n in range(40)))
            inject_bytes(fake, json.dumps(ui("setStatus", statusKey="burst", statusText=f"burst {burst}")).encode())
            await wait_until(pilot, lambda b=burst: f"burst {b}" in status(app), what=f"burst {burst}")
        assert app.desk.current.pi.model.protocol_errors == 200
        await wait_until(pilot, lambda: toasts(app), what="the first toast")
        assert len(toasts(app)) == 1, "one toast for five bursts within the interval"
        assert "200 unreadable" in status(app), "the status line keeps the running total"
        first = toasts(app)[0]

        monkeypatch.setattr(problem_monitor, "INTERVAL", 0.0)
        await wait_until(pilot, lambda: len(toasts(app)) == 2, what="the summary of the rest")
        assert total([first, toasts(app)[1]], "pideck could not read") == 200, "each line is told once"


async def test_hundred_megabyte_lines_and_a_stderr_flood(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(problem_monitor, "INTERVAL", 0.0)  # toast whatever is new at once
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        size = 100 * 1024 * 1024
        inject_bytes(
            fake,
            b"#fake:bigline %d garbage" % size,
            b"#fake:bigline %d json" % size,
            b"#fake:stderr 50000 120",  # ~6.5 MB on stderr
            json.dumps(ui("setStatus", statusKey="after", statusText="after the flood")).encode(),
        )
        await wait_until(pilot, lambda: "after the flood" in status(app), timeout=60, what="records after 200 MB")
        await wait_until(pilot, lambda: app.desk.current.pi.client.stderr_total >= 50_000, timeout=30, what="stderr drained")
        assert app.desk.current.pi.model.protocol_errors == 1 and app.desk.current.pi.model.unknown_records == 1
        assert len(app.desk.current.pi.client.stderr) <= 400 and all(len(line) <= 2000 for line in app.desk.current.pi.client.stderr)
        log = app.config.protocol_log
        assert log.stat().st_size < 1024 * 1024, "a huge line is logged cut, not whole"
        assert b"cut from 104857600 bytes" in log.read_bytes()
        await wait_until(pilot, lambda: any("lines on stderr" in t for t in toasts(app)), what="stderr indicator")
        assert any("1 line pideck could not read" in t for t in toasts(app))
        await prompt_goes_through(pilot, fake, "responsive")


async def test_the_problem_mark_keeps_its_place_beside_many_statuses(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        inject_bytes(fake, b"not json at all {", *(json.dumps(ui(
            "setStatus", statusKey=f"ext-{k:02}", statusText=f"a long status of extension number {k} " * 3,
        )).encode() for k in range(40)))
        await wait_until(pilot, lambda: "ext-39" in status(app) and "1 unreadable" in status(app), what="statuses")
        line = app.query_one(StatusLine)
        shown = cell_len(status(app)[: status(app).index("⚠")])
        assert shown + 12 < line.content_region.width, "the problem mark and its count are on the screen"


def test_protocol_log_is_private_capped_and_rotated(tmp_path: Path) -> None:
    path = tmp_path / "state" / "protocol.log"
    path.parent.mkdir()
    path.write_bytes(b"old entry\n")
    path.chmod(0o600)
    log = ProtocolLog(path, max_bytes=10_000, keep=2, max_line=1_000)
    for index in range(100):
        log.write("bad-record", b"line %03d " % index + b"#" * 5_000, "not JSON")
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["protocol.log", "protocol.log.1", "protocol.log.2"], "two old files are kept, no more"
    for name in files:
        file = path.parent / name
        assert file.stat().st_size <= 10_000
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
    newest = path.read_bytes()
    assert b"line 099 " in newest and b"(cut from 5009 bytes)" in newest and b"#" * 1_001 not in newest
    assert b"old entry" not in b"".join((path.parent / name).read_bytes() for name in files), "the oldest rotated out"


# --- answers whose data pideck cannot type ------------------------------------------------

UNREADABLE = "pi's answer could not be read"


def titled(app: Any, title: str) -> list[str]:
    return [str(n.message) for n in app._notifications if n.title == title]


async def test_get_state_without_data_is_a_toast_naming_it_not_a_crash(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--answer", "get_state+1=null")  # start-up's get_state is answered as usual
    app = fake.app()
    async with fake.run(app) as pilot:
        # the stats refresh after start-up asks again; that answer has no data
        told = await wait_until(pilot, lambda: titled(app, UNREADABLE), what="the toast")
        assert told == [f"get_state: {UNREADABLE} (no data)"]
        app.query_one(PromptEditor).load("/name")
        await pilot.press("enter")
        failed = await wait_until(pilot, lambda: titled(app, "/name failed"), what="/name's toast")
        assert failed == [f"get_state: {UNREADABLE} (no data)"]
        await prompt_goes_through(pilot, fake, "still alive")
        assert app.is_running


async def test_a_wrong_typed_field_is_a_toast_naming_the_command_and_the_field(tmp_path: Path) -> None:
    models = {"models": [{"id": "m", "provider": "p", "contextWindow": "big"}]}
    fake = Fake(tmp_path, "--answer", f"get_available_models={json.dumps(models)}")
    app = fake.app()
    async with fake.run(app) as pilot:
        await pilot.press("ctrl+l")
        told = await wait_until(pilot, lambda: titled(app, "/model failed"), what="the toast")
        assert told == [f"get_available_models: {UNREADABLE} (Expected `int | float`, got `str` - at `$.models[0].contextWindow`)"]
        await prompt_goes_through(pilot, fake, "still alive")
        assert app.is_running


@pytest.mark.parametrize("held", [False, True], ids=["own", "held"])
async def test_a_pi_that_closes_stdout_mid_run_shows_the_crash_bar(tmp_path: Path, held: bool) -> None:
    """The same whether pi is pideck's child or the holder's (which ends it in order)."""
    fake = Fake(tmp_path, "--stop-after", "5")
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    app = PideckApp(dataclasses.replace(fake.config(env), hold=True)) if held else fake.app()
    try:
        await _crash_bar_after_stdout_closed(fake, app)
    finally:
        ask({"op": "stop", "all": True}, env)


async def _crash_bar_after_stdout_closed(fake: Fake, app: PideckApp) -> None:
    async with fake.run(app) as pilot:
        await start_run(pilot, fake)
        fake.inject("#fake:close-stdout")
        bar = app.query_one(CrashBar)
        await wait_until(pilot, lambda: bar.display, what="the crash bar")
        assert not app.desk.current.pi.model.running, "the spinner stops"
        assert "closed its stdout but kept running" in transcript_text(app)
        assert not bar.query_one("#crash-restart").disabled
        fake.control.write_text("")  # a new fake child replays its control file from the start
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.desk.current.pi.client.running and not bar.display, what="restart")
        await prompt_goes_through(pilot, fake, "after the restart")


# --- where the protocol log's lines go ------------------------------------------------------


def test_protocol_log_leaves_the_mode_of_a_file_it_did_not_create(tmp_path: Path) -> None:
    shared = tmp_path / "shared.log"
    shared.write_bytes(b"someone else's\n")
    shared.chmod(0o644)
    ProtocolLog(shared).write("bad-record", b"garbage", "not JSON")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644 and b"garbage" in shared.read_bytes()
    created = tmp_path / "new" / "protocol.log"
    ProtocolLog(created).write("bad-record", b"garbage", "not JSON")
    assert stat.S_IMODE(created.stat().st_mode) == 0o600


def test_a_fifo_turns_the_protocol_log_off_untouched(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o644)
    fallback = tmp_path / "fallback.log"
    log = ProtocolLog(fifo, fallback=fallback)
    writer = threading.Thread(target=log.write, args=("bad-record", b"garbage", "not JSON"), daemon=True)
    writer.start()
    writer.join(10)
    try:
        assert not writer.is_alive(), "writing to a FIFO nobody reads must not block"
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # frees a writer stuck in open()
    assert stat.S_IMODE(fifo.stat().st_mode) == 0o644 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert log.off and log.where == f"nowhere ({fifo} is not a regular file: the log is off)"
    assert not fallback.exists(), "a log turned off is off, not moved"


def test_dev_null_turns_the_protocol_log_off(tmp_path: Path) -> None:
    before = os.stat(os.devnull)
    log = ProtocolLog(Path(os.devnull), fallback=tmp_path / "fallback.log")
    log.probe()
    log.write("bad-record", b"garbage", "not JSON")
    assert log.off and log.failure is None and log.entries == 0
    assert os.stat(os.devnull).st_mode == before.st_mode
    assert not (tmp_path / "fallback.log").exists()


def test_a_log_that_cannot_be_written_goes_to_the_fallback(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path, fallback = blocker / "protocol.log", tmp_path / "state" / "protocol.log"
    log = ProtocolLog(path, fallback=fallback)
    log.write("bad-record", b"garbage", "not JSON")
    assert log.entries == 1 and b"garbage" in fallback.read_bytes()
    assert log.where == f"{fallback} ({path} cannot be written: Not a directory)"
    missing = tmp_path / "typo" / "protocol.log"
    typo = ProtocolLog(missing, fallback=fallback)
    typo.write("bad-record", b"garbage", "not JSON")
    assert not missing.parent.exists(), "a directory the user named is not made"
    assert typo.where == f"{fallback} ({missing} cannot be written: No such file or directory)"
    nowhere = ProtocolLog(path)
    nowhere.write("bad-record", b"garbage", "not JSON")
    assert nowhere.entries == 0 and nowhere.where == f"nowhere ({path} cannot be written: Not a directory)"


async def test_an_unwritable_protocol_log_is_named_at_start_up_with_where_lines_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    fallback = tmp_path / "state" / "pideck" / "protocol.log"
    (tmp_path / "a-file").write_text("")
    bad = tmp_path / "a-file" / "protocol.log"
    fake = Fake(tmp_path)
    app = PideckApp(dataclasses.replace(fake.config(), protocol_log=bad))
    async with fake.run(app) as pilot:
        reason = f"{bad} cannot be written: Not a directory"
        told = [str(n.message) for n in app._notifications if n.title == "The protocol log cannot be written"]
        assert told == [f"Lines from pi that pideck cannot use will be kept in {fallback} ({reason})."]
        fake.inject("this is not json {")
        problems = await wait_until(pilot, lambda: toasts(app), what="the problem toast")
        assert problems == [f"pi sent 1 line pideck could not read; kept in {fallback} ({reason})"]
        assert f"log: {fallback} (" in status(app)
        assert b"this is not json {" in fallback.read_bytes()
