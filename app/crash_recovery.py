"""When pi dies: keep everything on screen, offer a restart, and resume the same session.

pi persists its session file as it goes, so a restart runs the same command with the
session-choosing flags (`app/pi_args.py`) replaced by `--session <file>` from the last
`get_state`; the transcript, queue and stats then reload from pi. The editor is never
touched. A session that was never saved (`--no-session`) cannot be resumed: pi restarts
on an empty one and the old transcript stays on screen above a banner that says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from app.pi_args import opening_session
from app.slash_commands import slash_command
from protocol.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.commands import GetState
from protocol.session_model import exit_reason
from widgets.crash_bar import CrashBar
from widgets.dialogs import ExtensionDialog
from widgets.side_panes import StatusLine

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


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
    """The app's side of pi exiting and being restarted (one per app)."""

    def __init__(self, app: PideckApp) -> None:
        self.app = app
        self.restarting = False
        self._starting: RpcClient | None = None  # a restarted pi that has not answered yet

    def child_exited(self, exited: ChildExited) -> None:
        """pi exited after the session was loaded: say why and offer a restart."""
        app = self.app
        reason = exit_reason(exited)
        if self._starting is not None and self._starting is app.client:
            reason = f"pi could not be restarted — {reason}"
        tail = exited.stderr_tail.strip().splitlines()[-1:] if exited.stderr_tail.strip() else []
        detail = (f"stderr: {tail[0][:300]}\n" if tail else "") + (
            "The transcript and your prompt stay here; ctrl+r or the button starts pi again on this session."
        )
        app.query_one(CrashBar).show(reason, detail)
        status = app.query_one(StatusLine)
        status.notice = "pi is not running — ctrl+r restarts it"
        status.refresh_status()
        while not app._dialogs.empty():  # extension questions from the dead pi cannot be answered
            app._dialogs.get_nowait()
        if isinstance(app.screen, ExtensionDialog):
            app.screen.dismiss(None)
        app.refresh_bindings()

    async def restart(self) -> None:
        """Start pi again on the session it had open and reload the transcript from it."""
        app = self.app
        if app.client.running or self.restarting:
            if app.client.running:
                app.notify("pi is running; there is nothing to restart", markup=False)
            return
        self.restarting = True
        try:
            await self._restart()
        finally:
            self.restarting = False
            app.refresh_bindings()

    async def _restart(self) -> None:
        app = self.app
        state = app.model.state
        session_file = state.session_file if state is not None else None
        app.query_one(CrashBar).restarting()
        old = app.client
        await old.close()  # it has exited; this only releases its pipes
        client = RpcClient(
            resume_argv(app.config.argv, session_file),
            env=app.config.env,
            cwd=app.config.cwd,
            protocol_log=old.protocol_log,
            redactor=old.redactor,
        )
        app.attach_client(client)
        self._starting = client
        await client.start()
        if client.exited is not None:
            return  # its ChildExited record shows why, through child_exited
        try:
            state = await client.call(GetState(), timeout=60)
            if session_file is not None:
                await app.reload_session(state)
        except RpcError as exc:
            if isinstance(exc, RpcDataError):
                app.problems.bad_answer(exc)
            if client.exited is None:  # started but does not answer: stop it; its exit shows the reason
                await client.close(grace=0.5, term_grace=0.5)
            return
        self._starting = None
        if session_file is None:
            app.model.set_state(state)
            app.model.banner(
                "error",
                "pi restarted on a new, empty session",
                "This session was not saved (--no-session), so pi could not resume it: "
                "the messages above are not in the new session's context.",
            )
        else:
            app.model.banner("restart", "pi restarted", f"resumed session {session_file}")
        await app._apply_changes()
        app.query_one(CrashBar).hide()
        app.action_focus_editor()
        status = app.query_one(StatusLine)
        status.notice = ""
        status.refresh_status()
        await app.load_commands()


@slash_command("restart", "Start pi again after it exited, resuming the same session")
async def restart_command(app: PideckApp, args: str) -> None:
    await app.recovery.restart()
