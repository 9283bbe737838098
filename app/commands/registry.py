"""pideck's own `/` commands (mirroring pi's interactive TUI), gathered in one registry.

Each command module lists its commands in `COMMANDS` (`app.commands.context.SlashCommand`);
`REGISTRY` gathers them here, explicitly. `PideckApp.submit` runs a registered command
in a worker instead of sending the text to pi. Every other `/name` goes to pi as a prompt
(its extension commands, prompt templates, skills); a pideck command hides a pi command
of the same name.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.commands import changes, desk, export, info, login, model, notifications, rewind, run, session, theme
from app.commands.context import SlashCommand


def _by_name(*modules: Iterable[SlashCommand]) -> dict[str, SlashCommand]:
    registry: dict[str, SlashCommand] = {}
    for command in (command for commands in modules for command in commands):
        if command.name in registry:
            raise ValueError(f"slash command /{command.name} is registered twice")
        registry[command.name] = command
    return registry


REGISTRY = _by_name(
    export.COMMANDS,
    model.COMMANDS,
    notifications.COMMANDS,
    session.COMMANDS,
    run.COMMANDS,
    info.COMMANDS,
    login.COMMANDS,
    changes.COMMANDS,
    rewind.COMMANDS,
    theme.COMMANDS,
    desk.COMMANDS,
)


def parse(text: str) -> tuple[SlashCommand, str] | None:
    """The registered command `text` invokes and its argument string, or None."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].strip().partition(" ")
    command = REGISTRY.get(name)
    return (command, args.strip()) if command is not None else None
