"""Says, at most once every few seconds, what pi sent that pideck could not use.

Counts come from the session model (unreadable lines, unknown records, out-of-place
records) and from the client (responses nobody waits for, stderr lines). The status
line (the model's `life.problems`) keeps the totals and where the protocol log's lines go (its path, the fallback it
uses when the path cannot be written, or nowhere); a toast sums up what is new, once
per `INTERVAL` seconds however fast pi misbehaves.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from app.notifier import Notifier
from protocol.state.session_model import SessionModel
from protocol.wire.client import RpcClient, RpcDataError

INTERVAL = 5.0  # seconds between two toasts
STDERR_FLOOD = 200  # stderr lines within one interval that earn a toast

_LABELS = {
    "unreadable": ("line pideck could not read", "lines pideck could not read"),
    "unknown": ("record of a kind pideck does not know", "records of kinds pideck does not know"),
    "odd": ("record out of place (duplicate or late)", "records out of place (duplicates or late)"),
    "stray": ("response to no request", "responses to no request"),
}


class ProblemMonitor:
    """`client` gives the session's pi (a restart replaces it); `closing` is true once the app
    is closing, when the status line is left alone."""

    def __init__(self, session: SessionModel, client: Callable[[], RpcClient], tell: Notifier,
                 closing: Callable[[], bool]) -> None:
        self.session = session
        self._client, self._closing = client, closing
        self._tell = tell
        self.reported: dict[str, int] = dict.fromkeys(_LABELS, 0)
        self.last_toast = float("-inf")
        self._earlier_clients = {"stray": 0, "stderr": 0}  # totals of clients replaced by a restart
        self._stderr_reported = 0
        self._bad_answers: set[str] = set()

    def counts(self) -> dict[str, int]:
        model, client = self.session, self._client()
        return {
            "unreadable": model.protocol_errors,
            "unknown": model.unknown_records,
            "odd": model.odd_records,
            "stray": self._earlier_clients["stray"] + client.unexpected_responses,
        }

    def client_replaced(self) -> None:
        """Call before the app's client is replaced, so its totals are not lost."""
        client = self._client()
        self._earlier_clients["stray"] += client.unexpected_responses
        self._earlier_clients["stderr"] += client.stderr_total

    def check_log(self) -> None:
        """At start-up: say if the protocol log cannot be written, and where problem lines go instead."""
        log = self._client().protocol_log
        if log is not None:
            log.probe()
            if log.failure is not None:
                self._tell.warn(f"Lines from pi that pideck cannot use will be kept {self._kept()}.",
                                title="The protocol log cannot be written")

    def _log_where(self) -> str:
        log = self._client().protocol_log
        return log.where if log is not None else "nowhere"

    def _kept(self) -> str:
        where = self._log_where()
        return where if where.startswith("nowhere") else f"in {where}"

    def bad_answer(self, error: RpcDataError) -> None:
        """Toast an answer of pi's that could not be read (naming its command and field), once:
        background calls such as the stats refresh ask again after every run."""
        message = str(error)
        if message not in self._bad_answers:
            self._bad_answers.add(message)
            self._tell.fail(message, title="pi's answer could not be read")

    def check(self) -> None:
        """Update the status line; toast what is new unless a toast went out < INTERVAL ago."""
        if self._closing():
            return
        counts = self.counts()
        self._update_status(counts)
        now = time.monotonic()
        if now - self.last_toast < INTERVAL:
            return
        new = {kind: counts[kind] - self.reported[kind] for kind in counts if counts[kind] > self.reported[kind]}
        stderr_total = self._earlier_clients["stderr"] + self._client().stderr_total
        flood = stderr_total - self._stderr_reported
        if not new and flood < STDERR_FLOOD:
            return
        self.last_toast = now
        self.reported = counts
        self._stderr_reported = stderr_total
        parts = [f"{count:,} {_LABELS[kind][count != 1]}" for kind, count in new.items()]
        if flood >= STDERR_FLOOD:
            parts.append(f"{flood:,} lines on stderr (the last ones show when pi exits)")
        where = f"; kept {self._kept()}" if new else ""
        self._tell.warn(f"pi sent {', '.join(parts)}{where}", title="pi misbehaved")

    def _update_status(self, counts: dict[str, int]) -> None:
        shown = [f"{counts[kind]:,} {kind}" for kind in _LABELS if counts[kind]]
        self.session.problems_seen(f"⚠ pi sent {' · '.join(shown)} — log: {self._log_where()}" if shown else "")
