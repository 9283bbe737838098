"""When pi dies: keep everything on screen, offer a restart, and resume the same session.

pi persists its session file as it goes, so a restart runs the same command with the
session-choosing flags (`app/pi_args.py`) replaced by `--session <file>` from the last
`get_state`; the transcript, queue and stats then reload from pi. The editor is never
touched. A session that was never saved (`--no-session`) cannot be resumed: pi restarts
on an empty one and the old transcript stays on screen above a banner that says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from textual.app import App

from app.notifier import Notifier
from app.launch import LaunchConfig, run_argv
from app.pi_args import opening_session
from protocol.client import ChildExited, RpcClient, RpcDataError, RpcError
from protocol.commands import GetState
from protocol.responses import SessionState
from protocol.session_model import SessionModel, exit_reason
from widgets.crash_bar import CrashBar
from widgets.prompt_editor import PromptEditor
from widgets.side_panes import StatusLine


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
    """The app's side of pi exiting and being restarted (one per app).

    `client` gives the app's pi and `attach_client` replaces it; `forget_dialogs` drops
    the extension questions of a pi that exited; `apply_changes` shows the session
    model's changes.
    """

    def __init__(
        self,
        app: App[Any],
        config: LaunchConfig,
        session: SessionModel,
        *,
        client: Callable[[], RpcClient],
        attach_client: Callable[[RpcClient], None],
        reload_session: Callable[[SessionState], Awaitable[None]],
        load_commands: Callable[[], Awaitable[None]],
        apply_changes: Callable[[], Awaitable[None]],
        forget_dialogs: Callable[[], None],
        bad_answer: Callable[[RpcDataError], None],
    ) -> None:
        self.app, self.config, self.session = app, config, session
        self._client, self._attach_client = client, attach_client
        self._reload_session, self._load_commands, self._apply_changes = reload_session, load_commands, apply_changes
        self._forget_dialogs, self._bad_answer = forget_dialogs, bad_answer
        self._tell = Notifier(app.notify)
        self.restarting = False
        self._starting: RpcClient | None = None  # a restarted pi that has not answered yet

    def child_exited(self, exited: ChildExited) -> None:
        """pi exited after the session was loaded: say why and offer a restart."""
        app = self.app
        reason = exit_reason(exited)
        if self._starting is not None and self._starting is self._client():
            reason = f"pi could not be restarted — {reason}"
        tail = exited.stderr_tail.strip().splitlines()[-1:] if exited.stderr_tail.strip() else []
        detail = (f"stderr: {tail[0][:300]}\n" if tail else "") + (
            "The transcript and your prompt stay here; ctrl+r or the button starts pi again on this session."
        )
        app.query_one(CrashBar).show(reason, detail)
        status = app.query_one(StatusLine)
        status.notice = "pi is not running — ctrl+r restarts it"
        status.refresh_status()
        self._forget_dialogs()  # extension questions from the dead pi cannot be answered
        app.refresh_bindings()

    async def restart(self) -> None:
        """Start pi again on the session it had open and reload the transcript from it."""
        running = self._client().running
        if running or self.restarting:
            if running:
                self._tell.say("pi is running; there is nothing to restart")
            return
        self.restarting = True
        try:
            await self._restart()
        finally:
            self.restarting = False
            self.app.refresh_bindings()

    async def _restart(self) -> None:
        app, config, session = self.app, self.config, self.session
        state = session.state
        session_file = state.session_file if state is not None else None
        app.query_one(CrashBar).restarting()
        old = self._client()
        await old.close()  # it has exited; this only releases its pipes
        client = RpcClient(
            run_argv(config, resume_argv(config.argv, session_file)),
            env=config.env,
            cwd=config.cwd,
            protocol_log=old.protocol_log,
            redactor=old.redactor,
            recorder=old.recorder,  # the restarted pi goes on in the same recording
        )
        self._attach_client(client)
        self._starting = client
        await client.start()
        if client.exited is not None:
            return  # its ChildExited record shows why, through child_exited
        try:
            state = await client.call(GetState(), timeout=60)
            if session_file is not None:
                await self._reload_session(state)
        except RpcError as exc:
            if isinstance(exc, RpcDataError):
                self._bad_answer(exc)
            if client.exited is None:  # started but does not answer: stop it; its exit shows the reason
                await client.close(grace=0.5, term_grace=0.5)
            return
        self._starting = None
        if session_file is None:
            session.set_state(state)
            session.banner(
                "error",
                "pi restarted on a new, empty session",
                "This session was not saved (--no-session), so pi could not resume it: "
                "the messages above are not in the new session's context.",
            )
        else:
            session.banner("restart", "pi restarted", f"resumed session {session_file}")
        await self._apply_changes()
        app.query_one(CrashBar).hide()
        app.query_one(PromptEditor).focus()
        status = app.query_one(StatusLine)
        status.notice = ""
        status.refresh_status()
        await self._load_commands()
