"""The session file a held pi has open, claimed for it by the holder
(protocol/hold/session_claims.py): learnt from pi's answers to `get_state` as they pass
through (a window asks one at its start and after every switch of session), released when
pi switches to another file or exits."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from protocol.hold import session_claims


class _State(msgspec.Struct):
    sessionFile: Any = None  # noqa: N815 (pi's name)


class _Answer(msgspec.Struct):
    success: Any = None
    data: _State | None = None


_answer = msgspec.json.Decoder(_Answer)


class HeldClaim:
    def __init__(self, number: int, env: Mapping[str, str], host: str | None, log: Callable[[str], None]) -> None:
        self.number = number
        self.env = env
        self.host = host
        self.log = log
        self.claim: session_claims.Claim | None = None

    @property
    def session_file(self) -> str | None:
        return self.claim.session_file if self.claim is not None else None

    def learn(self, line: bytes, pi_pid: int | None) -> dict[str, Any] | None:
        """pi's answer to a get_state: its file claimed; who had it already, if another did."""
        try:
            answer = _answer.decode(line)
        except msgspec.DecodeError:
            return None
        session_file = answer.data.sessionFile if answer.success is True and answer.data is not None else None
        if not isinstance(session_file, str) or session_file == self.session_file:
            return None
        self.release()
        if not session_file:
            return None
        try:
            got = session_claims.claim(session_file, self.host, {"pid": os.getpid(), "number": self.number,
                                                                 "pi_pid": pi_pid}, self.env)
        except OSError as exc:
            self.log(f"pi {self.number}: its session file could not be claimed: {exc}")
            return None
        if isinstance(got, session_claims.Claim):
            self.claim = got
            return None
        return {**got, "session_file": session_file}

    def release(self) -> None:
        if self.claim is not None:
            self.claim.release()
            self.claim = None
