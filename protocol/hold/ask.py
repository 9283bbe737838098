"""One question to the holder, answered in one control frame (`pideck ls`, `stop`, `attach`):
blocking, bounded in time and size, and None when no holder listens."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

from protocol.hold import frames
from protocol.hold.place import SOCKET_NAME, UnsafePlace, hold_dir, listener_uid_error

ANSWER_LIMIT = frames.MAX_FROM_HOLDER  # an answer's bytes (a list with drafts holds the drafts windows left, whole)


def ask(request: dict[str, Any], env: Mapping[str, str] | None = None, timeout: float = 30.0) -> dict[str, Any] | None:
    """The holder's answer to `request`; None when there is no holder. OSError, or
    frames.BadFrame for an answer that is not one, when it does not answer as it should;
    place.UnsafePlace when its folder is not safe or another user listens there."""
    path = os.fspath(hold_dir(env) / SOCKET_NAME)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            return None
        if (why := listener_uid_error(sock, path)) is not None:
            raise UnsafePlace(why)
        sock.sendall(frames.control(**request))
        reader = frames.FrameReader(frames.FROM_HOLDER, ANSWER_LIMIT, ANSWER_LIMIT)
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the holder closed the connection without answering")
            for kind, payload in reader.feed(chunk):
                if kind == frames.CONTROL:
                    return frames.read_control(payload)


def held(env: Mapping[str, str] | None = None, drafts: bool = False) -> list[dict[str, Any]]:
    """The held pis, as the holder lists them ([] with no holder); with `drafts`, each with
    the drafts windows left, newest first."""
    answer = ask({"op": "list", "drafts": drafts}, env, timeout=10.0)
    pis = answer.get("pis") if answer is not None else None
    return [pi for pi in pis if isinstance(pi, dict)] if isinstance(pis, list) else []
