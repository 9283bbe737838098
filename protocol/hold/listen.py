"""The holder's lock and listening socket in its folder: taken when it starts, and taken
again when the folder is removed under it (systemd-logind removes `$XDG_RUNTIME_DIR` at a
user's last logout, a holder and its pis running on).

One holder per folder: it holds `holder.lock` (flock) as long as it serves. A holder
started while another listens leaves; one started while the last leaves (its socket gone,
its lock not yet) waits for that lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from pathlib import Path

from protocol.hold.place import LOCK_NAME, SOCKET_NAME

TAKE_WAIT = 15.0  # seconds a holder that is leaving may take to let its lock go (closing its pis in order)


class Listening:
    """The folder's lock (an open file, flocked) and the socket bound and listening beside it."""

    def __init__(self, folder: Path, lock: int, sock: socket.socket) -> None:
        self.folder = folder
        self.lock = lock
        self.sock = sock
        self.path = folder / SOCKET_NAME
        self._ids = _ids(self.path), _ids(folder / LOCK_NAME)

    def present(self) -> bool:
        """The socket and the lock are still where a window looks for them."""
        return (_ids(self.path), _ids(self.folder / LOCK_NAME)) == self._ids

    def unlink_socket(self) -> None:
        """Take the socket away, if it is still ours: no window connects any more."""
        with contextlib.suppress(OSError):
            if _ids(self.path) == self._ids[0]:
                self.path.unlink()

    def release(self, remove: bool) -> None:
        """Take the socket away (if it is still ours), then, with `remove`, the lock file;
        let the lock go."""
        self.unlink_socket()
        with contextlib.suppress(OSError):
            if remove and _ids(self.folder / LOCK_NAME) == self._ids[1]:
                (self.folder / LOCK_NAME).unlink()
        with contextlib.suppress(OSError):
            os.close(self.lock)


def take(folder: Path, wait: float = TAKE_WAIT) -> Listening | None:
    """The folder's lock and a socket listening there; None once another holder listens
    there (or still holds the lock after `wait` s)."""
    deadline = time.monotonic() + wait
    lock: int | None = None
    while True:
        if lock is None:
            lock = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        state = _lock(lock, folder)
        if state == "taken":
            break
        if state == "removed":  # (a leaving holder's file: the lock that counts is the new file's)
            os.close(lock)
            lock = None
            continue
        if state == "listening" or time.monotonic() > deadline:
            os.close(lock)
            return None
        time.sleep(0.02)
    path = folder / SOCKET_NAME
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # (a holder that died left it: the lock is ours)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(os.fspath(path))
        os.chmod(path, 0o600)
        sock.listen(64)
    except OSError:
        sock.close()
        os.close(lock)
        raise
    finally:
        os.umask(old)
    return Listening(folder, lock, sock)


def _lock(lock: int, folder: Path) -> str:
    """`taken`; `listening` (another holder serves the folder); `busy` (its lock is held:
    it is leaving, or about to listen); `removed` (the file was removed: open it again)."""
    info = os.fstat(lock)
    if _ids(folder / LOCK_NAME) != (info.st_dev, info.st_ino):
        return "removed"
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(os.fspath(folder / SOCKET_NAME))
            return "listening"
        except OSError:
            return "busy"
        finally:
            probe.close()
    return "taken" if _ids(folder / LOCK_NAME) == (info.st_dev, info.st_ino) else "removed"


def _ids(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
