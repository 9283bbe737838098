"""`/diff` (F9): the Changes view, the files this session changed through pi's `edit` and
`write` tools with their diffs; Enter on a change shows its tool call in the transcript;
`r`/`R` revert a hunk or a file (app/commands/file_reverts.py), and when the view closes, the
prompt editor holds a note to pi of what was reverted, for the user to finish and send."""

from __future__ import annotations

from app.commands.context import CommandContext, SlashCommand
from app.commands.file_reverts import reverts_of
from protocol.state.file_changes import file_changes
from widgets.screens.changes_screen import ChangesScreen, revert_change

async def diff_command(ctx: CommandContext, args: str) -> None:
    reverts = reverts_of(ctx) if ctx.config.remote is None else None
    runs = ctx.session.tool_runs()
    files = file_changes(runs, str(ctx.cwd), reverts.bash_files if reverts is not None else None)
    bash = [run.tool_call_id for run in runs if run.name == "bash" and run.done]
    note = (reverts.bash_note(bash) if reverts is not None
            else f"Files changed by bash commands are not shown: pi runs on {ctx.config.remote}.")
    if reverts is not None:
        by_path = {file.path: file for file in files}
        for done in reverts.done:
            if (file := by_path.get(done.plan.label)) is not None:
                file.changes.append(revert_change(done.plan))
    why_not = f"pi runs on {ctx.config.remote}: pideck reverts files on this machine only"
    since = len(reverts.done) if reverts is not None else 0
    tool_call_id = await ctx.ask(ChangesScreen(files, copy=ctx.copy, reverts=reverts, why_not=why_not, note=note))
    if reverts is not None and (note := reverts.note(since)):
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
