"""pi's child spawned with its three pipes, before asyncio, the client or the records' types
are imported: pi boots (0.3 s) while pideck imports the rest, and only `subprocess` comes
before it (asyncio alone is 30 ms). The RPC client reads it once the loop runs
(protocol/wire/child.py)."""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO

PIPE_SIZE = 1 << 20


def spawn(argv: Sequence[str], env: Mapping[str, str] | None,
          cwd: str | os.PathLike[str] | None) -> subprocess.Popen[bytes]:
    """Spawn `argv` in a session of its own, its stdin, stdout and stderr piped; OSError if
    it cannot be (ValueError for an argument no process can be given)."""
    popen = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, cwd=cwd, start_new_session=True, bufsize=0)
    _widen_pipe(popen.stdout)
    return popen


def _widen_pipe(pipe: IO[bytes] | None) -> None:
    """Give pi's stdout a 1 MB pipe (Linux; the default is 64 KB, about 14 ms of a
    streaming flood), so pi keeps writing while pideck's loop is busy drawing a frame."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setter is None or pipe is None:
        return
    try:
        fcntl.fcntl(pipe.fileno(), setter, PIPE_SIZE)
    except OSError:
        pass  # above the system's pipe-max-size: keep the default
