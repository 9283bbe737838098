"""The checkpoints pideck's pi extension (app/pi/checkpoints.ts) takes around each `edit`,
`write` and `bash`: what the files held before the call and after it, named by where the call
is in the session (`CallKey`: its message's entry id and content index; tool call ids may repeat).

They live under pideck's state directory, outside the project, one folder per pi session
(its id). Reads are bounded: a record over `MAX_RECORD` bytes or a blob over `MAX_BLOB`
is treated as missing, and every field is checked before use. They are read through a
`Files` (this machine's by default; the host's over ssh for a pi there, app/pi/remote_files.py).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # (imported where pi is launched: no msgspec before it is spawned)
    from protocol.state.branch_calls import CallKey

from protocol.regular_file import read_regular
from protocol.state_home import state_dir

MAX_RECORD = 64 * 1024
MAX_BLOB = 32 * 1024 * 1024 + 1  # the extension copies files up to 32 MiB
EPHEMERAL_DAYS = 2  # a session without a file (--no-session) keeps its checkpoints this long


def default_root() -> Path:
    return state_dir() / "checkpoints"


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


class Files(Protocol):
    """Where the files are read: `read` gives None for no file, OSError when it cannot."""

    def read(self, path: str, limit: int) -> bytes | None: ...
    def read_many(self, paths: Iterable[str], limit: int) -> dict[str, bytes | None | OSError]: ...
    def realpath(self, path: str) -> str: ...


class LocalFiles:
    """This machine's files."""

    @staticmethod
    def read(path: str, limit: int) -> bytes | None:
        try:
            return read_regular(path, limit)
        except FileNotFoundError:
            return None

    def read_many(self, paths: Iterable[str], limit: int) -> dict[str, bytes | None | OSError]:
        found: dict[str, bytes | None | OSError] = {}
        for path in paths:
            try:
                found[path] = self.read(path, limit)
            except OSError as exc:
                found[path] = exc
        return found

    @staticmethod
    def realpath(path: str) -> str:
        return os.path.realpath(path)


def _json(raw: bytes | None | OSError) -> object:
    if raw is None:
        raise FileNotFoundError
    if isinstance(raw, OSError):
        raise raw
    return json.loads(raw)


def _read_json(path: Path, files: Files | None = None) -> object:
    """The record at `path`; OSError when there is none or it is too large, ValueError when it is not JSON."""
    return _json((files or LocalFiles()).read(str(path), MAX_RECORD))


class CheckpointStore:
    """The checkpoints of one pi session, and of the sessions it was forked from (a fork's
    earlier tool calls were made in its parent)."""

    def __init__(self, root: Path, session_id: str, files: Files | None = None) -> None:
        self.root = root
        self.dir = root / session_id if _safe(session_id) else None
        self.files: Files = files or LocalFiles()
        self._chain: list[Path] | None = None
        self._found: dict[str, Path] = {}  # the folder each blob was found in
        self._done: dict[CallKey, tuple[Path, Checkpoint]] = {}  # finished calls' records, which do not change
        self._meta: dict[Path, object] = {}

    def cwd(self) -> str | None:
        """pi's working directory, as the session's first checkpoint recorded it."""
        meta = self._session_meta(self.dir) if self.dir is not None else None
        cwd = meta.get("cwd") if isinstance(meta, dict) else None
        return cwd if isinstance(cwd, str) and cwd.startswith("/") else None

    def _session_meta(self, folder: Path) -> object:
        if folder not in self._meta:
            try:
                self._meta[folder] = _read_json(folder / "session.json", self.files)
            except (OSError, ValueError):
                return None  # not written yet: looked for again next time
        return self._meta[folder]

    def prefetch(self, keys: Iterable[CallKey], legacy: frozenset[str] = frozenset()) -> None:
        """Read the records of these calls and the copies they name at once (one connection
        to a remote host each; on this machine, reads wait until they are needed).
        `legacy`: the tool call ids whose records may be named by id alone (see `get`)."""
        if isinstance(self.files, LocalFiles):
            return
        folders = self._folders()
        names = {key: record_names(key, legacy) for key in keys if key not in self._done}
        for folder in folders:
            if not names:
                return
            paths = [str(folder / "calls" / f"{name}.json") for each in names.values() for name in each]
            found = self.files.read_many(paths, MAX_RECORD)
            for key, each in list(names.items()):
                for name in each:
                    try:
                        record = _json(found.get(str(folder / "calls" / f"{name}.json")))
                    except (OSError, ValueError):
                        continue
                    del names[key]
                    checkpoint = self._checkpoint(record, key)
                    if checkpoint is not None and checkpoint.after is not None:
                        self._done[key] = (folder, checkpoint)
                    break
        blobs = {}
        for folder, checkpoint in self._done.values():
            for each in (checkpoint, *checkpoint.files):
                for version in (each.before, each.after):
                    if version is not None and version.sha:
                        blobs.setdefault(version.sha, str(folder / "blobs" / version.sha))
        self.files.read_many(blobs.values(), MAX_BLOB)  # kept by the files' own cache

    def _folders(self) -> list[Path]:
        if self._chain is None:
            chain: list[Path] = []
            folder = self.dir
            while folder is not None and folder not in chain and len(chain) < MAX_FORKS:
                chain.append(folder)
                meta = self._session_meta(folder)
                if meta is None:
                    if len(chain) == 1:
                        return chain  # no checkpoint in this session yet: looked for again next time
                    break
                parent = meta.get("parent") if isinstance(meta, dict) else None
                folder = self.root / parent if _safe(parent) else None
            self._chain = chain
        return self._chain

    def get(self, key: CallKey, path: str = "", legacy: bool = False) -> Checkpoint | None:
        """The call's checkpoint; of a bash call, with `path`, that file's (None when it did not
        change it). `legacy`: the call's id is the only one of its kind in the session, so a
        record named by the id alone (as pideck named them before) is this call's too."""
        found = self._done.get(key)
        if found is None:
            for folder in self._folders():
                for name in record_names(key, frozenset({key.tool_call_id}) if legacy else frozenset()):
                    try:
                        record = _read_json(folder / "calls" / f"{name}.json", self.files)
                    except (OSError, ValueError):
                        continue
                    checkpoint = self._checkpoint(record, key)
                    if checkpoint is not None:
                        found = (folder, checkpoint)
                        if checkpoint.after is not None:
                            self._done[key] = found
                    break
                if found is not None:
                    break
        if found is None:
            return None
        folder, checkpoint = found
        if path and checkpoint.tool == "bash":
            realpath = self.files.realpath
            real = realpath(path)  # pi's cwd may be the resolved path of pideck's
            file = next((file for file in checkpoint.files if realpath(file.path) == real), None)
            checkpoint = file  # type: ignore[assignment]
        for each in (checkpoint, *(checkpoint.files if checkpoint is not None else ())):
            for version in (each.before, each.after) if each is not None else ():
                if version is not None and version.sha:
                    self._found[version.sha] = folder
        return checkpoint

    @staticmethod
    def _checkpoint(record: object, key: CallKey) -> Checkpoint | None:
        """The record's checkpoint, if it is one and of this call (a record that says where its
        call is must say `key`'s place)."""
        if not isinstance(record, dict) or record.get("v") != 1:
            return None
        call = record.get("call")
        if isinstance(call, dict) and "entry" in call and (call.get("entry"), call.get("index")) != (key.entry_id, key.index):
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
            data = self.files.read(str(folder / "blobs" / version.sha), MAX_BLOB)
        except OSError:
            return None
        return data if data is not None and sha256_hex(data) == version.sha else None


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` in hex: a blob's name. (hashlib loads OpenSSL, 6 ms: not
    before pi is spawned, whose launch imports this module.)"""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def record_names(key: CallKey, legacy: frozenset[str] = frozenset()) -> list[str]:
    """The names a call's record may have (under `calls/`, with `.json`): by its place, as
    app/pi/checkpoints.ts names it, then by its id alone when in `legacy`."""
    place = sha256_hex(f"{key.entry_id}\0{key.index}".encode("utf-8", "surrogatepass"))
    names = [f"at-{place}"]
    if key.tool_call_id in legacy:
        names.append(sha256_hex(key.tool_call_id.encode("utf-8", "surrogatepass")))
    return names


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
            session_file = json.loads(read_regular(meta, MAX_RECORD)).get("sessionFile")
            age = now - meta.stat().st_mtime
        except (OSError, ValueError, AttributeError):
            continue
        gone = not os.path.exists(session_file) if isinstance(session_file, str) else age > EPHEMERAL_DAYS * 86400
        if gone:
            shutil.rmtree(folder.path, ignore_errors=True)
            removed += 1
    return removed
