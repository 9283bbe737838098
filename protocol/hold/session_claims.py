"""One pi per session file: the claim of the pi that has a session file open.

pi's session file has no lock of its own: two pis on one file both append to it, each
with its own tree in memory, and the file forks. So whoever owns a pi pideck runs claims
its file as soon as pi says which it is (`get_state`): the holder for a held pi, the window
for a pi of its own. A claim is an `flock` on `$XDG_STATE_HOME/pideck/claims/KEY.lock`, KEY
a hash of the host pi runs on ("" for this one) and the file's path, and the lock file says
who holds it (JSON: `pid`, and for a held pi the holder's `number` of it). The kernel lets
go of the lock when its owner dies: no claim outlives the process that owns the pi.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol.state_home import state_dir

MOST_OWNER = 4096  # bytes of a lock file read for its owner
TRIES = 20  # looks again at a lock held by one who has not said who (1 ms apart)


def claims_dir(env: Mapping[str, str] | None = None) -> Path:
    folder = state_dir(env) / "claims"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def _path(session_file: str, host: str | None, env: Mapping[str, str] | None) -> Path:
    where = session_file if host else os.path.realpath(session_file)
    key = hashlib.sha256(f"{host or ''}\0{where}".encode("utf-8", "surrogateescape")).hexdigest()[:40]
    return claims_dir(env) / f"{key}.lock"


class Claim:
    """This process's claim on `session_file` (of `host`), until `release`."""

    def __init__(self, path: Path, fd: int, session_file: str, host: str | None) -> None:
        self.path = path
        self.session_file = session_file
        self.host = host
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == os.fstat(fd).st_ino:  # (still its lock file: no one else's)
                os.unlink(self.path)
        os.close(fd)


class Claimant:
    """The claim one owner of a pi (the holder, or a window) has on the session file pi has
    open: one at a time, moved as pi switches files, released when pi ends."""

    def __init__(self, host: str | None, env: Mapping[str, str] | None) -> None:
        self.host = host
        self.env = env
        self.claim: Claim | None = None

    @property
    def session_file(self) -> str | None:
        return self.claim.session_file if self.claim is not None else None

    def move(self, session_file: str | None, who: Mapping[str, Any]) -> dict[str, Any] | None:
        """pi has `session_file` open now (None: it did not say; "": none): claimed for
        `who`, None; or what the claim of whoever had it already says, with the file.
        OSError when the claims' folder cannot be written."""
        if session_file is None or session_file == self.session_file:
            return None
        self.release()
        if not session_file:
            return None
        got = claim(session_file, self.host, who, self.env)
        if isinstance(got, Claim):
            self.claim = got
            return None
        return {**got, "session_file": session_file}

    def release(self) -> None:
        if self.claim is not None:
            self.claim.release()
            self.claim = None


def claim(session_file: str, host: str | None, who: Mapping[str, Any],
          env: Mapping[str, str] | None = None) -> Claim | dict[str, Any]:
    """Claim `session_file` for `who` (what the lock file says of who holds it); if
    another process holds it, what its lock file says of it ({} when it has not said yet).
    OSError when the claims' folder cannot be written."""
    path = _path(session_file, host, env)
    looked = 0
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held_by = _read(fd)
            os.close(fd)
            looked += 1
            if held_by or looked > TRIES:
                return held_by
            time.sleep(0.001)  # (`owner` looking, or a claim not written yet: for a moment)
            continue
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:  # its last holder released it meanwhile (and removed it): again
            same = False
        if not same:
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({**who, "session_file": session_file, "host": host}).encode())
        return Claim(path, fd, session_file, host)


def owner(session_file: str, host: str | None, env: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """Who holds `session_file` (what its lock file says), None if nobody does (a lock file
    its dead owner left is removed then: a claim checks that its file is still the one there)."""
    path = _path(session_file, host, env)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(fd)
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)
        return None
    finally:
        os.close(fd)


def _read(fd: int) -> dict[str, Any]:
    try:
        found = json.loads(os.pread(fd, MOST_OWNER, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
