"""The checkpoints pideck's pi extension (app/checkpoints.ts) takes around each `edit` and
`write`: what the file held before the call and after it, by tool call id.

They live under pideck's state directory, outside the project, one folder per pi session
(its id). Reads are bounded: a record over `MAX_RECORD` bytes or a blob over `MAX_BLOB`
is treated as missing, and every field is checked before use.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

MAX_RECORD = 64 * 1024
MAX_BLOB = 32 * 1024 * 1024 + 1  # the extension copies files up to 32 MiB
EPHEMERAL_DAYS = 2  # a session without a file (--no-session) keeps its checkpoints this long


def default_root() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "pideck" / "checkpoints"


@dataclass(frozen=True, slots=True)
class Version:
    """What a file held at one moment: `absent`, or the bytes with `sha`, or not copied (`skipped` says why)."""

    absent: bool = False
    sha: str = ""
    skipped: str = ""

    @property
    def known(self) -> bool:
        return self.absent or bool(self.sha)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    tool: str
    path: str  # absolute, as the extension resolved pi's argument
    before: Version
    after: Version | None  # None: the call had not finished when it was read
    failed: bool = False


def _version(value: object) -> Version | None:
    if not isinstance(value, dict):
        return None
    if value.get("absent") is True:
        return Version(absent=True)
    sha = value.get("sha")
    if isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha):
        return Version(sha=sha)
    skipped = value.get("skipped")
    return Version(skipped=skipped[:200] if isinstance(skipped, str) else "not copied")


class CheckpointStore:
    """The checkpoints of one pi session."""

    def __init__(self, root: Path, session_id: str) -> None:
        safe = session_id and all(c.isalnum() or c in "-_." for c in session_id) and session_id not in (".", "..")
        self.dir = root / session_id if safe else None

    def get(self, tool_call_id: str) -> Checkpoint | None:
        if self.dir is None:
            return None
        name = hashlib.sha256(tool_call_id.encode("utf-8", "surrogatepass")).hexdigest()
        try:
            with open(self.dir / "calls" / f"{name}.json", "rb") as file:
                raw = file.read(MAX_RECORD + 1)
            if len(raw) > MAX_RECORD:
                return None
            record = json.loads(raw)
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("v") != 1:
            return None
        tool, path, before = record.get("tool"), record.get("path"), _version(record.get("before"))
        if not isinstance(tool, str) or not isinstance(path, str) or not os.path.isabs(path) or before is None:
            return None
        return Checkpoint(tool, path, before, _version(record.get("after")), record.get("failed") is True)

    def read(self, version: Version) -> bytes | None:
        """The bytes of `version` (None when absent, not copied or no longer there)."""
        if self.dir is None or not version.sha:
            return None
        try:
            with open(self.dir / "blobs" / version.sha, "rb") as file:
                data = file.read(MAX_BLOB)
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == version.sha else None


def prune(root: Path, now: float | None = None) -> int:
    """Remove the checkpoints of sessions whose file is gone (deleted, trashed) and of
    sessions without a file older than `EPHEMERAL_DAYS`; how many folders went."""
    now = time.time() if now is None else now
    removed = 0
    try:
        folders = list(os.scandir(root))
    except OSError:
        return 0
    for folder in folders[:10_000]:
        if not folder.is_dir(follow_symlinks=False):
            continue
        meta = Path(folder.path) / "session.json"
        try:
            with open(meta, "rb") as file:
                session_file = json.loads(file.read(MAX_RECORD)).get("sessionFile")
            age = now - meta.stat().st_mtime
        except (OSError, ValueError, AttributeError):
            continue
        gone = not os.path.exists(session_file) if isinstance(session_file, str) else age > EPHEMERAL_DAYS * 86400
        if gone:
            shutil.rmtree(folder.path, ignore_errors=True)
            removed += 1
    return removed
