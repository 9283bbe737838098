"""What pideck's `/` commands (and the keys that run them) may use: `CommandContext`.

A command is a `SlashCommand`: an `async def run(ctx, args)` with its name and help;
each command module lists its own in `COMMANDS` and `app/commands/registry.py` gathers
them. The App builds the context and hands it to every command; commands never see
the App. Its `say`, `warn` and `fail` are `app.notifier.Notifier`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from textual.binding import BindingsMap
from textual.screen import Screen
from textual.worker import Worker

from app.attachments import Attachments
from app.pi.launch import LaunchConfig
from app.notifier import Notifier, Notify
from app.themes import Themes
from protocol.wire.client import RpcClient, RpcDataError
from protocol.state.session_model import SessionModel
from protocol.state.notification_center import NotificationCenter
from widgets.prompt_editor import PromptEditor

Answer = TypeVar("Answer")
Handler = Callable[["CommandContext", str], Awaitable[Any]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Handler
    usage: str = ""  # e.g. "[instructions]"; one starting with "<" needs an argument


class CommandContext(Notifier):
    """pi's client and session model, the prompt editor, screens to ask with, and the
    app's few actions a command runs (reload, refresh, copy, restart, quit)."""

    def __init__(
        self,
        *,
        notify: Notify,
        config: LaunchConfig,
        session: SessionModel,
        attachments: Attachments,
        client: Callable[[], RpcClient],
        cwd: Callable[[], Path],
        editor: Callable[[], PromptEditor],
        ask: Callable[[Screen[Any]], Awaitable[Any]],
        reload: Callable[[], Awaitable[None]],
        load_commands: Callable[[], Awaitable[None]],
        refresh: Callable[[], Worker[None]],
        bad_answer: Callable[[RpcDataError], None],
        notices: Callable[[], NotificationCenter],
        key_bindings: Callable[[], tuple[BindingsMap, BindingsMap, list[str]]],
        reread_settings: Callable[[], None],
        run_in_terminal: Callable[[list[str]], int | None],
        copy: Callable[[str], None],
        show_tool_call: Callable[[str], Awaitable[None]],
        restart: Callable[[], Awaitable[None]],
        quit: Callable[[], None],
        commands: Mapping[str, SlashCommand],
        themes: Themes,
    ) -> None:
        super().__init__(notify)
        self.config = config
        self.session = session
        self.attachments = attachments
        self.commands = commands  # pideck's `/` commands by name (/settings runs them)
        self.themes = themes  # the theme in use, the ones found, /theme's switch
        self._client, self._cwd, self._editor = client, cwd, editor
        self._ask = ask
        self.reload, self.load_commands, self._refresh = reload, load_commands, refresh
        self.bad_answer, self._notices, self.key_bindings = bad_answer, notices, key_bindings
        self.reread_settings = reread_settings  # pi's keybindings.json and display settings (/reload)
        self.run_in_terminal = run_in_terminal  # pideck suspended meanwhile: its status, None if it cannot be
        self.copy, self.restart, self.quit = copy, restart, quit
        self.show_tool_call = show_tool_call  # scroll the transcript to a tool call (by its id)

    @property
    def client(self) -> RpcClient:
        """pi's client (a restart replaces it)."""
        return self._client()

    @property
    def cwd(self) -> Path:
        """pi's working directory (the session's, after a switch to one of another folder)."""
        return self._cwd()

    @property
    def editor(self) -> PromptEditor:
        return self._editor()

    @property
    def notices(self) -> NotificationCenter:
        return self._notices()

    async def ask(self, screen: Screen[Answer]) -> Answer:
        """Show `screen` and wait for what it is dismissed with (from a worker only)."""
        answer: Answer = await self._ask(screen)
        return answer

    def refresh(self) -> Worker[None]:
        """Read pi's state and session stats again and show them; `.wait()` for them."""
        return self._refresh()
