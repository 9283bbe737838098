"""The sessions pideck had open when it last quit, for `pideck --restore`: each one's
folder, `--pi` command and pi arguments (which open its session file with `--session`).

The file is pideck's own, `$XDG_STATE_HOME/pideck/sessions.json` (0600), written whole
(a temporary file renamed over it); reading it is bounded, and a file that is not one
pideck wrote is refused with the reason, never half used.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import msgspec

from protocol.regular_file import TooLarge, read_regular
from protocol.state_home import state_dir

MAX_BYTES = 1 << 20
MAX_SESSIONS = 64


class SavedSession(msgspec.Struct, forbid_unknown_fields=False):
    cwd: str
    pi_args: list[str] = []
    pi: str | None = None  # --pi's command
    name: str = ""


class SavedDesk(msgspec.Struct):
    version: int
    sessions: list[SavedSession]


VERSION = 1
_DECODER = msgspec.json.Decoder(SavedDesk)


class DeskFileError(Exception):
    """The file cannot be read, or is not one pideck wrote; the message says which."""


def desk_path(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "sessions.json"


def save_desk(path: Path, sessions: list[SavedSession]) -> None:
    """Write `sessions` over the file, whole; OSError if it cannot be."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = msgspec.json.encode(SavedDesk(VERSION, sessions[:MAX_SESSIONS]))
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".sessions-")  # (0600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load_desk(path: Path) -> list[SavedSession]:
    """The sessions saved, in their order. Raises DeskFileError."""
    try:
        data = read_regular(path, MAX_BYTES)
    except FileNotFoundError:
        raise DeskFileError(f"no sessions were saved yet ({path} does not exist): quit pideck with "
                            "saved sessions open first") from None
    except TooLarge:
        raise DeskFileError(f"{path} is larger than {MAX_BYTES // 1024} KB: not a file pideck wrote") from None
    except OSError as exc:
        raise DeskFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        desk = _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise DeskFileError(f"{path} is not a list of sessions pideck wrote ({exc})") from None
    if desk.version != VERSION:
        raise DeskFileError(f"{path} was written by another pideck (version {desk.version})")
    if not desk.sessions:
        raise DeskFileError(f"{path} lists no sessions")
    return desk.sessions[:MAX_SESSIONS]
