"""Where the holder's socket is, and who may use it.

`$XDG_RUNTIME_DIR/pideck/holder.sock`, else `/tmp/pideck-UID/holder.sock`. The folder is
made 0700 and must be the user's own, a real folder (not a link) that nobody else can
enter, in a parent nobody else may rename it in (the user's, or one others may write only
with the sticky bit, as /tmp); the socket is made 0600. Both ends ask the kernel who is on
the other side (`peer_uid`): the holder refuses a peer of another uid, a window a listener
of another uid, before either reads or sends anything. The folder also holds the holder's
lock and the runs it keeps on disk.
"""

from __future__ import annotations

import functools
import os
import socket
import stat
import struct
import sys
from collections.abc import Mapping
from pathlib import Path

SOCKET_NAME = "holder.sock"
LOCK_NAME = "holder.lock"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux
TMP = Path("/tmp")
SOL_LOCAL, LOCAL_PEERCRED = 0, 1  # macOS and FreeBSD (<sys/un.h>): a struct xucred
XUCRED = struct.Struct("=II")  # its cr_version, cr_uid (the groups that follow are not read)


class UnsafePlace(Exception):
    """The holder's folder is not safe to use (another owner, open to others, a link)."""


def hold_dir(env: Mapping[str, str] | None = None) -> Path:
    """The holder's folder for `env` (default: this process's), made if missing and checked."""
    env = os.environ if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) / "pideck" if runtime and os.path.isabs(runtime) else None
    if base is None or len(os.fsencode(base / SOCKET_NAME)) > MAX_SOCKET_PATH or _unsafe_parent(base.parent, True):
        if (why := _unsafe_parent(TMP, False)) is not None:
            raise UnsafePlace(why)
        base = TMP / f"pideck-{os.getuid()}"
    try:
        os.mkdir(base, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafePlace(f"cannot make {base}: {exc.strerror}") from None
    check_folder(base)
    return base


def socket_path(env: Mapping[str, str] | None = None) -> Path:
    return hold_dir(env) / SOCKET_NAME


def _unsafe_parent(folder: Path, own: bool) -> str | None:
    """Why `folder` may not hold the holder's folder (None: it may): not a folder, not the
    user's (`own`) or root's, or one where others may rename what is in it (writable by
    them without the sticky bit)."""
    try:
        info = os.stat(folder)
    except OSError as exc:
        return f"cannot read {folder}: {exc.strerror}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder"
    if info.st_uid != os.getuid() and (own or info.st_uid != 0):
        return f"{folder} belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        return (f"{folder} may be written by other users without the sticky bit (mode {stat.S_IMODE(info.st_mode):o}): "
                "another user could put their own folder in place of pideck's")
    return None


def check_folder(folder: Path) -> None:
    """UnsafePlace unless `folder` is a real folder of the user's that nobody else may enter."""
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


def peer_way(platform: str | None = None) -> str | None:
    """How this platform tells the uid at the other end of a Unix socket: `SO_PEERCRED`
    (Linux), `LOCAL_PEERCRED` (macOS, FreeBSD), `getpeereid` (the other BSDs, from libc);
    None where there is no way (then nothing is held: the holder could not tell its user's
    windows from anyone's)."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
        return "SO_PEERCRED"
    if platform == "darwin" or platform.startswith("freebsd"):
        return "LOCAL_PEERCRED"
    return "getpeereid" if _getpeereid() is not None else None


def unheld_why() -> str | None:
    """Why pi cannot be held here (None: it can): the platform offers no way to tell whose
    process is at the other end of the holder's socket."""
    if peer_way() is not None:
        return None
    return ("pi runs as pideck's own child here (as with --no-hold): this system offers no way to tell who is at the "
            "other end of a Unix socket (SO_PEERCRED, LOCAL_PEERCRED, getpeereid), which the holder needs to serve "
            "only you")


def peer_uid(sock: socket.socket, way: str | None = None) -> int | None:
    """The uid of the process at the other end of a Unix socket (None where the kernel cannot say)."""
    way = peer_way() if way is None else way
    try:
        if way == "SO_PEERCRED":
            _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,  # type: ignore[attr-defined]
                                                                  struct.calcsize("3i")))
            return uid
        if way == "LOCAL_PEERCRED":
            raw = sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, 256)
            if len(raw) < XUCRED.size:
                return None
            version, uid = XUCRED.unpack_from(raw)
            return uid if version == 0 else None
        if way == "getpeereid" and (call := _getpeereid()) is not None:
            return call(sock.fileno())
    except (OSError, struct.error):
        return None
    return None


def listener_uid_error(sock: socket.socket, path: str) -> str | None:
    """Why a window may not talk to the listener `sock` reached at `path` (None: it is the
    user's own): a window tells it nothing, its environment least of all, before this."""
    uid = peer_uid(sock)
    if uid == os.getuid():
        return None
    if uid is None:
        return f"cannot tell who listens on {path}; pideck does not talk to it"
    return f"{path} is served by another user (uid {uid}); pideck does not talk to it"


@functools.cache
def _getpeereid():  # type: ignore[no-untyped-def]
    """libc's getpeereid(fd) as a function returning the uid (None where libc has none)."""
    try:
        import ctypes
    except ImportError:
        return None
    try:
        function = ctypes.CDLL(None).getpeereid
    except (OSError, AttributeError):
        return None

    def call(fd: int) -> int | None:
        uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
        if function(fd, ctypes.byref(uid), ctypes.byref(gid)) != 0:
            return None
        return uid.value

    return call
