"""pi is started before pideck imports its UI: each takes about a second, side by side."""

from __future__ import annotations

import asyncio
import contextlib

from app.pi.launch import LaunchConfig, run_argv
from protocol.wire.client import RpcClient
from protocol.wire.protocol_log import ProtocolLog, default_log_path
from protocol.wire.redact import Redactor


def pi_client(config: LaunchConfig) -> RpcClient:
    """The client of the pi child `config` describes (not started)."""
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
    client = pi_client(config)
    with contextlib.suppress(OSError):
        runner.run(client.spawn())
    return runner, client
