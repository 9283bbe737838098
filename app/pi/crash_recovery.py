"""When pi dies: keep everything on screen, offer a restart, and resume the same session.

pi persists its session file as it goes, so a restart runs the same command with the
session-choosing flags (`app/pi/args.py`) replaced by `--session <file>` from the last
`get_state`; the transcript, queue and stats then reload from pi. The editor is never
touched. A session that was never saved (`--no-session`) cannot be resumed: pi restarts
on an empty one and the old transcript stays on screen above a banner that says so.
What the crash bar and the status line show is the model's `life` (the session model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app.pi.args import opening_session
from app.pi.early_start import pi_client
from protocol.state.session_model import exit_reason
from protocol.wire.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.wire.commands import GetState

if TYPE_CHECKING:
    from app.pi.session import PiSession


def resume_argv(argv: Sequence[str], session_file: str | None) -> tuple[str, ...]:
    """`argv` (ending in `--mode rpc PI_ARGS...`) made to open `session_file`.

    Without a session file (pi ran with `--no-session`) the command is kept as it was.
    """
    argv = tuple(argv)
    if session_file is None:
        return argv
    start = next((i + 2 for i in range(len(argv) - 1) if argv[i] == "--mode" and argv[i + 1] == "rpc"), len(argv))
    return (*argv[:start], *opening_session(argv[start:], session_file))


class CrashRecovery:
    """A session's side of pi exiting and being restarted."""

    def __init__(self, session: PiSession) -> None:
        self.session = session
        self.restarting = False
        self._starting: RpcClient | None = None  # a restarted pi that has not answered yet

    def child_exited(self, exited: ChildExited) -> None:
        """pi exited after the session was loaded: say why and offer a restart."""
        reason = exit_reason(exited)
        if self._starting is not None and self._starting is self.session.client:
            reason = f"pi could not be restarted — {reason}"
        tail = exited.stderr_tail.strip().splitlines()[-1:] if exited.stderr_tail.strip() else []
        detail = (f"stderr: {tail[0][:300]}\n" if tail else "") + (
            "The transcript and your prompt stay here; ctrl+r or the button starts pi again on this session."
        )
        self.session.model.crashed(reason, detail)

    async def restart(self) -> None:
        """Start pi again on the session it had open and reload the transcript from it."""
        session = self.session
        running = session.client.running
        if running or self.restarting:
            if running:
                session.tell.say("pi is running; there is nothing to restart")
            return
        self.restarting = True
        session.model.restarting(True)
        await session.apply_changes()
        try:
            await self._restart()
        finally:
            self.restarting = False
            session.model.restarting(False)
            await session.apply_changes()

    async def _restart(self) -> None:
        session = self.session
        config, model = session.config, session.model
        state = model.state
        session_file = state.session_file if state is not None else None
        old = session.client
        await old.close()  # it has exited; this only releases its pipes
        # (held again if it was, a pi of the holder's own: the one attached to is gone; the
        # restarted pi goes on in the same recording)
        client = pi_client(replace(config, argv=tuple(resume_argv(config.argv, session_file)), attach=None))
        session.attach(client)
        self._starting = client
        await client.start()
        if client.exited is not None:
            return  # its ChildExited record shows why, through child_exited
        try:
            state = await client.call(GetState(), timeout=60)
            if (taken := session.claim.taken(client, session.config, state.session_file)) is not None:
                await self._show_holder_of(taken)
                return
            if session_file is not None:
                await session.reload(state)
        except RpcError as exc:
            if isinstance(exc, RpcDataError):
                session.problems.bad_answer(exc)
            if client.exited is None:  # started but does not answer: stop it; its exit shows the reason
                await client.close(grace=0.5, term_grace=0.5)
            return
        self._starting = None
        if session_file is None:
            model.set_state(state)
            model.banner(
                "error",
                "pi restarted on a new, empty session",
                "This session was not saved (--no-session), so pi could not resume it: "
                "the messages above are not in the new session's context.",
            )
        else:
            model.banner("restart", "pi restarted", f"resumed session {session_file}")
        model.restarted()
        await session.apply_changes()
        await session.load_commands()

    async def _show_holder_of(self, taken: dict[str, Any]) -> None:
        """The session file is open in another pi by now (one held went on while this window
        lost it): the pi just started is closed unused, and the held one shown."""
        session = self.session
        shown = await session.show_holder_of(taken)
        if isinstance(shown, str):
            if shown:
                session.model.crashed("pi was not restarted", shown)
            return
        self._starting = None
        await session.reload(shown, attached=True)
        session.model.banner("restart", "pi shown again", "the held pi that had this session open, attached")
        session.model.restarted()
        await session.apply_changes()
        await session.load_commands()
