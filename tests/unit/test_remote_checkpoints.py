"""The checkpoints of a pi on another host, read through app/pi/remote_files.py's scripts (run
here with `sh`, without ssh): opening the Changes view reads every record and copy it needs
in three calls (the session's folder, the records, the copies), and what it read of a copy is not read again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.pi.remote_files import RemoteFiles
from protocol.state.branch_calls import BranchCall, CallKey
from protocol.state.checkpoints import CheckpointStore, Version, record_names


def put(folder: Path, key: CallKey, record: dict[str, object]) -> None:
    call = {"id": key.tool_call_id, "entry": key.entry_id, "index": key.index}
    (folder / "calls" / f"{record_names(key)[0]}.json").write_text(json.dumps({**record, "call": call}))


class CountedFiles(RemoteFiles):
    """RemoteFiles whose scripts run in a local `sh`, counted."""

    def __init__(self) -> None:
        super().__init__(["ssh", "host"], "host")
        self.calls = 0

    def _argv(self, script: str, args: Sequence[str]) -> list[str]:
        self.calls += 1
        return ["sh", "-c", script, "sh", *args]


def test_the_view_reads_all_it_needs_in_three_calls_and_copies_once(tmp_path: Path) -> None:
    folder = tmp_path / "session"
    (folder / "calls").mkdir(parents=True)
    (folder / "blobs").mkdir()
    (folder / "session.json").write_text(json.dumps({"sessionFile": None, "cwd": "/work/project"}))
    calls = [CallKey(f"entry{n}", 1, "call_0") for n in range(20)]
    for n, call in enumerate(calls):
        before, after = f"before {n}\n".encode(), f"after {n}\n".encode()
        for data in (before, after):
            (folder / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
        record = {"v": 1, "tool": "write", "path": f"/work/project/f{n}.txt",
                  "before": {"sha": hashlib.sha256(before).hexdigest()}, "after": {"sha": hashlib.sha256(after).hexdigest()}}
        put(folder, call, record)
    files = CountedFiles()
    store = CheckpointStore(tmp_path, "session", files)
    store.prefetch(calls)
    assert files.calls == 3  # the session's folder chain, the records, the copies
    assert store.cwd() == "/work/project"
    for n, call in enumerate(calls):
        checkpoint = store.get(call)
        assert checkpoint is not None and checkpoint.before is not None and checkpoint.after is not None
        assert store.read(checkpoint.before) == f"before {n}\n".encode()
        assert store.read(checkpoint.after) == f"after {n}\n".encode()
    assert files.calls == 3
    assert store.read(Version(sha="0" * 64)) is None and files.calls == 4  # one not read before is asked for


def test_rewinds_points_read_the_hosts_files_once(tmp_path: Path) -> None:
    from app.pi.file_reverts import FileReverts

    folder = tmp_path / "checkpoints" / "session"
    (folder / "calls").mkdir(parents=True)
    (folder / "blobs").mkdir()
    (folder / "session.json").write_text(json.dumps({"sessionFile": None, "cwd": str(tmp_path)}))
    calls = []
    for n in range(10):
        path = tmp_path / f"f{n}.txt"
        path.write_bytes(b"pi's\n")
        for data in (b"before\n", b"pi's\n"):
            (folder / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
        record = {"v": 1, "tool": "write", "path": str(path), "before": {"sha": hashlib.sha256(b"before\n").hexdigest()},
                  "after": {"sha": hashlib.sha256(b"pi's\n").hexdigest()}}
        key = CallKey(f"entry{n}", 0, "call_0")
        put(folder, key, record)
        calls.append(BranchCall(key, "write", {"path": path.name}))
    files = CountedFiles()
    store = CheckpointStore(tmp_path / "checkpoints", "session", files)
    reverts = FileReverts(lambda: store, lambda: tmp_path, files)
    reverts.prefetch([call.key for call in calls])
    before = files.calls
    current: dict[str, bytes | None | OSError] = {}
    plans = [reverts.plan_calls(calls[start:], current) for start in range(10)]  # ten points, as /rewind plans them
    assert files.calls == before + 1
    assert [len(each) for each in plans] == list(range(10, 0, -1))
    assert all(plan.new == b"before\n" and not plan.problem and plan.conflict is None for each in plans for plan in each)


@pytest.mark.parametrize("where", ["here", "on the host"])
def test_a_file_changed_while_the_question_was_open_is_not_written(tmp_path: Path, where: str) -> None:
    from app.pi.file_reverts import FileReverts, LocalWrites
    from app.pi.remote_files import Changed

    folder = tmp_path / "checkpoints" / "session"
    (folder / "calls").mkdir(parents=True)
    (folder / "blobs").mkdir()
    (folder / "session.json").write_text(json.dumps({"sessionFile": None, "cwd": str(tmp_path)}))
    path = tmp_path / "a.txt"
    path.write_bytes(b"pi's\n")
    for data in (b"before\n", b"pi's\n"):
        (folder / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
    record = {"v": 1, "tool": "write", "path": str(path), "before": {"sha": hashlib.sha256(b"before\n").hexdigest()},
              "after": {"sha": hashlib.sha256(b"pi's\n").hexdigest()}}
    key = CallKey("entry1", 0, "c1")
    put(folder, key, record)
    files = CountedFiles() if where == "on the host" else LocalWrites()
    store = CheckpointStore(tmp_path / "checkpoints", "session", files)
    reverts = FileReverts(lambda: store, lambda: tmp_path, files)
    (plan,) = reverts.plan_calls([BranchCall(key, "write", {"path": "a.txt"})])
    assert plan.new == b"before\n" and plan.conflict is None
    path.write_bytes(b"the user's, while the question was open\n")
    with pytest.raises(Changed):
        reverts.apply(plan)
    assert reverts.rewind([plan], None) == ["a.txt: changed since pideck read it, left as it is"]
    assert path.read_bytes() == b"the user's, while the question was open\n" and not reverts.done
