"""protocol/files/session_files.py: pi's session directory and the picker's view of its files.

Real files come from a real pi run (module fixture: one child in pi's default session
directory under the test agent dir); broken ones are written here.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import SESSIONS, PiHarness

import protocol.files.session_files as session_files
from app.scripted_model.agent_dir import pi_model_args
from app.scripted_model.server import Reply
from protocol.wire.commands import GetState, NewSession, Prompt, SetSessionName
from protocol.files.session_files import (
    SessionPlace,
    default_session_dir,
    list_sessions,
    pi_args_of,
    read_summary,
    session_place,
)



@dataclass
class RealSessions:
    place: SessionPlace
    first: Path  # named "Tidy the docs", two exchanges
    second: Path  # unnamed, one exchange
    first_id: str


@pytest.fixture(scope="module")
async def real_sessions(pi_harness: PiHarness) -> AsyncIterator[RealSessions]:
    """Two sessions written by a real pi that keeps them in its default directory."""
    argv = [*pi_harness.runtime.argv, "--mode", "rpc", *pi_model_args()]
    client = await pi_harness.start_client(argv=argv)
    try:
        pi_harness.reset_model()
        pi_harness.model.queue(Reply(text="Docs first."), Reply(text="Done tidying."), Reply(text="Hi again."))
        await client.prompt_and_wait(Prompt(message="Tidy the docs, please"), timeout=30)
        await client.prompt_and_wait(Prompt(message="And the README"), timeout=30)
        await client.call(SetSessionName(name="Tidy the docs"))
        first = await client.call(GetState())
        await client.call(NewSession())
        await client.prompt_and_wait(Prompt(message="A second session"), timeout=30)
        second = await client.call(GetState())
        place = session_place(argv, pi_harness.env, pi_harness.cwd)
        yield RealSessions(place, Path(first.session_file), Path(second.session_file), first.session_id)
    finally:
        await pi_harness.close_client(client)


def write_lines(path: Path, *lines: Any) -> Path:
    """Each line as JSON (dicts) or verbatim (str/bytes), newline-terminated."""
    with path.open("wb") as handle:
        for line in lines:
            raw = line if isinstance(line, bytes) else (line if isinstance(line, str) else json.dumps(line)).encode()
            handle.write(raw + b"\n")
    return path


HEADER = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2025-03-01T09:00:00.000Z", "cwd": "/w"}


def user(text: Any, entry_id: str = "u1") -> dict[str, Any]:
    return {
        "type": "message", "id": entry_id, "parentId": None, "timestamp": "2025-03-01T09:01:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1740819660000},
    }  # fmt: skip


def info(name: Any, entry_id: str = "i1") -> dict[str, Any]:
    return {"type": "session_info", "id": entry_id, "parentId": None, "timestamp": "2025-03-01T09:02:00.000Z", "name": name}


# --- real files -----------------------------------------------------------------------------------


async def test_pi_keeps_sessions_where_session_place_says(real_sessions: RealSessions) -> None:
    place = real_sessions.place
    assert not place.chosen
    assert real_sessions.first.parent == place.directory
    assert place.directory.parent == place.all_root
    assert place.directory.name.startswith("--") and place.directory.name.endswith("--")


async def test_lists_real_sessions_newest_first(real_sessions: RealSessions) -> None:
    sessions = real_sessions.place.sessions()
    assert [s.path for s in sessions] == [real_sessions.second, real_sessions.first]
    first = sessions[1]
    assert first.id == real_sessions.first_id
    assert first.name == "Tidy the docs"
    assert first.title == "Tidy the docs"
    assert first.first_message == "Tidy the docs, please"
    assert first.cwd == str(real_sessions.place.cwd)
    assert first.size == real_sessions.first.stat().st_size
    second = sessions[0]
    assert second.name is None and second.title == "A second session"


async def test_everywhere_lists_every_folder(real_sessions: RealSessions, tmp_path: Path) -> None:
    other = real_sessions.place.all_root / "--elsewhere--"
    other.mkdir(exist_ok=True)
    copy = shutil.copy(real_sessions.first, other / "copy.jsonl")
    try:
        here = {s.path for s in real_sessions.place.sessions()}
        everywhere = {s.path for s in real_sessions.place.sessions(everywhere=True)}
        assert Path(copy) not in here
        assert here | {Path(copy)} <= everywhere
    finally:
        shutil.rmtree(other)


async def test_latest_session_info_names_the_session(real_sessions: RealSessions, tmp_path: Path) -> None:
    path = Path(shutil.copy(real_sessions.first, tmp_path / "s.jsonl"))
    with path.open("a") as handle:
        handle.write(json.dumps(info("  Renamed  ", "i2")) + "\n")
        # a nested object that looks like session_info (inside tool arguments) is not an entry
        nested = user([{"type": "text", "text": "x"}], "u9")
        nested["message"]["details"] = {"type": "session_info", "name": "nested"}
        handle.write(json.dumps(nested) + "\n")
    assert read_summary(path).name == "Renamed"
    with path.open("a") as handle:
        handle.write(json.dumps(info(None, "i3")) + "\n")
    assert read_summary(path).name is None  # cleared, as pi clears it
    with path.open("a") as handle:
        handle.write(json.dumps(info("half written", "i4"))[:-5])  # no newline: still being written
    assert read_summary(path).name is None


# --- broken and partial files ---------------------------------------------------------------------


def test_broken_lines_are_skipped(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        "",
        HEADER,
        "not json at all {",
        b'{"type":"message","id":"x","message":{"role":"user","content":"\xff\xfe"}}',  # not UTF-8
        {"type": "future_entry_kind", "id": "f1", "parentId": None},
        {"type": "message", "id": "bad", "parentId": None, "timestamp": 5, "message": "not an object"},
        user([{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "u0"),  # no text: skipped
        user([{"type": "text", "text": "  The real first question  "}]),
        info("Named"),
    )
    with path.open("ab") as handle:
        handle.write(b'{"type":"session_info","id":"i9","parentId":null,"name":"cut of')  # partial last line
    summary = read_summary(path)
    assert summary is not None
    assert summary.id == "sess-1" and summary.cwd == "/w"
    assert summary.first_message == "The real first question"
    assert summary.name == "Named"
    assert summary.size == path.stat().st_size


def test_files_that_are_not_sessions(tmp_path: Path) -> None:
    write_lines(tmp_path / "empty.jsonl")
    write_lines(tmp_path / "no-header.jsonl", user("hello"), HEADER)
    write_lines(tmp_path / "garbage.jsonl", "%%%", "also not json")
    (tmp_path / "partial-header.jsonl").write_text(json.dumps(HEADER)[:20])
    write_lines(tmp_path / "notes.txt", HEADER)  # not *.jsonl
    (tmp_path / "dir.jsonl").mkdir()
    write_lines(tmp_path / "ok.jsonl", "junk before the header", HEADER)
    for name in ("empty", "no-header", "garbage", "partial-header"):
        assert read_summary(tmp_path / f"{name}.jsonl") is None, name
    sessions = list_sessions([tmp_path, tmp_path / "missing"])
    assert [s.path.name for s in sessions] == ["ok.jsonl"]
    assert sessions[0].title == "(no messages)"
    assert sessions[0].id == "sess-1"


def test_only_the_start_of_a_big_session_is_decoded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    later = [user(f"message {n} " + "x" * 200, f"m{n}") for n in range(3000)]
    path = write_lines(tmp_path / "big.jsonl", HEADER, user("first one"), *later, info("Big"))
    decoded: list[bytes] = []
    real = session_files._entry_decoder

    class Counting:
        def decode(self, line: bytes) -> Any:
            decoded.append(line)
            return real.decode(line)

    monkeypatch.setattr(session_files, "_entry_decoder", Counting())
    summary = read_summary(path)
    assert summary is not None and summary.first_message == "first one" and summary.name == "Big"
    assert len(decoded) == 1


def test_sorted_by_modification_time(tmp_path: Path) -> None:
    for index, name in enumerate(("old", "new", "middle")):
        path = write_lines(tmp_path / f"{name}.jsonl", {**HEADER, "id": name}, user(name))
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + {"old": 0, "new": 200, "middle": 100}[name]))
    assert [s.id for s in list_sessions([tmp_path])] == ["new", "middle", "old"]


# --- where the sessions are -----------------------------------------------------------------------


def test_default_directory_encodes_the_cwd() -> None:
    agent = Path("/agent")
    assert default_session_dir("/home/ada/my:proj", agent) == Path("/agent/sessions/--home-ada-my-proj--")
    place = session_place(["pi", "--mode", "rpc"], {"HOME": "/home/ada"}, "/home/ada/proj")
    assert place.directory == Path("/home/ada/.pi/agent/sessions/--home-ada-proj--")
    assert place.all_root == Path("/home/ada/.pi/agent/sessions") and not place.chosen
    place = session_place(["pi", "--mode", "rpc"], {"PI_CODING_AGENT_DIR": "~/work-agent", "HOME": "/h"}, "/p")
    assert place.directory == Path("/h/work-agent/sessions/--p--")


def test_session_dir_flag_env_and_settings(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    agent.mkdir()
    env = {"PI_CODING_AGENT_DIR": str(agent), "HOME": str(tmp_path)}
    argv = ["node", "cli.js", "--mode", "rpc", "--model", "m"]
    assert pi_args_of(argv) == ["--model", "m"]

    (agent / "settings.json").write_text(json.dumps({"sessionDir": "~/from-agent"}))
    assert session_place(argv, env, project).directory == tmp_path / "from-agent"
    (project / ".pi" / "settings.json").write_text(json.dumps({"sessionDir": "rel/sessions"}))
    assert session_place(argv, env, project).directory == project / "rel" / "sessions"
    env_dir = {**env, "PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "from-env")}
    assert session_place(argv, env_dir, project).directory == tmp_path / "from-env"
    flagged = [*argv, "--session-dir", "first", "--session-dir", "../second"]
    place = session_place(flagged, env_dir, project)
    assert place.directory == tmp_path / "second" and place.all_root == place.directory and place.chosen
    (project / ".pi" / "settings.json").write_text("{ not json")  # ignored, as an unreadable setting
    assert session_place(argv, env, project).directory == tmp_path / "from-agent"
    same_as_default = [*argv, "--session-dir", str(default_session_dir(project, agent))]
    assert not session_place(same_as_default, env, project).chosen


def test_chosen_directory_filters_this_folder_by_cwd(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    write_lines(shared / "mine.jsonl", {**HEADER, "id": "mine", "cwd": str(tmp_path / "proj")}, user("mine"))
    write_lines(shared / "theirs.jsonl", {**HEADER, "id": "theirs", "cwd": "/somewhere/else"}, user("theirs"))
    place = session_place(["pi", "--mode", "rpc", "--session-dir", str(shared)], {"HOME": str(tmp_path)}, tmp_path / "proj")
    assert [s.id for s in place.sessions()] == ["mine"]
    assert sorted(s.id for s in place.sessions(everywhere=True)) == ["mine", "theirs"]


def test_fixture_sessions_read() -> None:
    """The hand-written fixtures used by the picker and tree tests are valid sessions."""
    named = read_summary(SESSIONS / "branched.jsonl")
    plain = read_summary(SESSIONS / "plain.jsonl")
    assert named is not None and named.name == "Parser refactor"
    assert named.first_message == "Plan the refactor of the parser"
    assert plain is not None and plain.name is None and plain.title == "Explain the build system"
