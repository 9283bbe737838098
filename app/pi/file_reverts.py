"""A pideck session's reverts on the files its pi changed (this machine's, or over ssh the
host's, app/pi/remote_files.py), for the Changes view and /rewind: a hunk or a whole file put
back as it was before the session's change (from pideck's checkpoints,
protocol/state/checkpoints.py), the last revert undone, a file's changes as one patch, and
the note to pi of what was reverted. The session (app/pi/session.py `PiSession.reverts`)
keeps them; a read-only view's read the checkpoints and write nothing.

Nothing is written over a file that no longer holds what pi (or the last revert) left in
it unless the user chose so after seeing the three versions; a revert that cannot be
exact writes nothing. Writes go to a temporary file renamed over the old one (mode kept).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from app.pi.checkpoint_launch import checkpoint_root, remote_files
from app.pi.launch import LaunchConfig
from app.pi.remote_files import Changed
from protocol.state.branch_calls import BranchCall, CallKey, unique_ids
from protocol.state.checkpoints import MAX_BLOB, Checkpoint, CheckpointStore, Files, LocalFiles, default_root
from protocol.state.file_changes import BashFile, Change, FileChanges, display_path
from protocol.wire.entries import Entry
from protocol.state.reverts import Hunk, NotExact, Plan, file_patch, file_plan, hunk_plan, replay

UNKNOWN = object()  # a version pideck has no copy of


@dataclass(frozen=True, slots=True)
class Done:
    plan: Plan
    note: str  # the line of the note to pi


def write_file(path: str, data: bytes | None) -> None:
    """Put `data` in `path` (None: remove it), through a temporary file in the same folder."""
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".pideck-revert-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Writable(Files, Protocol):
    """Files that can be written too: `write` puts `data` in `path` (None: removes it) if
    it holds `expected` (None: no file), else raises Changed."""

    def write(self, path: str, data: bytes | None, expected: bytes | None) -> None: ...


class LocalWrites(LocalFiles):
    """This machine's files, read and written."""

    def write(self, path: str, data: bytes | None, expected: bytes | None) -> None:
        if self.read(path, MAX_BLOB) != expected:
            raise Changed(f"{path} changed since pideck read it: nothing was written")
        write_file(path, data)


@dataclass(slots=True)
class Reverted:
    """The reverts written in one pi session: `done` the latest last (`u` undoes it), `left`
    what the last of them left in each file, by path."""

    done: list[Done] = field(default_factory=list)
    left: dict[str, bytes | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Rewound:
    """A rewind, to undo: the files it wrote and the session pi left for the fork."""

    plans: list[Plan]
    session_file: str | None


class FileReverts:
    """Reverts of one pideck session: `store()` gives the checkpoints of the pi session open
    (None without them), `session()` its id, `cwd()` pi's working directory. What was reverted
    is kept per pi session (a /new or a switch shows none of another's); the last rewind, which
    leaves one pi session for another, across them."""

    def __init__(self, store: Callable[[], CheckpointStore | None], cwd: Callable[[], Path],
                 files: Writable | None = None, session: Callable[[], str] = lambda: "", *, read_only: bool = False) -> None:
        self._store, self._cwd, self._session = store, cwd, session
        self.files: Writable = files or LocalWrites()
        self.read_only = read_only  # a read-only view's: its patches are read, nothing is written
        self.off = "pideck's checkpoints are off"  # why there are none, when there are none
        self._reverted: dict[str, Reverted] = {}  # by pi session id
        self.rewound: Rewound | None = None  # the last rewind, while it can be undone
        self._legacy: frozenset[str] = frozenset()  # ids only one call of the branch has (CheckpointStore.get)

    @property
    def done(self) -> list[Done]:
        """The reverts written in the pi session open, the latest last."""
        return self._reverted.setdefault(self._session(), Reverted()).done

    @property
    def _left(self) -> dict[str, bytes | None]:
        return self._reverted.setdefault(self._session(), Reverted()).left

    def session_entries(self, entries: Sequence[Entry]) -> None:
        """The entries of the session whose checkpoints are read next: a call whose id no other
        call has may find a record named by that id alone (before records were named by place)."""
        self._legacy = unique_ids(entries)

    def _get(self, key: CallKey, path: str = "") -> Checkpoint | None:
        store = self._store()
        return store.get(key, path, legacy=key.tool_call_id in self._legacy) if store is not None else None

    def _read(self, path: str) -> bytes | None:
        """The file's bytes (None: no file); OSError when it cannot be read or is too big."""
        return self.files.read(path, MAX_BLOB)

    def cwd(self) -> Path:
        return self._cwd()

    def prefetch(self, keys: Sequence[CallKey]) -> None:
        """Read these calls' checkpoints at once (from pi's host: one connection, not one a file)."""
        store = self._store()
        if store is not None:
            store.prefetch(keys, self._legacy)

    def _checkpoint(self, change: Change, file: FileChanges) -> Checkpoint | None:
        if not isinstance(change.call, CallKey):
            return None  # a revert pideck made
        return self._get(change.call, os.path.join(self._cwd(), file.path) if change.tool == "bash" else "")

    def _as_cwd_spells_it(self, path: str) -> str:
        """`path` under pideck's cwd as pideck spells it, when it is inside it once symbolic
        links are resolved (pi's own cwd is the resolved one)."""
        cwd = str(self._cwd())
        real_cwd, real = self.files.realpath(cwd), self.files.realpath(path)
        inside = os.path.relpath(real, real_cwd)
        return path if inside == ".." or inside.startswith(".." + os.sep) else os.path.join(cwd, inside)

    def bash_files(self, key: CallKey) -> list[BashFile]:
        """The files a bash call changed, from its checkpoint (for protocol.state.file_changes)."""
        checkpoint = self._get(key)
        if checkpoint is None or checkpoint.tool != "bash":
            return []
        found = []
        for file in checkpoint.files:
            versions, note = [], ""
            for version in (file.before, file.after):
                data = self._bytes(version)
                if data is UNKNOWN:
                    note = f"not copied: {version.skipped}" if version is not None and version.skipped else "its copy is gone"
                versions.append(None if data is UNKNOWN else data)
            found.append(BashFile(self._as_cwd_spells_it(file.path), versions[0], versions[1], note))  # type: ignore[arg-type]
        return found

    def bash_note(self, keys: Sequence[CallKey]) -> str:
        """Why some bash calls' changes are not shown ("" when all are): the first reason, and how many."""
        if not keys:
            return ""
        if self._store() is None:
            return f"Files changed by bash commands are not shown: {self.off}."
        reasons = []
        for key in keys:
            checkpoint = self._get(key)
            if checkpoint is None:
                reasons.append("pideck has no checkpoint of it")
            elif checkpoint.skipped or checkpoint.more:
                reasons.append(checkpoint.skipped or f"it changed {checkpoint.more} files more than pideck copies")
        if not reasons:
            return ""
        count = len(reasons)
        return f"{count} bash command{'s' * (count != 1)} not shown: {reasons[0]}."

    def _bytes(self, version: object) -> object:
        store = self._store()
        if store is None or version is None:
            return UNKNOWN
        if version.absent:  # type: ignore[attr-defined]
            return None
        data = store.read(version)  # type: ignore[arg-type]
        return UNKNOWN if data is None else data

    def path(self, file: FileChanges) -> str:
        first = self._checkpoint(file.changes[0], file)
        return first.path if first is not None else os.path.join(self._cwd(), file.path)

    @staticmethod
    def _last_change(file: FileChanges) -> Change:
        """The last change pi made (pideck's reverts come after it)."""
        return next((change for change in reversed(file.changes) if change.tool != "revert"), file.changes[-1])

    def before(self, file: FileChanges) -> object:
        """What the file held before the session first changed it (None: no file; UNKNOWN)."""
        first = self._checkpoint(file.changes[0], file)
        return self._bytes(first.before) if first is not None else UNKNOWN

    def expected(self, file: FileChanges, path: str) -> object:
        """What the file should hold now: what the last revert or pi's last change left."""
        if path in self._left:
            return self._left[path]
        last = self._checkpoint(self._last_change(file), file)
        return self._bytes(last.after) if last is not None else UNKNOWN

    def patch(self, file: FileChanges) -> tuple[str, str]:
        """The file's changes as one patch, from before the session to now, and a note."""
        path = self.path(file)
        try:
            now = self._read(path)
        except OSError as exc:
            return "", f"cannot read {file.path}: {exc.strerror or exc}"
        before, note = self.before(file), ""
        if before is UNKNOWN:
            try:
                replayed = replay(file.changes, now)
            except NotExact as exc:
                return "", f"pideck cannot tell what {file.path} held before this session: {exc}"
            before = replayed.before
            if replayed.assumed_new:
                note = " (taken as a new file: pideck has no copy of what it held before)"
        return file_patch(file.path, before, now), note  # type: ignore[arg-type]

    def plan_file(self, file: FileChanges) -> Plan:
        path = self.path(file)
        before = self.before(file)
        try:
            now = self._read(path)
        except OSError as exc:
            return Plan(path, file.path, "the whole file", None, None, problem=f"cannot read it: {exc}")
        if before is UNKNOWN:
            first = self._checkpoint(file.changes[0], file)
            why = (f"pideck has no copy of what it held before pi's {file.changes[0].tool} "
                   f"({first.before.skipped})" if first is not None and first.before.skipped
                   else f"pideck never saw what it held before pi's {file.changes[0].tool}")
            return Plan(path, file.path, "the whole file", now, now, problem=why)
        expected = self.expected(file, path)
        return file_plan(file.path, path, before, now if expected is UNKNOWN else expected, now)  # type: ignore[arg-type]

    def plan_hunk(self, file: FileChanges, change: Change, hunk: Hunk) -> Plan:
        if change.created and change is file.changes[0]:
            plan = self.plan_file(file)  # a file the session wrote first: its one hunk is all of it
            return plan
        path = self.path(file)
        try:
            now = self._read(path)
        except OSError as exc:
            return Plan(path, file.path, "a hunk", None, None, problem=f"cannot read it: {exc}")
        expected = self.expected(file, path)
        return hunk_plan(file.path, path, hunk, None if expected is UNKNOWN else expected, now)  # type: ignore[arg-type]

    def apply(self, plan: Plan) -> None:
        """Write what `plan` says; OSError when it cannot be written (Changed: the file
        changed since the plan read it)."""
        self.files.write(plan.path, plan.new, plan.old)
        self._left[plan.path] = plan.new
        if plan.what == "the whole file":
            note = (f"- {plan.label}: removed (the file this session created)" if plan.new is None
                    else f"- {plan.label}: the whole file, back to what it held before this session")
        else:
            note = f"- {plan.label}, {plan.what}: one change undone"
        self.done.append(Done(plan, note))

    def undo(self) -> Plan:
        """Undo the latest revert; ValueError (why) when the file changed since it."""
        if not self.done:
            raise ValueError("there is no revert to undo")
        plan = self.done[-1].plan
        try:
            self.files.write(plan.path, plan.old, plan.new)
        except Changed:
            raise ValueError(f"{plan.label} changed since the revert: it is left as it is") from None
        except OSError as exc:
            raise ValueError(f"cannot write {plan.label}: {exc.strerror or exc}") from None
        self.done.pop()
        self._left[plan.path] = plan.old
        return plan

    def plan_calls(self, calls: Sequence[BranchCall], current: dict[str, bytes | None | OSError] | None = None,
                   ) -> list[Plan]:
        """Every file the calls changed, put back as it was before the first of them; a file
        without a checkpoint of each call cannot be. `current`: what files hold now, by path,
        read once for several plans (filled in here)."""
        cwd = str(self._cwd())
        groups: dict[str, list[Checkpoint | None]] = {}
        plans = []
        for call in calls:
            checkpoint = self._get(call.key)
            given = call.args.get("path") if isinstance(call.args, dict) and call.name != "bash" else ""
            given = given if isinstance(given, str) else ""
            if checkpoint is not None and checkpoint.tool == "bash":
                if checkpoint.skipped or checkpoint.more:
                    plans.append(Plan("", "a bash command", "its changes", None, None,
                                      problem=checkpoint.skipped or f"it changed {checkpoint.more} files more than pideck copies"))
                for file in checkpoint.files:
                    groups.setdefault(file.path, []).append(file)
                continue
            if not given and checkpoint is None:
                continue  # a bash call pideck has no record of: nothing known to put back
            path = checkpoint.path if checkpoint is not None else os.path.join(cwd, given)
            groups.setdefault(os.path.normpath(path), []).append(checkpoint)
        current = {} if current is None else current
        current.update(self.files.read_many([path for path in groups if path not in current], MAX_BLOB))
        for path, checkpoints in groups.items():
            label = display_path(self._as_cwd_spells_it(path), cwd)
            try:
                if isinstance(now := current.get(path), OSError):
                    raise now
            except OSError as exc:
                plans.append(Plan(path, label, "the whole file", None, None, problem=f"cannot read it: {exc}"))
                continue
            first, last = checkpoints[0], checkpoints[-1]
            before = self._bytes(first.before) if first is not None else UNKNOWN
            if before is UNKNOWN or any(checkpoint is None for checkpoint in checkpoints):
                plans.append(Plan(path, label, "the whole file", now, now,
                                  problem="pideck has no copy of what it held then"))
                continue
            expected = self._left[path] if path in self._left else self._bytes(last.after) if last is not None else UNKNOWN
            plans.append(file_plan(label, path, before, now if expected is UNKNOWN else expected, now))  # type: ignore[arg-type]
        return plans

    def rewind(self, plans: Sequence[Plan], session_file: str | None) -> list[str]:
        """Write the plans of a rewind (undoable once); what could not be written, and why."""
        written, failed = [], []
        for plan in plans:
            try:
                self.files.write(plan.path, plan.new, plan.old)
            except Changed:
                failed.append(f"{plan.label}: changed since pideck read it, left as it is")
                continue
            except OSError as exc:
                failed.append(f"{plan.label}: {exc.strerror or exc}")
                continue
            written.append(plan)
        self.rewound = Rewound(written, session_file)
        return failed

    def undo_rewind(self) -> tuple[Rewound, list[str]]:
        """Put back the files of the last rewind; the rewind and the files left as they are
        (changed since it). ValueError when there is none."""
        rewound = self.rewound
        if rewound is None:
            raise ValueError("there is no rewind to undo")
        self.rewound = None
        left = []
        for plan in rewound.plans:
            try:
                self.files.write(plan.path, plan.old, plan.new)
            except Changed:
                left.append(f"{plan.label} (changed since the rewind)")
                continue
            except OSError as exc:
                left.append(f"{plan.label} ({exc.strerror or exc})")
        return rewound, left

    def note(self, since: int) -> str:
        """The message to pi naming the reverts done after the first `since`; "" for none."""
        lines = [done.note for done in self.done[since:]]
        if not lines:
            return ""
        return "I reverted these changes:\n" + "\n".join(lines) + "\nWhy: "  # (yours, or those of my !commands)




def session_reverts(config: LaunchConfig, session: Callable[[], str], cwd: Callable[[], Path]) -> FileReverts:
    """The reverts of a pideck session whose pi `config` launched (on its host's files for a pi
    over ssh), on the checkpoints of the pi session `session()` names."""
    stores: dict[str, CheckpointStore] = {}
    files = remote_files(config)  # None: pi runs here

    def store() -> CheckpointStore | None:
        root, session_id = checkpoint_root(config), session()
        if root is None or not session_id:
            return None
        if session_id not in stores:
            stores.clear()
            stores[session_id] = CheckpointStore(root, session_id, files)
        return stores[session_id]

    def pi_cwd() -> Path:
        """pi's folder: on its host, the one its checkpoints recorded."""
        there = (found := store()) is not None and files is not None and found.cwd()
        return Path(there) if there else cwd()

    reverts = FileReverts(store, pi_cwd, files, session)
    if config.remote is not None and checkpoint_root(config) is None and config.env.get("PIDECK_CHECKPOINTS") != "off":
        reverts.off = (f"pideck could not put its checkpoint extension on {config.remote} when pi started "
                       "(its ssh asks for no password: a key ssh-agent holds, or a ControlMaster connection)")
    return reverts


def viewed_reverts(config: LaunchConfig, session: Callable[[], str], cwd: Callable[[], Path]) -> FileReverts:
    """What a read-only view (`pideck view`) reads of the session it shows, never writing:
    the checkpoints this machine keeps of it (where pideck ran it), for exact diffs and patches."""
    chosen = config.env.get("PIDECK_CHECKPOINTS")
    root = None if chosen == "off" else Path(chosen) if chosen else default_root()
    stores: dict[str, CheckpointStore] = {}

    def store() -> CheckpointStore | None:
        session_id = session()
        if root is None or not session_id:
            return None
        return stores.setdefault(session_id, CheckpointStore(root, session_id))

    return FileReverts(store, cwd, session=session, read_only=True)
