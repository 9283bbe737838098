"""What pideck's `/` commands (and the keys that run them) may use: `CommandContext`.

A command is a `SlashCommand`: an `async def run(ctx, args)` with its name and help;
each command module lists its own in `COMMANDS` and `app/commands/registry.py` gathers
them. A context holds the command's pi session (`ctx.pi`: its client, model, life), the
desk (`ctx.desk`: the sessions open, and through `ctx.desk.shell` what the app does for
them: screens asked and waited for, the clipboard, the terminal, themes, toasts, keys) and
its session's screen (`ctx.screen`: the prompt, the transcript). Its `say`, `warn` and
`fail` are `app.notifier.Notifier`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from textual.screen import Screen
from textual.worker import Worker

from app.attachments import Attachments
from app.notifier import Notifier, Notify
from app.pi.session import PiSession


Answer = TypeVar("Answer")
Handler = Callable[["CommandContext", str], Awaitable[Any]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Handler
    usage: str = ""  # e.g. "[instructions]"; one starting with "<" needs an argument


class CommandContext(Notifier):
    """A command's pi session (`pi`), the desk (`desk`), its session's screen (`screen`, set
    once the session has made it), the images to attach and pideck's commands by name."""

    # (the desk, app/desk/desk.py, and the screen, app/main_screen.py, are above the commands,
    # which do not import them: no import circle)
    screen: Any

    def __init__(self, pi: PiSession, desk: Any, notify: Notify, *, attachments: Attachments,
                 commands: Mapping[str, SlashCommand]) -> None:
        super().__init__(notify)
        self.pi, self.desk = pi, desk
        self.attachments = attachments
        self.commands = commands  # pideck's `/` commands by name (/settings runs them)

    async def ask(self, screen: Screen[Answer]) -> Answer:
        """Show `screen` and wait for what it is dismissed with (from a worker only)."""
        answer: Answer = await self.desk.shell.push_screen_wait(screen)
        return answer

    def refresh(self) -> Worker[None]:
        """Read pi's state and session stats again and show them; `.wait()` for them."""
        worker: Worker[None] = self.desk.shell.run_worker(self.pi.refresh_stats(), name="stats", group="stats",
                                                          exit_on_error=True)
        return worker
