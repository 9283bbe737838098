"""One pi per session file, the window's side (protocol/hold/session_claims.py).

Whatever pideck starts pi on (`--continue`, `--session`, a picker's choice, `/open`,
`--restore`, a restart), pi names its file in its first `get_state`, before it has written
anything to it. A pi of the window's own has its file claimed here then (the holder claims
a held pi's, and says when another pi had it: the link's `taken`). A pi that opened a file
another pi has open is closed unused: the session shows the held pi that has it instead
(attached, as `pideck attach` does), or, where that pi is another window's own child, says
in one line that it cannot. Where the file is known before pi starts (`--session FILE`:
pideck's own, `/open --session`, the resume picker's Alt+Enter, `--restore`'s sessions), it
is checked first (`taken_before_start`): no pi is started on a file another pi has open.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.pi.launch import LaunchConfig, LaunchError, held_launch
from protocol.hold import session_claims
from protocol.hold.ask import ask
from protocol.hold.frames import BadFrame
from protocol.hold.place import UnsafePlace
from protocol.wire.client import RpcClient


class OwnClaim:
    """The claim on the session file of a pi this window owns (not a held one)."""

    def __init__(self) -> None:
        self.claimant: session_claims.Claimant | None = None

    def taken(self, client: RpcClient, config: LaunchConfig, session_file: str | None) -> dict[str, Any] | None:
        """Who else has `session_file` (pi's now) open; None when this pi has it (claimed now)."""
        if client.link.holder_claims:
            self.release()
            return client.link.taken
        if not session_file:
            return None
        if self.claimant is None:
            self.claimant = session_claims.Claimant(config.remote, config.env)
        self.claimant.host, self.claimant.env = config.remote, config.env
        try:
            return self.claimant.move(session_file, {"pid": os.getpid(), "pi_pid": client.link.pid})
        except OSError:
            return None  # (no state folder to claim in: as before claims)

    def release(self) -> None:
        if self.claimant is not None:
            self.claimant.release()


def asked_file(config: LaunchConfig) -> str | None:
    """The session file `config`'s pi arguments name (`--session FILE`), if it exists (on pi's
    host: as given)."""
    args = list(config.pi_args[: config.pi_args.index("--")] if "--" in config.pi_args else config.pi_args)
    named = [args[i + 1] for i in range(len(args) - 1) if args[i] == "--session"]
    named += [arg.split("=", 1)[1] for arg in args if arg.startswith("--session=")]
    if not named:
        return None
    if config.remote is not None:
        return named[-1]
    path = config.cwd / Path(named[-1]).expanduser()
    return str(path) if path.is_file() else None


def taken_before_start(config: LaunchConfig) -> dict[str, Any] | None:
    """Who has the session file `config`'s pi would open (`--session FILE`) open already, the
    file named too (`session_file`); None when no one has, or no file is named."""
    session_file = asked_file(config) if config.attach is None else None
    try:
        taken = session_claims.owner(session_file, config.remote, config.env) if session_file else None
    except OSError:
        taken = None
    return None if taken is None else {**taken, "session_file": session_file}


def before_start(config: LaunchConfig) -> LaunchConfig:
    """`config`, or, when the session file it names is open in a held pi already, the attach
    to that pi: no pi is started on the file. LaunchError says why it cannot be shown (another
    pideck's own pi has it)."""
    taken = taken_before_start(config)
    if taken is None:
        return config
    found = held_pi_for(taken, config)
    if isinstance(found, str):
        raise LaunchError(found)
    return found


def held_pi_for(taken: Mapping[str, Any], config: LaunchConfig) -> LaunchConfig | str:
    """The launch that attaches to the held pi that has the file (`taken` says who), or the
    line that says why this window cannot show it (blocking: it may ask the holder)."""
    number, pid = taken.get("number"), taken.get("pid")
    name = Path(str(taken.get("session_file") or "this session")).name
    if pid == os.getpid():
        return f"{name} is open in another session of this window: Alt+1 to Alt+9 switch sessions, /sessions lists them"
    if not isinstance(number, int):
        return (f"{name} is open in another pideck (pid {pid}), whose pi is its own (--no-hold): it cannot be shown "
                "here as well; go on there, or quit it there first")
    try:
        answer = ask({"op": "list"}, config.env, 10.0)
    except (OSError, BadFrame, UnsafePlace) as exc:
        return f"{name} is open in held pi {number}, and pideck's holder did not answer: {exc}"
    pis = answer.get("pis") if answer is not None and answer.get("holder") == pid else None
    found = [pi for pi in pis if isinstance(pi, dict) and pi.get("number") == number] if isinstance(pis, list) else []
    if not found:
        return f"{name} is open in a pi held by another holder (pid {pid}) than this pideck's: it cannot be shown here"
    window = found[0].get("window")
    return held_launch(config, number, str(found[0].get("cwd")), window if isinstance(window, dict) else {})
