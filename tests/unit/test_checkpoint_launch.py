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

    from protocol.state.checkpoints import CheckpointStore, Version

    def put(session: str, call: str, record: object, meta: dict[str, object] | None = None) -> None:
        folder = tmp_path / session
        (folder / "calls").mkdir(parents=True, exist_ok=True)
        (folder / "blobs").mkdir(exist_ok=True)
        name = hashlib.sha256(call.encode()).hexdigest()
        (folder / "calls" / f"{name}.json").write_text(json.dumps(record))
        (folder / "session.json").write_text(json.dumps(meta or {"sessionFile": None}))

    data = b"old\n"
    sha = hashlib.sha256(data).hexdigest()
    put("parent", "c1", {"v": 1, "tool": "edit", "path": "/p/a.py", "before": {"sha": sha, "size": 4}, "after": {"absent": True}})
    (tmp_path / "parent" / "blobs" / sha).write_bytes(data)
    put("parent", "bad", {"v": 1, "tool": "edit", "path": "relative", "before": {"absent": True}})
    put("parent", "bash", {"v": 1, "tool": "bash", "files": [
        {"path": "/p/b.txt", "before": {"absent": True}, "after": {"sha": sha}}, {"path": 3}, "junk"], "more": 2})
    put("child", "c2", {"v": 2}, {"sessionFile": None, "parent": "parent"})
    store = CheckpointStore(tmp_path, "child")
    edit = store.get("c1")
    assert edit is not None and edit.before == Version(sha=sha) and edit.after == Version(absent=True)
    assert store.read(edit.before) == data  # found in the parent's folder
    assert store.get("bad") is None and store.get("c2") is None and store.get("missing") is None
    bash = store.get("bash")
    assert bash is not None and [f.path for f in bash.files] == ["/p/b.txt"] and bash.more == 2
    assert store.get("bash", "/p/b.txt") == bash.files[0] and store.get("bash", "/p/other") is None
    (tmp_path / "parent" / "blobs" / sha).write_bytes(b"tampered")
    assert store.read(edit.before) is None  # a copy whose bytes do not match is not used
    assert CheckpointStore(tmp_path, "../etc").get("c1") is None
