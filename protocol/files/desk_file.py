"""The sessions each pideck had open when it quit (its desk), for `pideck --restore`: each
one's folder, `--pi` command, pi arguments (which open its session file with `--session`)
and the unsent draft in its prompt. A window that leaves its pis held saves them too, each
with its held pi's number and its holder's pid: if the holder dies, `--restore` resumes them.

Each quit that leaves saved sessions writes a desk of its own into
`$XDG_STATE_HOME/pideck/desks/` (0600, written whole: a temporary file renamed into place),
so two pidecks quitting never write over each other's; the newest MAX_DESKS are kept, and
`sessions.json` beside the folder (the one desk earlier pideck versions kept) is read as one
more. A pideck restored from a desk holds a lock on it (`flock`) until it quits, so another
`--restore` meanwhile passes it by; at its quit it writes its own desk first, then puts in
the restored one's place the sessions it could not open, or removes it.

Reading never waits (a FIFO is refused) and is bounded; a file that is not one pideck wrote
is refused with the reason, never half used.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import msgspec

from protocol.regular_file import open_regular
from protocol.state_home import state_dir

MAX_SESSIONS = 64
MAX_DRAFT_BYTES = 1 << 20  # a session's draft is cut to this many bytes of UTF-8
MAX_DRAFTS_BYTES = 8 << 20  # and a desk's drafts to this many in all
MAX_BYTES = 2 * MAX_DRAFTS_BYTES + (1 << 20)  # a desk file (JSON at most doubles the drafts' size)
MAX_DESKS = 50  # desks kept; the oldest beyond go as a quit writes a new one
MAX_FILES = 1000  # files of the desks' folder looked at
OLD_DESK = "sessions.json"


class SavedSession(msgspec.Struct, forbid_unknown_fields=False):
    cwd: str
    pi_args: list[str] = []
    pi: str | None = None  # --pi's command
    name: str = ""
    draft: str = ""  # the prompt's unsent text
    held_number: int = 0  # its pi was left held (a detach, a hang-up): that pi's number in the holder, and
    held_by: int = 0  # the holder's pid (--restore attaches to it while it is held, and resumes the session once not)


class SavedDesk(msgspec.Struct):
    version: int
    sessions: list[SavedSession]


VERSION = 1
_DECODER = msgspec.json.Decoder(SavedDesk)


class DeskFileError(Exception):
    """No desk can be read or opened; the message says why."""


@dataclass
class Desk:
    """A desk saved at a quit, as `--restore list` shows it."""

    path: Path
    saved_at: float  # its file's modification time
    sessions: list[SavedSession]  # [] when it cannot be used
    problem: str  # why it cannot be used; "" when it can
    in_use: bool  # another pideck restored it and has not quit


def desks_dir(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "desks"


def save_desk(folder: Path, sessions: list[SavedSession]) -> Path:
    """Write `sessions` as a new desk in `folder`; its path. The oldest desks beyond MAX_DESKS
    that no pideck has open are removed. OSError if it cannot be written."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"desk-{time.time_ns():020d}-{os.getpid()}.json"
    _write(path, sessions)
    for old in _files(folder.parent)[MAX_DESKS:]:
        if old.parent == folder and not _in_use(old):
            old.unlink(missing_ok=True)
    return path


def drop_held(env: Mapping[str, str], pis: set[tuple[int, int]]) -> None:
    """Take out of the desks (none open) the sessions left held that name a pi among `pis`
    (number, holder's pid): a newer desk names them, or the pi was stopped on purpose. A desk
    left with none is removed; the others keep their time."""
    for desk in desks(env):
        if desk.problem or desk.in_use or desk.path.parent != desks_dir(env):
            continue
        left = [session for session in desk.sessions if (session.held_number, session.held_by) not in pis]
        if len(left) == len(desk.sessions):
            continue
        with contextlib.suppress(OSError):
            if left:
                _write(desk.path, left)
                os.utime(desk.path, (desk.saved_at, desk.saved_at))
            else:
                desk.path.unlink(missing_ok=True)


def cut_drafts(drafts: list[str]) -> tuple[list[str], bool]:
    """`drafts` cut to MAX_DRAFT_BYTES each and MAX_DRAFTS_BYTES in all (at a character's
    end); whether one was cut."""
    kept, room, cut = [], MAX_DRAFTS_BYTES, False
    for draft in drafts:
        data = draft.encode("utf-8", "surrogatepass")
        bound = min(MAX_DRAFT_BYTES, room)
        if len(data) > bound:
            data, cut = data[:bound], True
        kept.append(data.decode("utf-8", "ignore"))
        room -= len(data)
    return kept, cut


def load_desk(path: Path) -> list[SavedSession]:
    """The sessions of the desk at `path`, in their order. Raises DeskFileError."""
    try:
        with open_regular(path) as handle:
            return _read(handle, path)
    except FileNotFoundError:
        raise DeskFileError(f"{path} does not exist") from None
    except OSError as exc:
        raise DeskFileError(f"cannot read {path}: {exc.strerror or exc}") from None


def desks(env: Mapping[str, str]) -> list[Desk]:
    """Every desk saved, newest first (as `--restore N` numbers them)."""
    found = []
    for path in _files(state_dir(env)):
        try:
            saved_at = path.stat().st_mtime
        except OSError:
            continue  # gone meanwhile
        try:
            sessions, problem = load_desk(path), ""
        except DeskFileError as exc:
            sessions, problem = [], str(exc)
        found.append(Desk(path, saved_at, sessions, problem, in_use=not problem and _in_use(path)))
    return found


class TakenDesk:
    """A desk this pideck restored: locked until `release`, or until the process ends."""

    def __init__(self, path: Path, sessions: list[SavedSession], handle: BinaryIO) -> None:
        self.path = path
        self.sessions = sessions
        self._handle = handle

    def release(self, left: list[SavedSession]) -> None:
        """Put `left` (the sessions that could not be opened) in the desk's place, keeping its
        time, or remove it when there are none; then unlock it."""
        try:
            if left:
                saved_at = os.fstat(self._handle.fileno()).st_mtime
                _write(self.path, left)
                os.utime(self.path, (saved_at, saved_at))
            else:
                self.path.unlink(missing_ok=True)
        except OSError:
            pass  # kept as it was: its sessions open again with the next --restore
        finally:
            self._handle.close()

    def keep(self) -> None:
        """Unlock the desk, as it was."""
        self._handle.close()


def take_desk(env: Mapping[str, str], number: int | None = None) -> TakenDesk:
    """The `number`th newest desk, else the newest no other pideck has open, read and locked.
    Raises DeskFileError saying why none can be taken."""
    found = desks(env)
    if not found:
        raise DeskFileError("no sessions were saved yet: quitting pideck with saved sessions open saves them")
    if number is not None and number > len(found):
        count = f"{len(found)} desk{'s' if len(found) > 1 else ''}"
        raise DeskFileError(f"{count} saved, not {number} (pideck --restore list shows them)")
    chosen = list(enumerate(found, 1))
    if number is not None:
        chosen = chosen[number - 1 : number]
    passed = []
    for at, desk in chosen:
        taken = None if desk.problem or desk.in_use else _take(desk.path)
        if taken is not None:
            return taken
        passed.append(f"{at}: {desk.problem or 'open in another pideck'}")
    raise DeskFileError(f"no desk can be opened ({'; '.join(passed)})")


def _files(state: Path) -> list[Path]:
    """The desks' files (and the old single desk), newest first."""
    folder = state / "desks"
    try:
        with os.scandir(folder) as entries:
            paths = [Path(entry.path) for _, entry in zip(range(MAX_FILES), entries)
                     if entry.name.startswith("desk-") and entry.name.endswith(".json")]
    except OSError:
        paths = []
    if os.path.lexists(state / OLD_DESK):
        paths.append(state / OLD_DESK)
    return sorted(paths, key=_saved_at, reverse=True)


def _saved_at(path: Path) -> tuple[float, str]:
    try:
        return path.stat().st_mtime, path.name
    except OSError:
        return 0.0, path.name


def _write(path: Path, sessions: list[SavedSession]) -> None:
    """Write `sessions` over `path`, whole (0600); OSError if it cannot be."""
    data = msgspec.json.encode(SavedDesk(VERSION, sessions[:MAX_SESSIONS]))
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".desk-")  # (0600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _read(handle: BinaryIO, path: Path) -> list[SavedSession]:
    data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise DeskFileError(f"{path} is larger than {MAX_BYTES >> 20} MiB: not a file pideck wrote")
    try:
        desk = _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise DeskFileError(f"{path} is not a desk pideck wrote ({exc})") from None
    if desk.version != VERSION:
        raise DeskFileError(f"{path} was written by another pideck (version {desk.version})")
    if not desk.sessions:
        raise DeskFileError(f"{path} lists no sessions")
    return desk.sessions[:MAX_SESSIONS]


def _in_use(path: Path) -> bool:
    """Another pideck holds the desk's lock."""
    try:
        with open_regular(path) as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def _take(path: Path) -> TakenDesk | None:
    """The desk at `path` read and locked; None if another pideck took it meanwhile."""
    try:
        handle = open_regular(path)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DeskFileError("taken") from None
        except OSError:
            pass  # a file system without locks: taken all the same
        if os.stat(path).st_ino != os.fstat(handle.fileno()).st_ino:
            raise DeskFileError("replaced")  # its pideck quit meanwhile and wrote it anew
        return TakenDesk(path, _read(handle, path), handle)
    except (DeskFileError, OSError):
        handle.close()
        return None
