"""The checkpoints pideck's pi extension (app/pi/checkpoints.ts) takes around each `edit` and
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
    path: str  # absolute, as the extension resolved pi's argument ("" for a bash call's own record)
    before: Version
    after: Version | None  # None: the call had not finished when it was read
    failed: bool = False
    files: tuple[Checkpoint, ...] = ()  # a bash call's: each file it changed
    skipped: str = ""  # a bash call's: why its changes were not tracked
    more: int = 0  # a bash call's files beyond those copied


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


MAX_FORKS = 64  # how far back a fork's parents are followed


def _safe(session_id: object) -> bool:
    return (isinstance(session_id, str) and 0 < len(session_id) <= 200 and session_id not in (".", "..")
            and all(c.isalnum() or c in "-_." for c in session_id))


def _read_json(path: Path) -> object:
    with open(path, "rb") as file:
        raw = file.read(MAX_RECORD + 1)
    if len(raw) > MAX_RECORD:
        raise ValueError("too large")
    return json.loads(raw)


class CheckpointStore:
    """The checkpoints of one pi session, and of the sessions it was forked from (a fork's
    earlier tool calls were made in its parent)."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.root = root
        self.dir = root / session_id if _safe(session_id) else None
        self._chain: list[Path] | None = None
        self._found: dict[str, Path] = {}  # the folder each blob was found in

    def _folders(self) -> list[Path]:
        if self._chain is None:
            chain: list[Path] = []
            folder = self.dir
            while folder is not None and folder not in chain and len(chain) < MAX_FORKS:
                chain.append(folder)
                try:
                    meta = _read_json(folder / "session.json")
                except (OSError, ValueError):
                    if len(chain) == 1:
                        return chain  # no checkpoint in this session yet: looked for again next time
                    break
                parent = meta.get("parent") if isinstance(meta, dict) else None
                folder = self.root / parent if _safe(parent) else None
            self._chain = chain
        return self._chain

    def get(self, tool_call_id: str, path: str = "") -> Checkpoint | None:
        """The call's checkpoint; of a bash call, with `path`, that file's (None when it did not change it)."""
        name = hashlib.sha256(tool_call_id.encode("utf-8", "surrogatepass")).hexdigest()
        for folder in self._folders():
            try:
                record = _read_json(folder / "calls" / f"{name}.json")
            except (OSError, ValueError):
                continue
            checkpoint = self._checkpoint(record)
            if checkpoint is not None and path and checkpoint.tool == "bash":
                real = os.path.realpath(path)  # pi's cwd may be the resolved path of pideck's
                checkpoint = next((file for file in checkpoint.files if os.path.realpath(file.path) == real), None)
            for each in (checkpoint, *(checkpoint.files if checkpoint is not None else ())):
                for version in (each.before, each.after) if each is not None else ():
                    if version is not None and version.sha:
                        self._found[version.sha] = folder
            return checkpoint
        return None

    @staticmethod
    def _checkpoint(record: object) -> Checkpoint | None:
        if not isinstance(record, dict) or record.get("v") != 1:
            return None
        if record.get("tool") == "bash":
            files = record.get("files")
            found = []
            for file in files[:10_000] if isinstance(files, list) else ():
                path, before, after = (file.get("path"), _version(file.get("before")), _version(file.get("after"))) \
                    if isinstance(file, dict) else (None, None, None)
                if isinstance(path, str) and os.path.isabs(path) and before is not None and after is not None:
                    found.append(Checkpoint("bash", os.path.normpath(path), before, after))
            skipped, more = record.get("skipped"), record.get("more")
            return Checkpoint("bash", "", Version(), Version(), files=tuple(found),
                              skipped=skipped[:300] if isinstance(skipped, str) else "",
                              more=more if isinstance(more, int) and not isinstance(more, bool) and more >= 0 else 0)
        tool, path, before = record.get("tool"), record.get("path"), _version(record.get("before"))
        if not isinstance(tool, str) or not isinstance(path, str) or not os.path.isabs(path) or before is None:
            return None
        return Checkpoint(tool, path, before, _version(record.get("after")), record.get("failed") is True)

    def read(self, version: Version) -> bytes | None:
        """The bytes of `version` (None when absent, not copied or no longer there)."""
        folder = self._found.get(version.sha) or self.dir
        if folder is None or not version.sha:
            return None
        try:
            with open(folder / "blobs" / version.sha, "rb") as file:
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
