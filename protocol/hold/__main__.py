"""`python -m protocol.hold FOLDER`: the holder, started by a window that found none.

The process the window starts takes the folder's lock and binds the socket 0600
(listen.py) in a session of its own, then forks the holder and exits: once the window has
waited for it, the socket listens, and the holder is nobody's child, in no terminal (stdin
and stdout on /dev/null, stderr to `holder.log` in its folder, log.py). It serves until
nothing has been held for a while, or a signal ends it in order.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from protocol.hold.holder import LINGER, Holder
from protocol.hold.listen import Listening, take
from protocol.hold.log import HolderLog


def main(argv: list[str]) -> int:
    folder = Path(argv[0])
    os.setsid()
    listening = take(folder)
    if listening is None:
        return 0  # another holder serves this folder
    if os.fork():
        os._exit(0)  # (the lock goes on with the holder: it is the open file's, shared by the fork)
    serve(listening)
    return 0


def serve(listening: Listening, first: tuple[str, subprocess.Popen[bytes]] | None = None) -> None:
    """Leave the terminal and serve on `listening` until the holder is done (`first`: the pi
    spawned for the window that started it, and the token its spawn request names it by)."""
    folder = listening.folder
    os.chdir("/")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    log = HolderLog(folder / "holder.log")
    log(f"holder {os.getpid()} serving {listening.path}")
    holder = Holder(folder, log, linger=float(os.environ.get("PIDECK_HOLD_LINGER") or LINGER), first=first)
    try:
        asyncio.run(holder.serve(listening))
    finally:
        log(f"holder {os.getpid()} done{f' ({holder.leaving})' if holder.leaving else ''}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
