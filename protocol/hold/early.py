"""The way to the user's holder (the holder started if none listens), blocking and with
only what `socket` and `subprocess` need: so a held pi can be asked for before pideck
imports asyncio and its UI, as a pi of its own is spawned then (app/pi/early_start.py), and
the holder starts pi while the UI is imported. The window's client reads the holder's
answer on that connection once the loop runs, and makes its own connection the same way,
in a thread, where there was none (held_client.py).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol.hold import frames
from protocol.hold.place import SOCKET_NAME, UnsafePlace, hold_dir, listener_uid_error

WAIT = 20.0  # seconds a holder just started may take to listen (one ending may first close its pis: listen.TAKE_WAIT)


class HoldError(Exception):
    """No holder could be reached or started, or it refused the request; the message says why."""


def spawn_request(argv: list[str], env: Mapping[str, str], cwd: str, window: dict[str, Any],
                  idle_close: float | None) -> dict[str, Any]:
    """The control object that has the holder start pi."""
    request: dict[str, Any] = {"op": "spawn", "protocol": frames.PROTOCOL, "argv": argv, "env": dict(env), "cwd": cwd,
                               "window": window}
    if idle_close is not None:
        request["idle_close"] = idle_close
    return request


def ask_early(request: dict[str, Any], env: Mapping[str, str]) -> socket.socket | None:
    """A connection to the holder with `request` written on it; None where that fails (the
    client then tries again in the loop, and says why if it still cannot)."""
    try:
        sock = holder_socket(env)
    except HoldError:
        return None
    try:
        sock.sendall(frames.control(**request))
    except OSError:
        sock.close()
        return None
    return sock


def holder_socket(env: Mapping[str, str]) -> socket.socket:
    """A connection to the user's holder, started if none listens; HoldError says why not."""
    try:
        folder = hold_dir(env)
    except UnsafePlace as exc:
        raise HoldError(str(exc)) from None
    path = os.fspath(folder / SOCKET_NAME)
    with contextlib.suppress(FileNotFoundError, ConnectionRefusedError):
        return _connect(path)
    try:
        start_holder(folder, env)
    except OSError as exc:
        raise HoldError(f"cannot start the holder: {exc}") from None
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return _connect(path)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            if time.monotonic() > deadline:
                raise HoldError(f"the holder did not start listening on {path}: {exc.strerror}") from None
        except OSError as exc:
            raise HoldError(f"cannot reach the holder at {path}: {exc.strerror}") from None
        time.sleep(0.02)  # (another window's holder, between its lock and its bind)


def start_holder(folder: Path, env: Mapping[str, str]) -> None:
    """Start a holder for `folder` and wait until it listens (or found another one); OSError
    (a TimeoutExpired among them) when it cannot be started."""
    root = str(Path(__file__).resolve().parents[2])
    holder_env = dict(env)
    holder_env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, holder_env.get("PYTHONPATH", "")]))
    try:
        subprocess.run([sys.executable, "-m", "protocol.hold", os.fspath(folder)], env=holder_env, cwd="/",
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=WAIT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"it did not start within {WAIT:g} s") from exc


def _connect(path: str) -> socket.socket:
    """A connection to the listener at `path`, once the kernel said it is the user's own
    (HoldError if not: nothing has been sent on it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    if (why := listener_uid_error(sock, path)) is not None:
        sock.close()
        raise HoldError(why)
    return sock
