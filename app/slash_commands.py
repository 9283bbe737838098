"""pideck's own `/` commands (mirroring pi's interactive TUI), kept in one registry.

A module registers a command with `@slash_command("name", "what it does")` on an
`async def handler(app, args)`; `PideckApp.submit` runs a registered command in a
worker instead of sending the text to pi. Every other `/name` goes to pi as a prompt
(its extension commands, prompt templates, skills); a pideck command hides a pi command
of the same name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.pideck_app import PideckApp

Handler = Callable[["PideckApp", str], Awaitable[Any]]


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    run: Handler
    usage: str = ""  # e.g. "[instructions]"


REGISTRY: dict[str, SlashCommand] = {}


def slash_command(name: str, description: str, usage: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"slash command /{name} is registered twice")
        REGISTRY[name] = SlashCommand(name, description, handler, usage)
        return handler

    return register


def parse(text: str) -> tuple[SlashCommand, str] | None:
    """The registered command `text` invokes and its argument string, or None."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].strip().partition(" ")
    command = REGISTRY.get(name)
    return (command, args.strip()) if command is not None else None
