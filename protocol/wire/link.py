"""The link to pi: what `RpcClient` needs of the way to a pi and nothing else.

Two links: `LocalLink` (protocol/wire/local_link.py), a pi of the window's own, spawned
with its three pipes; `HeldLink` (protocol/hold/held_link.py), a pi the holder keeps,
reached over its socket. A third (pi held on another host, reached over ssh) is one more
class with these members; nothing above the client asks which link it has.

What a link hands the client from pi's stdout are its lines, LF-framed once on the way
(`read`), in order, with what is not pi's in its place among them: a line too long to keep
(a `ProtocolError`), and, from a held link, a dialog another window answered, a fresh cut
(`CaughtUp`), the link made again (`Relinked`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

import msgspec

# A line of pi's stdout longer than this is dropped (a get_messages answer for a long session
# can be tens of MB, so it is generous); its first LOGGED bytes go to the protocol log.
MAX_LINE = 512 * 1024 * 1024
LOGGED = 65536


class LinkError(Exception):
    """pi cannot be reached, or the link cannot do what it was asked (a detach of a pi of the
    window's own); the message says why."""


class Hello(msgspec.Struct, frozen=True):
    """What the holder says of the held pi a window reached: its number (`pideck ls`), pid,
    the holder's pid, the prefix of this window's request ids, its state then and how many
    other windows show it."""

    number: int
    pid: int | None = None
    holder: int = 0
    prefix: str = ""
    state: str = ""
    windows: int = 0


class Snapshot(msgspec.Struct):
    """Where an attach starts: pi's messages at the cut, the last `rebuilt` of them made
    again by the records of the run in progress that follow."""

    messages: list[Any]
    rebuilt: int = 0

    @property
    def history(self) -> list[Any]:
        """The messages before the run in progress."""
        return self.messages[: max(0, len(self.messages) - self.rebuilt)]


class Start(msgspec.Struct, frozen=True):
    """What a link's start found: for a held pi, the holder's hello, and for an attach, the cut."""

    hello: Hello | None = None
    snapshot: Snapshot | None = None


class Relinked(msgspec.Struct, frozen=True):
    """The link broke and was made again: requests whose ids do not start with the link's
    `id_prefix` went with the old one (their answers never come)."""


class Link(Protocol):
    """The way to one pi. `start` once; then `read`, `read_stderr` and `exited` until pi is
    gone; `write` a line (with its LF) and `drain`; `end` it in order, or `detach` from it."""

    async def start(self) -> Start:
        """Reach pi (spawn it, or ask the holder); LinkError says why it cannot be."""
        ...

    @property
    def spawned(self) -> bool:
        """pi is reached (or spawned and not read yet)."""
        ...

    async def read(self) -> list[Any]:
        """pi's next lines (bytes, without their LF), with what is not pi's in its place
        among them; [] once pi's stdout ended."""
        ...

    @property
    def pending(self) -> int:
        """Bytes read so far of what is not whole yet (a long answer on its way)."""
        ...

    async def read_stderr(self) -> bytes:
        """pi's next stderr bytes; b"" at its end."""
        ...

    @property
    def exited(self) -> asyncio.Future[None]:
        """Done when pi is gone (or, held, when this window let it go); after `start`."""
        ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def exit_error(self) -> str | None:
        """Why pi is gone where its exit status does not say (the holder went)."""
        ...

    @property
    def stopped_by(self) -> str | None:
        """What ended pi on purpose from outside (`pideck stop`)."""
        ...

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def write_idle(self) -> bool:
        """Nothing written waits to go: a write now leaves at once."""
        ...

    async def end(self, grace: float, term_grace: float) -> None:
        """End pi in order: close its stdin and wait `grace` s; SIGTERM, wait `term_grace` s; SIGKILL."""
        ...

    def kill(self) -> None: ...

    def close_pipes(self) -> None:
        """Stop reading and writing (pi exited, and a process it started holds its pipes)."""
        ...

    @property
    def pid(self) -> int | None: ...

    @property
    def id_prefix(self) -> str:
        """What this window's request ids start with."""
        ...

    @property
    def held(self) -> int | None:
        """The number `pideck ls` gives pi, where the holder keeps it; None for a pi of the window's own."""
        ...

    @property
    def holder_claims(self) -> bool:
        """The holder claims pi's session file (and says in `taken` who had it), not the window."""
        ...

    @property
    def taken(self) -> dict[str, Any] | None:
        """Who had pi's session file open when this pi opened it (the holder closes this one)."""
        ...

    @property
    def kept(self) -> bool:
        """This window quit, and pi goes on for another window that shows it."""
        ...

    def detach(self, draft: str | None) -> None:
        """Leave pi running without this window (`draft`, the unsent text, to the next);
        LinkError where pi cannot outlive the window."""
        ...

    def report_draft(self, draft: str) -> None:
        """What is typed and not sent, kept for the next window if this one goes."""
        ...

    async def written(self, timeout: float) -> None:
        """Wait, at most `timeout` s, until what was written is sent."""
        ...
