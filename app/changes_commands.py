"""`/diff` (F9): the Changes view, the files this session changed through pi's `edit` and
`write` tools with their diffs; Enter on a change shows its tool call in the transcript."""

from __future__ import annotations

from app.command_context import CommandContext, SlashCommand
from protocol.file_changes import file_changes
from widgets.changes_screen import ChangesScreen


async def diff_command(ctx: CommandContext, args: str) -> None:
    files = file_changes(ctx.session.tool_runs(), str(ctx.cwd))
    tool_call_id = await ctx.ask(ChangesScreen(files, copy=ctx.copy))
    if tool_call_id:
        await ctx.show_tool_call(tool_call_id)


COMMANDS = (
    SlashCommand(
        "diff",
        "The files this session changed through edit and write, with their diffs (F9); "
        "c copies a file's patch, Enter goes to the tool call",
        diff_command,
    ),
)
