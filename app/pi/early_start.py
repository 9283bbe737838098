"""pi is started before pideck imports its UI: each takes about a second, side by side.
Only the spawn comes first (protocol/wire/spawn.py, with nothing of asyncio imported); the
event loop, the client and the records' types are imported while pi boots.

Side by side on two cores they share one too few: pi's boot takes some 1.3 cores for 0.3 s
(Node compiles on threads of its own), the UI's imports one. pi answered 0.38 s after its
spawn where alone it takes 0.26 s, and the model's name, which only pi's answer tells, came
with it. So the imports run behind pi, in a thread of lower priority (`behind_pi`): they
take what pi leaves, and are done when pi answers all the same. (Where the kernel shares the
CPU between sessions first, Linux's autogroup, pi in its session of its own has half of it
whatever the thread's priority: there the two share the cores evenly.)"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from app.pi.launch import LaunchConfig, run_argv
from protocol.wire.spawn import spawn

T = TypeVar("T")

BEHIND = 10  # niceness the thread of the UI's imports adds (Linux: a thread's own priority)

if TYPE_CHECKING:
    import asyncio
    import subprocess

    from protocol.wire.client import RpcClient


def pi_client(config: LaunchConfig, spawned: subprocess.Popen[bytes] | None = None, early: Any = None) -> RpcClient:
    """The client of the pi `config` describes (not started): held, or a child of the
    window's own (`spawned` already, or `early`, a holder's connection asked already)."""
    from protocol.wire.protocol_log import ProtocolLog, default_log_path
    from protocol.wire.redact import Redactor

    redactor = Redactor.from_env(config.env)
    log = ProtocolLog(config.protocol_log, redactor=redactor, fallback=default_log_path())
    if config.hold:
        from app.pi.launch import window_note
        from protocol.hold.held_link import held_client

        return held_client(run_argv(config), holder_env=config.env, number=config.attach, window=window_note(config),
                           idle_close=hold_idle(config.env), drafts=config.attach_drafts, resumes=config.resumes,
                           early=early, env=config.env, cwd=config.cwd, redactor=redactor, protocol_log=log,
                           recorder=config.recorder)
    from protocol.wire.local_link import local_client

    return local_client(run_argv(config), env=config.env, cwd=config.cwd, spawned=spawned, redactor=redactor,
                        protocol_log=log, recorder=config.recorder)


def hold_idle(env: Mapping[str, str]) -> float | None:
    """`PIDECK_HOLD_IDLE`: seconds a held pi with no window, no run and no open dialog lives on
    before the holder closes it, to bring it back on its session file (the holder's default,
    5 minutes, when unset or not a positive number)."""
    from protocol.numbers import parse_float

    return parse_float(env.get("PIDECK_HOLD_IDLE", ""), low=1.0, high=1e8)


def start_pi(config: LaunchConfig) -> tuple[asyncio.Runner, RpcClient]:
    """pi's child spawned, then the event loop the app will run on (the runner's): pi boots
    while the caller imports the UI. The app's `client.start()` reads it, in the app's
    context; if pi could not be spawned, it tries again and says why."""
    spawned: subprocess.Popen[bytes] | None = None
    early = None
    if config.hold and config.attach is None:  # the holder spawns it, asked now
        from app.pi.launch import window_note
        from protocol.hold.early import ask_early, spawn_request

        request = spawn_request(run_argv(config), config.env, str(config.cwd), window_note(config), hold_idle(config.env))
        if config.resumes is not None:  # (a held pi closed idle, back under its number with its drafts)
            request |= {"resumes": config.resumes, "drafts": list(config.attach_drafts)}
        early = ask_early(request, config.env)
    elif not config.hold:
        with contextlib.suppress(OSError, ValueError):
            spawned = spawn(run_argv(config), config.env, config.cwd)
    import asyncio

    runner = asyncio.Runner()
    return runner, pi_client(config, spawned, early)


def behind_pi(work: Callable[[], T]) -> T:
    """`work` (the UI's imports) run in a thread of lower priority than pi's boot, waited for;
    what it returns or raises, as if called here. The calling thread keeps its priority."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        with contextlib.suppress(OSError, AttributeError):  # (no per-thread priority: as it is)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + BEHIND)
        try:
            outcome.append(work())
        except BaseException as exc:  # noqa: BLE001 (handed to the caller)
            failure.append(exc)

    thread = threading.Thread(target=run, name="ui-imports")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]
