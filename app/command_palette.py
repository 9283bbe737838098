"""Command palette providers (F1): pideck's `/` commands, pi's commands, the app's keys.

A pideck command runs at once unless its usage names a required argument (`<...>`);
then, like pi's commands (extensions, prompt templates, skills, which take free
text), it is typed into the prompt for the user to finish and send.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from rich.text import Text
from textual.app import App
from textual.binding import BindingsMap
from textual.command import DiscoveryHit, Hit, Hits, Provider

from app.commands.context import SlashCommand
from app.desk.desk import Desk
from app.hotkeys_table import describe, key_label
from app.commands.registry import REGISTRY
from widgets.text.safe import clean


class PaletteHost(Protocol):
    """What the palette reads of the app, besides Textual's App."""

    desk: Desk  # the session shown: its commands, pi's, its prompt

    @property
    def key_bindings(self) -> BindingsMap: ...


def _type_into_prompt(app: App[Any], text: str) -> Callable[[], None]:
    def fill() -> None:
        editor = cast(PaletteHost, app).desk.current.main.editor
        editor.load(text)
        editor.focus()

    return fill


class _Provider(Provider):
    @property
    def deck(self) -> PaletteHost:
        return cast(PaletteHost, self.app)

    def entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        """(name shown and matched, help line, what selecting it does)."""
        raise NotImplementedError

    async def discover(self) -> Hits:
        for name, help_text, run in self.entries():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in self.entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, text=name, help=help_text)
            elif (score := matcher.match(help_text)) > 0:
                yield Hit(score * 0.5, Text(name), run, text=name, help=help_text)


class PideckCommands(_Provider):
    """pideck's own `/` commands."""

    def entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        commands = self.deck.desk.current.context.commands  # (a read-only view's are fewer)
        return [(f"/{c.name}", c.description, self._runner(c)) for c in sorted(commands.values(), key=lambda c: c.name)]

    def _runner(self, command: SlashCommand) -> Callable[[], object]:
        app, ctx = self.app, self.deck.desk.current.context
        if command.usage.startswith("<"):
            return _type_into_prompt(app, f"/{command.name} ")
        return lambda: app.run_worker(command.run(ctx, ""), name=f"/{command.name}", group="slash")


class PiCommands(_Provider):
    """pi's commands (`get_commands`): typed into the prompt, to add arguments and send."""

    def entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        return [
            (f"/{clean(c.name)}", f"{clean(c.source)}: {clean(c.description or '')}",
             _type_into_prompt(self.app, f"/{c.name} "))
            for c in self.deck.desk.current.pi.commands
            if c.name not in REGISTRY
        ]


class KeyActions(_Provider):
    """The app's key bindings, by what they do."""

    def entries(self) -> list[tuple[str, str, Callable[[], object]]]:
        found: dict[str, tuple[str, list[str]]] = {}
        for key, binding in self.deck.key_bindings:
            if binding.system or binding.action in ("command_palette", "quit"):
                continue
            found.setdefault(binding.action, (describe(binding), []))[1].append(key_label(key))
        entries: dict[tuple[str, str], Callable[[], object]] = {}  # (one per help and keys: Alt+N has two bindings)
        for action, (name, keys) in found.items():
            entries.setdefault((name, ", ".join(keys)), self._runner(action))
        return [(name, keys, run) for (name, keys), run in entries.items()]

    def _runner(self, action: str) -> Callable[[], object]:
        app = self.app
        return lambda: app.run_worker(app.run_action(action), name=action, group="palette")
