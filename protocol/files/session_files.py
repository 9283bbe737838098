"""pi's session files on disk: where they are and what a session picker shows of them.

pi's RPC has no command that lists sessions, so `/resume` reads the files itself
(pi docs/session-format.md). Where they are, as pi 1.6.0 decides at start-up:
`--session-dir DIR`, else `PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir`
setting (project `.pi/settings.json` over the agent dir's `settings.json`), else
`<agent dir>/sessions/--<cwd with / \\ : as ->--/`, the agent dir being
`PI_CODING_AGENT_DIR` or `~/.pi/agent`. A chosen directory holds the sessions of
every working directory, so "this folder" filters it by the header's `cwd`.

Reading is tolerant and bounded: lines that are not JSON, not UTF-8 or of an unknown
entry type are skipped (so is a last line still being written); as in pi, a file whose
first readable entry is not a session header is not a session. Only the header and the
first user message are decoded, from the start of the file; the latest `session_info`
(the name) is found by a byte search, so a directory of large sessions lists quickly.
The date shown is the file's modification time.
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from protocol.wire.codec import dec_hook
from protocol.files.config_files import read_json
from protocol.regular_file import open_regular
from protocol.wire.entries import EntryUnion, MessageEntry, SessionHeader, SessionInfoEntry
from protocol.wire.messages import UserMessage, text_of

ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR"

# How far into a file the first user message is looked for (it is normally the 3rd-5th line).
FIRST_MESSAGE_MAX_LINES = 200
FIRST_MESSAGE_MAX_BYTES = 8 << 20
FIRST_MESSAGE_CHARS = 500
HEADER_MAX_BYTES = 1 << 20  # a session header is one short line

_header_decoder = msgspec.json.Decoder(SessionHeader)
_entry_decoder = msgspec.json.Decoder(EntryUnion, dec_hook=dec_hook)
_info_decoder = msgspec.json.Decoder(SessionInfoEntry)
# JSON escapes every quote inside a string, so these bytes only occur as a real key/value pair
# (possibly of a nested object, which then fails to decode as an entry and is passed over).
_SESSION_INFO = re.compile(rb'"type"\s*:\s*"session_info"')


@dataclass(frozen=True)
class SessionSummary:
    """What the session picker shows of one session file."""

    path: Path
    id: str
    cwd: str
    modified: datetime  # the file's modification time (UTC)
    size: int  # bytes
    name: str | None = None  # the latest session_info name; None when never set or cleared
    first_message: str = ""  # text of the first user message, at most FIRST_MESSAGE_CHARS

    @property
    def title(self) -> str:
        return self.name or self.first_message or "(no messages)"


@dataclass(frozen=True)
class SessionPlace:
    """Where pi keeps sessions for one launch of pideck."""

    directory: Path  # this working directory's sessions (when `chosen`, shared: filtered by `cwd`)
    all_root: Path  # every session: `directory` when it was chosen, else `<agent dir>/sessions`
    cwd: Path
    chosen: bool  # `directory` came from --session-dir, the environment or a setting

    def sessions(self, *, everywhere: bool = False) -> list[SessionSummary]:
        """This folder's sessions (or every one), most recently modified first."""
        if everywhere:
            if self.chosen:
                return list_sessions([self.all_root])
            return list_sessions(_subdirectories(self.all_root))
        return list_sessions([self.directory], cwd=self.cwd if self.chosen else None)


def agent_dir(env: Mapping[str, str]) -> Path:
    value = env.get(ENV_AGENT_DIR)
    return _expand(value, env) if value else _home(env) / ".pi" / "agent"


def default_session_dir(cwd: str | os.PathLike[str], agent: Path) -> Path:
    """pi's per-working-directory folder: `<agent>/sessions/--home-me-project--`."""
    text = os.path.abspath(cwd)
    text = re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", text))
    return agent / "sessions" / f"--{text}--"


def pi_args_of(argv: Sequence[str]) -> list[str]:
    """The arguments pideck passes to pi: what follows `--mode rpc` in the child's argv."""
    for index in range(len(argv) - 1):
        if argv[index] == "--mode" and argv[index + 1] == "rpc":
            return list(argv[index + 2 :])
    return list(argv)


def session_place(
    argv: Sequence[str], env: Mapping[str, str], cwd: str | os.PathLike[str], *, here: str | os.PathLike[str] | None = None
) -> SessionPlace:
    """Where the pi started with `argv`, `env` in `cwd` reads and writes its sessions.

    `here` is pi's working directory now, when it differs from `cwd` (after a switch to a
    session of another directory): "this folder" is then its sessions. The session
    directory itself was settled at start-up, from `cwd`."""
    base = Path(os.path.abspath(cwd))
    now = Path(os.path.abspath(here)) if here is not None else base
    args = pi_args_of(argv)
    flag: str | None = None
    for index, arg in enumerate(args[:-1]):
        if arg == "--session-dir":
            flag = args[index + 1]  # the last one wins, as in pi
    agent = base / agent_dir(env)
    setting = pi_setting("sessionDir", base, agent)
    chosen = flag or env.get(ENV_SESSION_DIR) or (setting if isinstance(setting, str) and setting else None)
    directory = Path(os.path.normpath(base / _expand(chosen, env))) if chosen else None
    if directory is not None and directory != default_session_dir(base, agent):
        return SessionPlace(directory=directory, all_root=directory, cwd=now, chosen=True)
    return SessionPlace(directory=default_session_dir(now, agent), all_root=agent / "sessions", cwd=now, chosen=False)


def list_sessions(directories: Iterable[Path], *, cwd: Path | None = None) -> list[SessionSummary]:
    """The sessions (`*.jsonl`) in `directories`, newest first; with `cwd`, only those started there."""
    found: list[SessionSummary] = []
    for directory in directories:
        try:
            files = [entry for entry in os.scandir(directory) if entry.name.endswith(".jsonl") and entry.is_file()]
        except OSError:
            continue
        for entry in files:
            summary = read_summary(Path(entry.path))
            if summary is None:
                continue
            if cwd is not None and not _same_dir(summary.cwd, cwd):
                continue
            found.append(summary)
    found.sort(key=lambda s: (s.modified, s.path.name), reverse=True)
    return found


def read_summary(path: Path) -> SessionSummary | None:
    """The picker's view of one session file, or None if it is not a readable session."""
    try:
        with open_regular(path) as handle:
            stat = os.fstat(handle.fileno())
            header, first_message = _read_start(handle)
            if header is None:
                return None
            name = _latest_name(handle, stat.st_size)
    except OSError:
        return None
    return SessionSummary(
        path=path,
        id=header.id,
        cwd=header.cwd,
        modified=datetime.fromtimestamp(stat.st_mtime, UTC),
        size=stat.st_size,
        name=name,
        first_message=first_message,
    )


def session_cwd(path: str | os.PathLike[str], launch_cwd: Path) -> Path | None:
    """The working directory pi runs in for the session file `path`: its header's `cwd`
    (relative to pi's launch directory), or the launch directory when the header records
    none. None when the file is not on disk (a new session, until pi writes its first
    answer) or its first line is not a session header: pi then keeps the directory it has."""
    try:
        with open_regular(path) as handle:
            line = handle.readline(HEADER_MAX_BYTES)
    except OSError:
        return None
    try:
        header = _header_decoder.decode(line)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: JSON nested too deep to decode
        return None
    return launch_cwd / header.cwd if header.cwd else launch_cwd


def _read_start(handle: BinaryIO) -> tuple[SessionHeader | None, str]:
    """The header (the first readable line) and the first user message's text."""
    header: SessionHeader | None = None
    read = 0
    for number, line in enumerate(handle):
        read += len(line)
        if number >= FIRST_MESSAGE_MAX_LINES or read > FIRST_MESSAGE_MAX_BYTES:
            break
        if not line.strip():
            continue
        if header is None:
            try:
                header = _header_decoder.decode(line)
            except (msgspec.DecodeError, RecursionError):
                if _is_json(line):
                    return None, ""  # pi: a file whose first entry is not a header is not a session
            continue
        try:
            entry = _entry_decoder.decode(line)
        except (msgspec.DecodeError, RecursionError):
            continue  # not JSON, not UTF-8, an entry type pideck does not know, or nested too deep
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            text = text_of(entry.message.content).strip()
            if text:
                return header, text[:FIRST_MESSAGE_CHARS]
    return header, ""


def _latest_name(handle: BinaryIO, size: int) -> str | None:
    """The name set by the last readable `session_info` line (None when cleared or never set)."""
    if size == 0:
        return None
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        for match in reversed(list(_SESSION_INFO.finditer(data))):
            start = data.rfind(b"\n", 0, match.start()) + 1
            end = data.find(b"\n", match.end())
            end = len(data) if end < 0 else end
            try:
                info = _info_decoder.decode(data[start:end])
            except (msgspec.DecodeError, RecursionError):
                continue
            return (info.name or "").strip() or None
    return None


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except RecursionError:
        return True  # JSON, nested too deep to read
    except ValueError:
        return False
    return True


def _same_dir(recorded: str, cwd: Path) -> bool:
    return bool(recorded) and os.path.abspath(recorded) == str(cwd)


def _subdirectories(root: Path) -> list[Path]:
    try:
        return sorted(Path(entry.path) for entry in os.scandir(root) if entry.is_dir())
    except OSError:
        return []


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def _expand(value: str, env: Mapping[str, str]) -> Path:
    """`~` and `~/x` as pi expands them (other `~user` forms are left as they are)."""
    if value == "~":
        return _home(env)
    if value.startswith("~/"):
        return _home(env) / value[2:]
    return Path(value)


def pi_setting(name: str, cwd: Path, agent: Path) -> Any:
    """One of pi's settings (a dotted name reaches into an object: `terminal.images`): the
    project's `.pi/settings.json` over the agent dir's; None if neither sets it (or cannot
    be read)."""
    for path in settings_files(cwd, agent):
        try:
            value = read_json(path)
            for key in name.split("."):
                value = value.get(key)
        except (OSError, ValueError, AttributeError):
            continue
        if value is not None:
            return value
    return None


def settings_files(cwd: Path, agent: Path) -> tuple[Path, Path]:
    """pi's settings files, the project's first."""
    return cwd / ".pi" / "settings.json", agent / "settings.json"


def settings_problems(cwd: Path, agent: Path) -> list[str]:
    """Why pi's settings files that are there cannot be used (each is left out)."""
    problems = []
    for path in settings_files(cwd, agent):
        try:
            value = read_json(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"{path} cannot be read ({exc.strerror or exc})")
            continue
        except ValueError as exc:
            problems.append(f"{path}: {exc}")
            continue
        if not isinstance(value, dict):
            problems.append(f"{path} is not a JSON object")
    return problems
