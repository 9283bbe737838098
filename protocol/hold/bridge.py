"""`python -m protocol.hold.bridge [--attach]`: the way to the user's holder on this host
from a window on another, run by the window's own ssh (ssh_link.py).

It reaches the holder as a local window does (started if none listens; with `--attach`,
never: the window only comes back to a pi it had), says its hello on stdout, one JSON line
(`HELLO_KEY`, pideck's version, the frame protocol's, and `error` where the holder could
not be reached), then copies bytes both ways between its stdin/stdout and the holder's
socket, nothing else, in bounded reads, until either side closes. The holder checks the
frames, and the window what comes back (it trusts nothing from here either).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading

from protocol.hold import frames
from protocol.hold.early import HoldError, holder_socket

HELLO_KEY = "pideck-bridge"  # the hello's mark, and the version of its own shape
BRIDGE = 1
CHUNK = 1 << 16  # bytes read at a time from either side
ATTACH = "--attach"


def version() -> str:
    """This pideck's version, as `pideck --version` says it."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pideck")
    except PackageNotFoundError:
        return "unknown"


def hello(error: str | None = None) -> bytes:
    fields: dict[str, object] = {HELLO_KEY: BRIDGE, "pideck": version(), "protocol": frames.PROTOCOL}
    if error is not None:
        fields["error"] = error
    return json.dumps(fields).encode() + b"\n"


def main(argv: list[str]) -> int:
    out = sys.stdout.fileno()
    try:
        sock = holder_socket(os.environ, start=ATTACH not in argv)
    except HoldError as exc:
        _write_all(out, hello(str(exc)))
        return 1
    _write_all(out, hello())
    done = threading.Event()
    for source, sink in ((sys.stdin.fileno(), sock.fileno()), (sock.fileno(), out)):
        threading.Thread(target=_copy, args=(source, sink, done), daemon=True).start()
    done.wait()
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    return 0


def _copy(source: int, sink: int, done: threading.Event) -> None:
    """Bytes from `source` to `sink` until either closes; then `done`."""
    try:
        while chunk := os.read(source, CHUNK):
            _write_all(sink, chunk)
    except OSError:
        pass
    finally:
        done.set()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
