"""Reading pi's headless output without pi (protocol/files/headless_files.py, session_context.py,
run_summary.py): JSON-mode runs recorded from pi 1.6.0 (tests/fixtures/json_mode) and
session files, folded into the session model as `pideck view` folds them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from protocol.files import headless_files
from protocol.wire.codec import Unknown, decode
from protocol.wire.events import AutoRetryEnd, CompactionEnd
from protocol.files.headless_files import JSON_MODE, SESSION_FILE, NotPiOutput, load_file
from protocol.wire.messages import AssistantMessage, CompactionSummaryMessage, UserMessage, text_of
from protocol.state.run_summary import outcome, view_state, view_stats
from protocol.state.session_model import Banner, MessageItem, SessionModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JSON_RUNS = FIXTURES / "json_mode"
RUNS = ("json_tools", "json_error", "json_retry", "json_compaction")


def folded(records: list[Any]) -> SessionModel:
    session = SessionModel()
    session.load_messages([])
    session.apply_all(records)
    return session


def every_record(path: Path) -> list[Any]:
    """Each line after the header decoded, as a live reader would hand them over."""
    return [decode(line) for line in path.read_bytes().splitlines()[1:] if line.strip()]


def shown(session: SessionModel) -> list[Any]:
    """What the transcript shows of each item: role and block texts, or a banner's words."""
    rows: list[Any] = []
    for item in session.items:
        if isinstance(item, Banner):
            rows.append((item.kind, item.title, item.outcome))
        else:
            rows.append((item.role, [(b.kind, b.text, b.tool_call) for _, b in item.ordered_blocks()]))
    return rows


def tools(session: SessionModel) -> list[Any]:
    return [(run.tool_call_id, run.name, run.output, run.is_error, run.done, run.duration_ms) for run in session.tool_runs()]


@pytest.mark.parametrize("name", RUNS)
def test_a_json_mode_run_folds_as_its_whole_stream_does(name: str) -> None:
    path = JSON_RUNS / f"{name}.jsonl"
    loaded = load_file(path)
    assert loaded.kind == JSON_MODE
    assert loaded.header is not None and loaded.header.id and loaded.header.cwd.endswith(f"{name}/project")
    quick, whole = folded(loaded.records), folded(every_record(path))
    assert shown(quick) == shown(whole)
    assert tools(quick) == tools(whole)
    assert quick.totals == whole.totals and not quick.running
    assert quick.unknown_records == quick.protocol_errors == 0


def test_the_deltas_of_ended_messages_and_old_partial_results_are_not_read() -> None:
    path = JSON_RUNS / "json_tools.jsonl"
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    kinds = [json.loads(line)["type"] for line in lines]
    records = load_file(path).records
    names = [type(record).__name__ for record in records]
    assert kinds.count("message_update") == 43 and "MessageUpdate" not in names
    assert kinds.count("tool_execution_update") == 4 and "ToolExecutionUpdate" not in names
    assert "TurnEnd" not in names and names.count("AgentEnd") == 1


def test_the_json_mode_run_shows_its_thinking_tools_and_edit() -> None:
    session = folded(load_file(JSON_RUNS / "json_tools.jsonl").records)
    texts = "\n".join(block.text for item in session.items if isinstance(item, MessageItem)
                      for _, block in item.ordered_blocks())
    assert "The user wants the tests fixed" in texts and "`add` in `calc.py` now **adds**" in texts
    runs = {run.name: run for run in session.tool_runs()}
    assert set(runs) == {"bash", "read", "edit"}
    assert runs["bash"].output == "line 1\nline 2\nline 3\n" and runs["bash"].duration_ms
    assert "-2     return a - b" in runs["edit"].result.details["diff"]  # type: ignore[union-attr]
    assert outcome(session).text == "stop"


def test_a_failed_model_call_is_the_runs_outcome_though_pi_exited_0() -> None:
    session = folded(load_file(JSON_RUNS / "json_error.jsonl").records)
    ended = outcome(session)
    assert ended.severity == "error" and ended.text.startswith("error: 401") and "Incorrect API key" in ended.text


def test_a_retry_and_a_compaction_show_as_banners_in_place() -> None:
    retry = folded(load_file(JSON_RUNS / "json_retry.jsonl").records)
    banners = [item for item in retry.items if isinstance(item, Banner)]
    assert [(b.kind, b.outcome) for b in banners] == [("retry", "succeeded")]
    assert outcome(retry).text == "stop"  # the last reply is the one after the retry
    records = load_file(JSON_RUNS / "json_retry.jsonl").records
    assert any(type(r).__name__ == "AgentEnd" and r.will_retry for r in records)
    assert any(isinstance(r, AutoRetryEnd) for r in records)
    compacted = folded(load_file(JSON_RUNS / "json_compaction.jsonl").records)
    (banner,) = [item for item in compacted.items if isinstance(item, Banner)]
    assert banner.kind == "compaction" and banner.outcome.startswith("done: 126k tokens")
    assert any(isinstance(r, CompactionEnd) and r.reason == "threshold" for r in load_file(JSON_RUNS / "json_compaction.jsonl").records)


def test_the_runs_session_file_shows_the_same_conversation() -> None:
    loaded = load_file(JSON_RUNS / "json_tools.session.jsonl")
    assert loaded.kind == SESSION_FILE and (loaded.provider, loaded.model) == ("scripted", "scripted-demo")
    assert loaded.thinking_level == "medium"
    from_file = SessionModel()
    from_file.load_messages(loaded.messages)
    run = folded(load_file(JSON_RUNS / "json_tools.jsonl").records)
    assert [row for row in shown(from_file)] == [row for row in shown(run)]
    state = view_state(from_file, loaded.header, "x.jsonl", provider=loaded.provider, model=loaded.model,
                       thinking_level=loaded.thinking_level)
    assert state.model is not None and state.model.id == "scripted-demo" and state.thinking_level == "medium"
    stats = view_stats(from_file, loaded.header, "x.jsonl")
    assert (stats.user_messages, stats.assistant_messages, stats.tool_calls, stats.tool_results) == (1, 3, 3, 3)
    assert stats.tokens.input == 360 and stats.cost > 0


def entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> str:
    return json.dumps({"type": kind, "id": entry_id, "parentId": parent, "timestamp": "2026-12-01T10:00:00.000Z",
                       **fields})


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


HEADER = json.dumps({"type": "session", "version": 3, "id": "abc", "timestamp": "2026-12-01T10:00:00.000Z",
                     "cwd": "/tmp/project"})


def test_a_session_file_shows_its_active_branch(tmp_path: Path) -> None:
    loaded = load_file(FIXTURES / "sessions" / "branched.jsonl")
    texts = [text_of(m.content) for m in loaded.messages if isinstance(m, UserMessage)]
    assert loaded.kind == SESSION_FILE and loaded.name == "Parser refactor"
    lines = (FIXTURES / "sessions" / "branched.jsonl").read_text().splitlines()
    entries = {e["id"]: e for e in map(json.loads, lines[1:]) if "id" in e}
    leaf = json.loads(lines[-1])["id"]
    chain = []
    while leaf is not None:
        chain.append(entries[leaf])
        leaf = entries[leaf]["parentId"]
    wanted = [text_of(e["message"]["content"]) if isinstance(e["message"]["content"], str)
              else "".join(b.get("text", "") for b in e["message"]["content"])
              for e in reversed(chain) if e["type"] == "message" and e["message"]["role"] == "user"]
    assert texts == wanted
    other = [e for e in entries.values() if e["type"] == "message" and e["id"] not in {c["id"] for c in chain}]
    assert other, "the fixture has an abandoned branch"


def test_after_a_compaction_only_its_summary_and_the_kept_entries_show(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", HEADER,
                 entry("message", "a", None, message=user("old question")),
                 entry("message", "b", "a", message=user("kept question")),
                 entry("compaction", "c", "b", summary="## Goal\nsummary", firstKeptEntryId="b", tokensBefore=5000),
                 entry("message", "d", "c", message=user("new question")),
                 entry("message", "x", "a", message=user("an abandoned branch")),
                 entry("message", "e", "d", message=user("last question")))
    messages = load_file(path).messages
    assert [type(m).__name__ for m in messages] == ["CompactionSummaryMessage", "UserMessage", "UserMessage", "UserMessage"]
    assert isinstance(messages[0], CompactionSummaryMessage) and messages[0].tokens_before == 5000
    assert [text_of(m.content) for m in messages[1:]] == ["kept question", "new question", "last question"]


@pytest.mark.parametrize(("content", "said"), [
    (b"", "empty"),
    (b"hello world\n", "the first line is not JSON"),
    (b"{}\n", 'the first line is a JSON object without a string "type"'),
    (b"[1, 2]\n", "the first line is a JSON array, not an object"),
    (b'{"name": "package", "version": "1.0"}\n', "not pi's"),
    (b'{"type":"dependency","id":1}\n', "of type 'dependency'"),
    (b'{"pideck_recording":1,"started":"x"}\n', "pideck replay"),
])
def test_what_is_not_pis_output_says_what_it_is(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    with pytest.raises(NotPiOutput, match=said):
        load_file(path)


def test_a_truncated_run_is_drawn_as_far_as_it_goes(tmp_path: Path) -> None:
    data = (JSON_RUNS / "json_tools.jsonl").read_bytes()
    cut = data.index(b'"delta":"roject."}')  # in the middle of the first reply's text
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data[:cut])
    loaded = load_file(path)
    assert loaded.partial
    session = folded(loaded.records)
    assert session.running  # no agent_settled: the view says the run did not settle
    last = session.items[-1]
    assert isinstance(last, MessageItem) and last.streaming and "Let me look at" in "".join(
        block.text for _, block in last.ordered_blocks())
    assert session.protocol_errors == 0  # the cut line is left out: pi may still be writing it
    assert loaded.end == data.rindex(b"\n", 0, cut) + 1  # where following the file goes on


def test_unknown_events_and_newer_fields_are_passed_over(tmp_path: Path) -> None:
    lines = (JSON_RUNS / "json_error.jsonl").read_text().splitlines()
    newer = [lines[0], json.dumps({"type": "agent_paused", "reason": "a newer pi's event"})]
    for line in lines[1:]:
        record = json.loads(line)
        record["futureField"] = {"nested": [1, 2]}
        if isinstance(record.get("message"), dict):
            record["message"]["futureField"] = True
        newer.append(json.dumps(record))
    loaded = load_file(write(tmp_path / "newer.jsonl", *newer))
    assert sum(isinstance(r, Unknown) for r in loaded.records) == 1
    session = folded(loaded.records)
    assert shown(session) == shown(folded(load_file(JSON_RUNS / "json_error.jsonl").records))
    assert outcome(session).text.startswith("error: 401")


def test_a_line_over_the_limit_is_counted_and_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(headless_files, "MAX_LINE", 4000)
    loaded = load_file(JSON_RUNS / "json_tools.jsonl")
    assert loaded.skipped > 0  # the system prompt's message_start and message_end are longer
    assert any(isinstance(item, MessageItem) and isinstance(item.message, AssistantMessage)
               for item in folded(loaded.records).items)
