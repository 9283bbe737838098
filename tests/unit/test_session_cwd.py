"""pi's working directory after a session switch: pi runs where the session it switched to
was recorded (its header's `cwd`), and pideck follows it for `@` path completion and for
/resume's "this folder" list. Driven through pideck against the REAL pi."""

from __future__ import annotations

import json
from pathlib import Path


from protocol.files.session_files import session_cwd, session_place


def test_session_cwd_reads_the_header(tmp_path: Path) -> None:
    launch = tmp_path / "launch"

    def session(name: str, first_line: bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(first_line + b'\n{"type":"model_change","id":"x","parentId":null}\n')
        return path

    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-03-01T10:00:00.000Z"}
    assert session_cwd(session("abs.jsonl", json.dumps({**header, "cwd": "/srv/project"}).encode()), launch) == Path("/srv/project")
    assert session_cwd(session("rel.jsonl", json.dumps({**header, "cwd": "sub/dir"}).encode()), launch) == launch / "sub" / "dir"
    assert session_cwd(session("none.jsonl", json.dumps(header).encode()), launch) == launch, "pi falls back to where it started"
    assert session_cwd(tmp_path / "not-written-yet.jsonl", launch) is None
    assert session_cwd(session("entry.jsonl", b'{"type":"message","id":"m"}'), launch) is None
    assert session_cwd(session("garbage.jsonl", b"\xff\xfe not json"), launch) is None
    assert session_cwd(session("empty.jsonl", b""), launch) is None


def test_this_folder_follows_pi_but_the_session_directory_is_settled_at_start(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    start, moved = tmp_path / "start", tmp_path / "moved"
    plain = session_place(["pi", "--mode", "rpc"], env, start, here=moved)
    assert plain.directory == tmp_path / ".pi" / "agent" / "sessions" / f"--{str(moved)[1:].replace('/', '-')}--"
    assert plain.cwd == moved and not plain.chosen
    chosen = session_place(["pi", "--mode", "rpc", "--session-dir", "rel"], env, start, here=moved)
    assert chosen.directory == start / "rel" and chosen.cwd == moved and chosen.chosen
    assert session_place(["pi", "--mode", "rpc"], env, start).cwd == start
