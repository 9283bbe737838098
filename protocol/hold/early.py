"""The way to the user's holder (the holder started if none listens), blocking and with
only what `socket` and `subprocess` need: so a held pi can be asked for before pideck
imports asyncio and its UI, as a pi of its own is spawned then (app/pi/early_start.py), and
the holder starts pi while the UI is imported. The window's client reads the holder's
answer on that connection once the loop runs, and makes its own connection the same way,
in a thread, where there was none (held_link.py).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
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
    """A connection to the holder with `request` (a spawn) written on it; None where that
    fails (the client then tries again in the loop, and says why if it still cannot). A
    holder started for it spawns its pi at once (`fork_holder`): the request then names
    that pi, which the holder hands the window in place of spawning another."""
    try:
        sock, spawned = _holder_socket(env, request)
    except HoldError:
        return None
    try:
        sock.sendall(frames.control(**request, **({"spawned": spawned} if spawned else {})))
    except OSError:
        sock.close()
        return None
    return sock


def holder_socket(env: Mapping[str, str], start: bool = True) -> socket.socket:
    """A connection to the user's holder, started if none listens (with `start`); HoldError says why not."""
    return _holder_socket(env, None, start)[0]


def _holder_socket(env: Mapping[str, str], spawn: dict[str, Any] | None,
                   start: bool = True) -> tuple[socket.socket, str | None]:
    """`holder_socket`'s, and the token of the pi a holder started for `spawn` spawned (if one did)."""
    try:
        folder = hold_dir(env)
    except UnsafePlace as exc:
        raise HoldError(str(exc)) from None
    path = os.fspath(folder / SOCKET_NAME)
    with contextlib.suppress(FileNotFoundError, ConnectionRefusedError):
        return _connect(path), None
    if not start:
        raise HoldError(f"no holder listens on {path}")
    try:
        spawned = start_holder(folder, env, spawn)
    except OSError as exc:
        raise HoldError(f"cannot start the holder: {exc}") from None
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return _connect(path), spawned
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            if time.monotonic() > deadline:
                raise HoldError(f"the holder did not start listening on {path}: {exc.strerror}") from None
        except OSError as exc:
            raise HoldError(f"cannot reach the holder at {path}: {exc.strerror}") from None
        time.sleep(0.02)  # (another window's holder, between its lock and its bind)


def start_holder(folder: Path, env: Mapping[str, str], spawn: dict[str, Any] | None = None) -> str | None:
    """Start a holder for `folder`, listening once this returns (or another one was found);
    OSError (a TimeoutExpired among them) when it cannot be started. From a process with one
    thread and no loop (pideck before its loop and UI), the holder is forked from it
    (`fork_holder`): no interpreter to start, the window not kept waiting, and `spawn`'s pi
    spawned at once; the token that names that pi is returned (None: none was)."""
    if threading.active_count() == 1 and hasattr(os, "fork") and not _loop_running():
        return fork_holder(folder, spawn)
    root = str(Path(__file__).resolve().parents[2])
    holder_env = dict(env)
    holder_env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, holder_env.get("PYTHONPATH", "")]))
    try:
        subprocess.run([sys.executable, "-m", "protocol.hold", os.fspath(folder)], env=holder_env, cwd="/",
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=WAIT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"it did not start within {WAIT:g} s") from exc
    return None


def fork_holder(folder: Path, spawn: dict[str, Any] | None = None) -> str | None:
    """Take the folder's lock and bind its socket here, then fork the holder (twice: it is
    nobody's child, in a session of its own) and return at once. The holder spawns `spawn`'s
    pi first thing, as a pideck not held spawns its own (before any import: pi boots while
    the holder and the window import theirs), and serves: the window's connection is
    accepted once its loop runs. The token that names that pi is returned."""
    from protocol.hold.listen import take

    listening = take(folder)
    if listening is None:
        return None  # (another holder listens there)
    token = os.urandom(8).hex() if spawn is not None else None
    try:
        pid = os.fork()
        if pid == 0:  # the first child: a session of its own, and the holder forked from it
            try:
                os.setsid()
                if os.fork() == 0:
                    _close_all_but(listening.lock, listening.sock.fileno())  # (what the window had open is not the holder's)
                    first = _spawn_first(spawn, token)
                    from protocol.hold.__main__ import serve

                    serve(listening, first)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    finally:
        listening.sock.close()  # (the holder's copies go on: the lock is the open file's, shared by the fork)
        os.close(listening.lock)
    return token


def _spawn_first(spawn: dict[str, Any] | None, token: str | None) -> tuple[str, subprocess.Popen[bytes]] | None:
    """The pi of the window that starts the holder, spawned (None where it could not be: the
    holder spawns it when asked, and says why it cannot)."""
    if spawn is None or token is None:
        return None
    from protocol.wire.spawn import spawn as spawn_pi

    try:
        return token, spawn_pi(spawn["argv"], spawn["env"], spawn["cwd"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _loop_running() -> bool:
    """An event loop runs in this thread (a fork would copy it, and the holder could not run its own)."""
    if "asyncio" not in sys.modules:
        return False
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _close_all_but(*keep: int) -> None:
    """Close every descriptor from 3 up but those in `keep`."""
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)


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
