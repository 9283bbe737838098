"""`/theme`: switch the theme live (a picker of the themes found, or `/theme NAME`), and
`/theme save` (or `/theme NAME --save`) to write it as pi's `theme` setting."""

from __future__ import annotations

from app.commands.context import CommandContext, SlashCommand
from widgets.screens.pickers import ChoicePicker

SAVE = "--save"


async def theme_command(ctx: CommandContext, args: str) -> None:
    words = args.split()
    save = SAVE in words or words == ["save"]
    names = [word for word in words if word != SAVE and words != ["save"]]
    themes = ctx.desk.shell.themes
    if len(names) > 1:
        ctx.warn("/theme takes one theme name (and --save)", title="/theme")
        return
    name = names[0] if names else None
    if name is None and not save:
        name = await ctx.ask(ChoicePicker("Theme", themes.catalog.names(), themes.current))
        if name is None:
            return
    if name is not None and name not in themes.catalog.names():
        ctx.warn(f"no theme {name!r}; the themes found: {', '.join(themes.catalog.names())}", title="/theme")
        return
    if name is not None and name != themes.current:
        themes.switch(name)
    if save:
        try:
            path = themes.save()
        except (OSError, ValueError) as exc:
            ctx.fail(f"could not save the theme: {exc}", title="/theme")
            return
        ctx.say(f"{themes.current} saved as pi's theme setting in {path}", title="Theme")
    else:
        ctx.say(f"{themes.current} for this run (/theme save writes it to pi's settings)", title="Theme")


COMMANDS = (SlashCommand("theme", "Switch the theme live; with --save, write it to pi's settings", theme_command,
                         usage="[name] [--save]"),)  # fmt: skip
