"""pi is started before pideck imports its UI: each takes about a second, side by side.
Only the spawn comes first (protocol/wire/child.py); the client and the records' types
are imported while pi boots."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from app.pi.launch import LaunchConfig, run_argv
from protocol.wire.child import Child, spawn

if TYPE_CHECKING:
    from protocol.wire.client import RpcClient


def pi_client(config: LaunchConfig) -> RpcClient:
    """The client of the pi child `config` describes (not started)."""
    from protocol.wire.client import RpcClient
    from protocol.wire.protocol_log import ProtocolLog, default_log_path
    from protocol.wire.redact import Redactor

    redactor = Redactor.from_env(config.env)
    return RpcClient(
        run_argv(config), env=config.env, cwd=config.cwd, redactor=redactor,
        protocol_log=ProtocolLog(config.protocol_log, redactor=redactor, fallback=default_log_path()),
        recorder=config.recorder,
    )


def start_pi(config: LaunchConfig) -> tuple[asyncio.Runner, RpcClient]:
    """pi's child spawned on the event loop the app will run on (the runner's): pi boots
    while the caller imports the UI. The app's `client.start()` reads it, in the app's
    context; if pi could not be spawned, it tries again and says why."""
    runner = asyncio.Runner()
    child: Child | None = None
    with contextlib.suppress(OSError):
        child = runner.run(spawn(run_argv(config), config.env, config.cwd))
    client = pi_client(config)
    if child is not None:
        client.adopt(child)
    return runner, client
