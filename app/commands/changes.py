"""`/diff` (F9): the Changes view, the files this session changed through pi's `edit` and
`write` tools with their diffs; Enter on a change shows its tool call in the transcript;
`r`/`R` revert a hunk or a file (app/commands/file_reverts.py), and when the view closes, the
prompt editor holds a note to pi of what was reverted, for the user to finish and send."""

from __future__ import annotations

import asyncio

from app.commands.context import CommandContext, SlashCommand
from app.commands.file_reverts import reverts_of
from protocol.state.file_changes import file_changes
from widgets.screens.changes_screen import ChangesScreen, revert_change

async def diff_command(ctx: CommandContext, args: str) -> None:
    reverts = reverts_of(ctx)
    runs = ctx.session.tool_runs()
    bash = [run.tool_call_id for run in runs if run.name == "bash" and run.done]
    calls = [run.tool_call_id for run in runs if run.name in ("edit", "write", "bash") and run.done]

    def read() -> tuple[list, str]:  # the checkpoints: on pi's host, over ssh, all in one connection
        reverts.prefetch(calls)
        return file_changes(runs, str(reverts.cwd()), reverts.bash_files), reverts.bash_note(bash)

    files, note = await asyncio.to_thread(read)
    by_path = {file.path: file for file in files}
    for done in reverts.done:
        if (file := by_path.get(done.plan.label)) is not None:
            file.changes.append(revert_change(done.plan))
    since = len(reverts.done)
    tool_call_id = await ctx.ask(ChangesScreen(files, copy=ctx.copy, reverts=reverts, note=note))
    if note := reverts.note(since):
        editor = ctx.editor
        editor.load(f"{editor.text.rstrip()}\n\n{note}" if editor.text.strip() else note)
    if tool_call_id:
        await ctx.show_tool_call(tool_call_id)


COMMANDS = (
    SlashCommand(
        "diff",
        "The files this session changed through edit, write and bash, with their diffs (F9); "
        "c copies a file's patch, r/R revert a hunk/file, u undoes, Enter goes to the tool call",
        diff_command,
    ),
)
