"""Where the holder's socket is, and who may use it.

`$XDG_RUNTIME_DIR/pideck/holder.sock`, else `/tmp/pideck-UID/holder.sock`. The folder is
made 0700 and must be the user's own, a real folder (not a link) that nobody else can
enter; the socket is made 0600; and the holder asks the kernel who each peer is
(`SO_PEERCRED`) and refuses any other uid. The folder also holds the holder's lock and the
runs it keeps on disk.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from collections.abc import Mapping
from pathlib import Path

SOCKET_NAME = "holder.sock"
LOCK_NAME = "holder.lock"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux


class UnsafePlace(Exception):
    """The holder's folder is not safe to use (another owner, open to others, a link)."""


def hold_dir(env: Mapping[str, str] | None = None) -> Path:
    """The holder's folder for `env` (default: this process's), made if missing and checked."""
    env = os.environ if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) / "pideck" if runtime and os.path.isabs(runtime) else None
    if base is None or len(os.fsencode(base / SOCKET_NAME)) > MAX_SOCKET_PATH or not _usable(base.parent):
        base = Path("/tmp") / f"pideck-{os.getuid()}"
    try:
        os.mkdir(base, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafePlace(f"cannot make {base}: {exc.strerror}") from None
    _check(base)
    return base


def socket_path(env: Mapping[str, str] | None = None) -> Path:
    return hold_dir(env) / SOCKET_NAME


def _usable(folder: Path) -> bool:
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def _check(folder: Path) -> None:
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise UnsafePlace(f"cannot read {folder}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePlace(f"{folder} is not a folder")
    if info.st_uid != os.getuid():
        raise UnsafePlace(f"{folder} belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o077:
        raise UnsafePlace(f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
                          "pideck wants 700 there")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (None where the kernel cannot say)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return None
    return uid
