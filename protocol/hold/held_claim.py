"""The session file a held pi has open, claimed for it by the holder
(protocol/hold/session_claims.py): learnt from pi's answers to `get_state` as they pass
through (a window asks one at its start and after every switch of session), released when
pi switches to another file or exits."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from protocol.hold import session_claims


class HeldClaim:
    def __init__(self, number: int, env: Mapping[str, str], host: str | None, log: Callable[[str], None]) -> None:
        self.number = number
        self.log = log
        self.claimant = session_claims.Claimant(host, env)

    @property
    def session_file(self) -> str | None:
        return self.claimant.session_file

    def learn(self, session_file: Any, pi_pid: int | None) -> dict[str, Any] | None:
        """The session file pi's answer to a get_state names: claimed; who had it already, if
        another did."""
        try:
            return self.claimant.move(session_file if isinstance(session_file, str) else None,
                                      {"pid": os.getpid(), "number": self.number, "pi_pid": pi_pid})
        except OSError as exc:
            self.log(f"pi {self.number}: its session file could not be claimed: {exc}")
            return None

    def release(self) -> None:
        self.claimant.release()
