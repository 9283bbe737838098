"""pi's launch with pideck's checkpoint extension (app/pi/checkpoint_launch.py), and the
checkpoints' folders removed by the session's rules (protocol/state/checkpoints.py `prune`)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from app.pi.checkpoint_launch import EXTENSION, checkpoint_root, with_checkpoints
from app.pi.launch import LaunchConfig
from protocol.state.checkpoints import EPHEMERAL_DAYS, prune


def config(tmp_path: Path, *, remote: str | None = None, env: dict[str, str] | None = None) -> LaunchConfig:
    return LaunchConfig(argv=("pi", "--mode", "rpc", "--model", "m", "--", "hi"), env=env or {}, cwd=tmp_path,
                        demo=False, protocol_log=tmp_path / "log", remote=remote)


def test_a_local_pi_loads_the_extension_before_the_users_arguments(tmp_path: Path) -> None:
    launched = with_checkpoints(config(tmp_path, env={"PIDECK_CHECKPOINTS": str(tmp_path / "ck")}))
    assert launched.argv == ("pi", "--mode", "rpc", "-e", str(EXTENSION), "--model", "m", "--", "hi")
    assert checkpoint_root(launched) == tmp_path / "ck" and (tmp_path / "ck").is_dir()
    assert with_checkpoints(launched) == launched  # once


def test_checkpoints_off_or_another_program_load_nothing(tmp_path: Path) -> None:
    other = LaunchConfig(argv=("python", "fake_pi.py", "--mode", "rpc"), env={}, cwd=tmp_path, demo=False,
                         protocol_log=tmp_path / "log")
    for plain in (config(tmp_path, env={"PIDECK_CHECKPOINTS": "off"}), other):
        assert with_checkpoints(plain) == plain and checkpoint_root(plain) is None
    node = replace(other, argv=("/usr/bin/node", "/x/pi-coding-agent/dist/cli.js", "--mode", "rpc"),
                   env={"PIDECK_CHECKPOINTS": str(tmp_path / "ck")})
    assert "-e" in with_checkpoints(node).argv  # the pinned runtime: Node on pi's cli.js


def test_checkpoints_go_when_their_session_file_is_gone_or_an_unsaved_session_is_old(tmp_path: Path) -> None:
    def session(name: str, session_file: str | None, age_days: float = 0) -> Path:
        folder = tmp_path / name
        (folder / "blobs").mkdir(parents=True)
        meta = folder / "session.json"
        meta.write_text(json.dumps({"sessionFile": session_file, "cwd": "/p"}))
        when = 1_000_000_000 - age_days * 86400
        os.utime(meta, (when, when))
        return folder

    kept_file = tmp_path / "kept.jsonl"
    kept_file.write_text("")
    kept = session("a", str(kept_file), age_days=100)
    gone = session("b", str(tmp_path / "deleted.jsonl"))
    fresh = session("c", None, age_days=EPHEMERAL_DAYS - 1)
    old = session("d", None, age_days=EPHEMERAL_DAYS + 1)
    assert prune(tmp_path, now=1_000_000_000) == 2
    assert kept.exists() and fresh.exists() and not gone.exists() and not old.exists()


def test_checkpoint_records_are_checked_and_forks_find_their_parents_copies(tmp_path: Path) -> None:
    import hashlib

    from protocol.state.branch_calls import CallKey
    from protocol.state.checkpoints import CheckpointStore, Version, record_names

    def key(name: str, index: int = 0) -> CallKey:
        return CallKey(f"entry-{name}", index, "call_0")  # the provider's id, the same for every call

    def put(session: str, call: CallKey | str, record: dict[str, object], meta: dict[str, object] | None = None) -> None:
        folder = tmp_path / session
        (folder / "calls").mkdir(parents=True, exist_ok=True)
        (folder / "blobs").mkdir(exist_ok=True)
        if isinstance(call, CallKey):  # named by place, as the extension names them
            name = "at-" + hashlib.sha256(f"{call.entry_id}\0{call.index}".encode()).hexdigest()
            assert record_names(call) == [name]
            record = {**record, "call": {"id": call.tool_call_id, "entry": call.entry_id, "index": call.index}}
        else:  # by the id alone, as pideck named them before
            name = hashlib.sha256(call.encode()).hexdigest()
        (folder / "calls" / f"{name}.json").write_text(json.dumps(record))
        (folder / "session.json").write_text(json.dumps(meta or {"sessionFile": None}))

    data = b"old\n"
    sha = hashlib.sha256(data).hexdigest()
    put("parent", key("c1"), {"v": 1, "tool": "edit", "path": "/p/a.py", "before": {"sha": sha, "size": 4}, "after": {"absent": True}})
    (tmp_path / "parent" / "blobs" / sha).write_bytes(data)
    put("parent", key("bad"), {"v": 1, "tool": "edit", "path": "relative", "before": {"absent": True}})
    put("parent", key("bash", 2), {"v": 1, "tool": "bash", "files": [
        {"path": "/p/b.txt", "before": {"absent": True}, "after": {"sha": sha}}, {"path": 3}, "junk"], "more": 2})
    put("child", key("c2"), {"v": 2}, {"sessionFile": None, "parent": "parent"})
    store = CheckpointStore(tmp_path, "child")
    edit = store.get(key("c1"))
    assert edit is not None and edit.before == Version(sha=sha) and edit.after == Version(absent=True)
    assert store.read(edit.before) == data  # found in the parent's folder
    assert store.get(key("c1", 1)) is None, "another block of the same message"
    assert store.get(key("bad")) is None and store.get(key("c2")) is None and store.get(key("missing")) is None
    bash = store.get(key("bash", 2))
    assert bash is not None and [f.path for f in bash.files] == ["/p/b.txt"] and bash.more == 2
    assert store.get(key("bash", 2), "/p/b.txt") == bash.files[0] and store.get(key("bash", 2), "/p/other") is None
    (tmp_path / "parent" / "blobs" / sha).write_bytes(b"tampered")
    assert store.read(edit.before) is None  # a copy whose bytes do not match is not used
    assert CheckpointStore(tmp_path, "../etc").get(key("c1")) is None

    # a record named by place that says it is another call's is not used
    put("other", key("moved"), {"v": 1, "tool": "write", "path": "/p/c", "before": {"absent": True}, "after": {"absent": True}})
    moved = tmp_path / "other" / "calls"
    [record] = moved.iterdir()
    record.rename(moved / ("at-" + hashlib.sha256(b"entry-elsewhere\x000").hexdigest() + ".json"))
    assert CheckpointStore(tmp_path, "other").get(CallKey("entry-elsewhere", 0, "call_0")) is None

    # a record named by the id alone (pideck's before) is used only for a call whose id is the session's only one
    put("legacy", "call_once", {"v": 1, "tool": "write", "path": "/p/d", "before": {"absent": True}, "after": {"absent": True}})
    once = CallKey("entry-x", 1, "call_once")
    assert CheckpointStore(tmp_path, "legacy").get(once) is None
    found = CheckpointStore(tmp_path, "legacy").get(once, legacy=True)
    assert found is not None and found.path == "/p/d"
