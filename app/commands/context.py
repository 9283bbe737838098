"""What pideck's `/` commands (and the keys that run them) may use: `CommandContext`.

A command is a `SlashCommand`: an `async def run(ctx, args)` with its name and help;
each command module lists its own in `COMMANDS` and `app/commands/registry.py` gathers
them. A context is made of the pi session (`ctx.pi`: its client, model, life) and the
screen's few members a command asks of (`ctx.ui`, a `CommandUI`); commands never see the
App. Its `say`, `warn` and `fail` are `app.notifier.Notifier`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from textual.binding import BindingsMap
from textual.screen import Screen
from textual.worker import Worker

from app.attachments import Attachments
from app.notifier import Notifier
from app.pi.launch import LaunchConfig
from app.pi.session import PiSession
from app.themes import Themes
from protocol.state.desk import SessionLine
from protocol.state.notification_center import NotificationCenter
from protocol.state.session_model import SessionModel
from protocol.wire.client import RpcClient, RpcDataError
from widgets.prompt.editor import PromptEditor

Answer = TypeVar("Answer")
Handler = Callable[["CommandContext", str], Awaitable[Any]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Handler
    usage: str = ""  # e.g. "[instructions]"; one starting with "<" needs an argument


class CommandUI(Protocol):
    """The screen's side of a command (the App is one)."""

    @property
    def editor(self) -> PromptEditor: ...

    @property
    def notices(self) -> NotificationCenter:
        """Every notification kept (/notifications)."""
        ...

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any:
        """Show `screen` and wait for what it is dismissed with (from a worker only)."""
        ...

    def copy_to_clipboard(self, text: str) -> None: ...

    def run_in_terminal(self, argv: list[str]) -> int | None:
        """pideck suspended while `argv` runs in the terminal: its status, None if it cannot be."""
        ...

    async def show_tool_call(self, tool_call_id: str) -> None:
        """Scroll the transcript to a tool call."""
        ...

    def refresh_stats(self) -> Worker[None]:
        """Read pi's state and stats again and show them; `.wait()` for them."""
        ...

    def reread_settings(self) -> None:
        """pi's keybindings.json, display settings and theme again (/reload)."""
        ...

    def key_tables(self) -> tuple[BindingsMap, BindingsMap, list[str]]:
        """The app's keys, the editor's, and what keybindings.json asked that was left out (/hotkeys)."""
        ...

    def quit(self) -> None: ...

    def session_lines(self) -> list[SessionLine]:
        """Every session open, as /sessions lists them ([] while only one is open)."""
        ...

    def open_session(self, cwd: Path, pi_args: list[str] | None, pi_flag: str | None, session: str | None = None) -> None:
        """Start another pi and show it (on `session`'s file, if given), with a toast that
        names it. Raises LaunchError for what cannot start."""
        ...

    async def close_session(self) -> None:
        """End this session's pi (the last one open quits pideck)."""
        ...

    def detach(self) -> bool:
        """Leave every held pi to the holder and quit this window; False when none is held."""
        ...

    def show_session(self, number: int) -> bool: ...


class CommandContext(Notifier):
    """The pi session (`pi`), the screen's side (`ui`), the images to attach, the themes
    and pideck's commands by name."""

    def __init__(self, pi: PiSession, ui: CommandUI, *, attachments: Attachments, themes: Themes,
                 commands: Mapping[str, SlashCommand]) -> None:
        super().__init__(ui.notify)
        self.pi, self.ui = pi, ui
        self.attachments = attachments
        self.themes = themes  # the theme in use, the ones found, /theme's switch
        self.commands = commands  # pideck's `/` commands by name (/settings runs them)

    @property
    def client(self) -> RpcClient:
        """pi's client (a restart replaces it)."""
        return self.pi.client

    @property
    def session(self) -> SessionModel:
        return self.pi.model

    @property
    def config(self) -> LaunchConfig:
        return self.pi.config

    @property
    def cwd(self) -> Path:
        """pi's working directory (the session's, after a switch to one of another folder)."""
        return self.pi.cwd

    @property
    def editor(self) -> PromptEditor:
        return self.ui.editor

    @property
    def notices(self) -> NotificationCenter:
        return self.ui.notices

    async def reload(self) -> None:
        await self.pi.reload()

    async def load_commands(self) -> None:
        await self.pi.load_commands()

    async def restart(self) -> None:
        await self.pi.restart()

    def bad_answer(self, error: RpcDataError) -> None:
        self.pi.problems.bad_answer(error)

    async def ask(self, screen: Screen[Answer]) -> Answer:
        """Show `screen` and wait for what it is dismissed with (from a worker only)."""
        answer: Answer = await self.ui.push_screen_wait(screen)
        return answer

    def refresh(self) -> Worker[None]:
        """Read pi's state and session stats again and show them; `.wait()` for them."""
        return self.ui.refresh_stats()

    def copy(self, text: str) -> None:
        self.ui.copy_to_clipboard(text)

    def run_in_terminal(self, argv: list[str]) -> int | None:
        return self.ui.run_in_terminal(argv)

    async def show_tool_call(self, tool_call_id: str) -> None:
        await self.ui.show_tool_call(tool_call_id)

    def key_bindings(self) -> tuple[BindingsMap, BindingsMap, list[str]]:
        return self.ui.key_tables()

    def reread_settings(self) -> None:
        self.ui.reread_settings()

    def quit(self) -> None:
        self.ui.quit()
