"""`python -m protocol.hold FOLDER`: the holder, started by a window that found none.

The process the window starts takes the folder's lock (one started at the same time by
another window leaves once that one listens; one started while the last holder leaves
waits for its lock), binds the socket 0600 in a session of its own,
then forks the holder and exits: once the window has waited for it, the socket listens,
and the holder is nobody's child, in no terminal (stdin and stdout on /dev/null, stderr
to `holder.log` in its folder, cut to its last 256 KB at start). It serves until nothing
has been held for a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import socket
import sys
import time
from pathlib import Path

from protocol.hold.holder import LINGER, Holder
from protocol.hold.place import LOCK_NAME, SOCKET_NAME

LOG_KEPT = 256 << 10
TAKE_WAIT = 8.0  # seconds a holder that is leaving may take to let its lock go


def main(argv: list[str]) -> int:
    folder = Path(argv[0])
    os.setsid()
    lock = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    path = folder / SOCKET_NAME
    if not _take(lock, path):
        return 0  # another holder serves this folder
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # (a holder that died left it: the lock is ours)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(os.fspath(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(64)
    if os.fork():
        os._exit(0)  # (the lock goes on with the holder: it is the open file's, shared by the fork)
    _leave_the_terminal(folder)

    def log(line: str) -> None:
        print(time.strftime("%Y-%m-%d %H:%M:%S"), line, file=sys.stderr, flush=True)

    log(f"holder {os.getpid()} serving {path}")
    try:
        linger = float(os.environ.get("PIDECK_HOLD_LINGER") or LINGER)
        asyncio.run(Holder(folder, log, linger=linger).serve(sock))
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # (ours: the lock is held till the process ends)
        log(f"holder {os.getpid()} done")
    return 0


def _take(lock: int, path: Path) -> bool:
    """The folder's lock taken: True; False once another holder listens there. A holder
    that is leaving (it took its socket away, its lock goes with its process) is waited for."""
    deadline = time.monotonic() + TAKE_WAIT
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(os.fspath(path))
            return False
        except OSError:
            if time.monotonic() > deadline:
                return False
        finally:
            probe.close()
        time.sleep(0.02)


def _leave_the_terminal(folder: Path) -> None:
    os.chdir("/")
    null = os.open(os.devnull, os.O_RDWR)
    log_path = folder / "holder.log"
    with contextlib.suppress(OSError):
        if os.lstat(log_path).st_size > LOG_KEPT:
            tail = log_path.read_bytes()[-LOG_KEPT:]
            log_path.write_bytes(tail)
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(log_fd, 2)
    os.close(null)
    os.close(log_fd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
