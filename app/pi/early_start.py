"""pi is started before pideck imports its UI: each takes about a second, side by side.
Only the spawn comes first (protocol/wire/spawn.py, with nothing of asyncio imported); the
event loop, the client and the records' types are imported while pi boots."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from app.pi.launch import LaunchConfig, run_argv
from protocol.wire.spawn import spawn

if TYPE_CHECKING:
    import asyncio
    import subprocess

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
    """pi's child spawned, then the event loop the app will run on (the runner's): pi boots
    while the caller imports the UI. The app's `client.start()` reads it, in the app's
    context; if pi could not be spawned, it tries again and says why."""
    spawned: subprocess.Popen[bytes] | None = None
    with contextlib.suppress(OSError, ValueError):
        spawned = spawn(run_argv(config), config.env, config.cwd)
    import asyncio

    runner = asyncio.Runner()
    client = pi_client(config)
    if spawned is not None:
        client.adopt(spawned)
    return runner, client
