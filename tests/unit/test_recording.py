"""Recordings (`--record FILE`, protocol/wire/recording.py): what they hold, how they keep secrets
and other files, and reading them back for `pideck replay`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from protocol.wire import recording
from protocol.wire.recording import NotARecording, Recorder, Skipped, Step, read_recording
from protocol.wire.redact import Redactor

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


def make(path: Path, env_secret: str = "") -> Recorder:
    ticks = iter(float(n) for n in range(100))
    recorder = Recorder.create(path, ["pi", "--mode", "rpc", "--api-key", SECRET], Redactor([env_secret] if env_secret else []),
                               cwd="/work")
    recorder._clock = lambda: next(ticks)  # (the start was read at creation: times count from 0)
    recorder._start = 0.0
    return recorder


def test_a_recording_holds_both_directions_with_times_and_mode_0600(tmp_path: Path) -> None:
    recorder = make(tmp_path / "r.jsonl")
    recorder.sent(b'{"type":"get_state","id":"pideck-1"}\n')
    recorder.read(b'{"type":"response","command":"get_state","id":"pideck-1","success":true}')
    recorder.read(b'{"type":"message_update","text":"caf\xc3\xa9 \xe2\x80\xa8 line"}')
    recorder.read(b"\xff\xfe not utf-8")
    recorder.exited(0)
    recorder.close()
    path = tmp_path / "r.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    header, steps = read_recording(path)
    assert header["pideck_recording"] == 1 and header["cwd"] == "/work"
    played = list(steps)
    assert [step.at for step in played] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert played[0].sent == b'{"type":"get_state","id":"pideck-1"}'
    assert played[2].read == '{"type":"message_update","text":"café \u2028 line"}'.encode()
    assert played[3].read == b"\xff\xfe not utf-8"
    assert played[4].exited and played[4].exit == 0
    assert len(path.read_bytes().splitlines()) == 6  # U+2028 is no line break in the file


def test_secrets_are_redacted_as_in_the_protocol_log(tmp_path: Path) -> None:
    recorder = make(tmp_path / "r.jsonl", env_secret="hunter2-from-the-environment")
    recorder.read(b'{"type":"response","data":{"apiKey":"plain-key-value","note":"hunter2-from-the-environment"}}')
    recorder.sent(('{"type":"bash","command":"curl -H \'Authorization: Bearer ' + SECRET + '\'"}').encode())
    recorder.close()
    text = (tmp_path / "r.jsonl").read_text()
    assert SECRET not in text and "plain-key-value" not in text and "hunter2-from-the-environment" not in text
    assert text.count("[redacted]") >= 4  # the argv's key, the apiKey field, the env value, the bearer token
    json.loads(text.splitlines()[0])


def test_an_existing_file_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "bug.jsonl").write_text("someone's notes\n")
    first = make(tmp_path / "bug.jsonl")
    second = make(tmp_path / "bug.jsonl")
    assert (first.path.name, second.path.name) == ("bug-2.jsonl", "bug-3.jsonl")
    assert (tmp_path / "bug.jsonl").read_text() == "someone's notes\n"


def test_a_file_that_is_not_a_recording_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"type":"session","id":"x"}\n')
    with pytest.raises(NotARecording, match="not a pideck recording"):
        read_recording(path)


def test_a_line_that_is_no_step_comes_as_skipped_and_the_rest_plays(tmp_path: Path) -> None:
    """Every number of a step is read through protocol.numbers: a time of 400 digits, `1e999`, a
    negative one or an exit code out of range is no step; nor is a line that is not JSON."""
    path = tmp_path / "r.jsonl"
    lines = [
        '{"pideck_recording": 1}',
        '{"t": 0.5, "in": "first"}',
        '{"t": ' + "9" * 400 + ', "in": "huge time"}',
        '{"t": 1e999, "in": "infinite time"}',
        '{"t": -1, "in": "negative time"}',
        '{"t": "1", "in": "time as text"}',
        "not json",
        '{"t": 1, "in64": "%%%"}',
        '{"t": 1, "exit": 1' + "0" * 30 + "}",
        "",
        '{"t": 2, "in": "last"}',
        '{"t": 2.5, "exit": null}',
    ]
    path.write_text("\n".join(lines) + "\n")
    _, steps = read_recording(path)
    played = list(steps)
    assert [step.read for step in played if isinstance(step, Step)] == [b"first", b"last", None]
    skipped = [step for step in played if isinstance(step, Skipped)]
    assert len(skipped) == 7
    assert "time `t`" in skipped[0].reason and skipped[0].line.startswith(b'{"t": 999')
    assert "exit code" in skipped[-1].reason
    assert played[-1] == Step(2.5, exit=None, exited=True)


def test_a_line_too_long_to_play_is_skipped_and_read_a_piece_at_a_time(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recording, "MAX_STEP", 100)
    path = tmp_path / "r.jsonl"
    path.write_text('{"pideck_recording": 1}\n{"t": 0, "in": "' + "x" * 1000 + '"}\n{"t": 1, "in": "after"}\n')
    _, steps = read_recording(path)
    played = list(steps)
    assert isinstance(played[0], Skipped) and "longer than 100 bytes" in played[0].reason
    assert played[1] == Step(1.0, read=b"after") and len(played) == 2
