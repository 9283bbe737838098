"""`/diff` (F9): the Changes view, the files this session changed through pi's `edit`,
`write` and `bash` tools with their diffs, from the calls of the session's branch (pi's
entries, each call named by where it is: tool call ids may repeat); Enter on a change shows
its tool call in the transcript; `r`/`R` revert a hunk or a file
(app/pi/file_reverts.py), and when the view closes, the prompt editor holds a note to pi
of what was reverted, for the user to finish and send."""

from __future__ import annotations

import asyncio

from app.commands.context import CommandContext, SlashCommand
from protocol.state.branch_calls import USER_BASH, BranchCall, branch, branch_calls, run_call, with_runs
from protocol.state.file_changes import file_changes
from protocol.wire.client import RpcError
from protocol.wire.commands import GetEntries
from widgets.screens.changes_screen import ChangesScreen, revert_change

FILE_TOOLS = ("edit", "write", "bash")


async def diff_command(ctx: CommandContext, args: str) -> None:
    reverts = ctx.pi.reverts
    try:
        listing = await ctx.pi.client.call(GetEntries())
    except RpcError:
        calls = [run_call(run) for run in ctx.pi.model.tool_runs()]  # (a JSON stream viewed)
        reverts.session_entries([])
    else:
        calls = branch_calls(branch(listing.entries, listing.leaf_id))
        with_runs(calls, ctx.pi.model.tool_runs())
        reverts.session_entries(listing.entries)
    changing = [call for call in calls if call.name in FILE_TOOLS and call.done]
    # pi's bash calls whose changes are not shown are said (a !command is said nowhere: it may be from before pideck copied them)
    bash = [call.key for call in changing if call.name == "bash" and call.key.index != USER_BASH]

    def read() -> tuple[list, str]:  # the checkpoints: on pi's host, over ssh, all in one connection
        reverts.prefetch([call.key for call in changing])
        return file_changes(changing, str(reverts.cwd()), reverts.bash_files), reverts.bash_note(bash)

    files, note = await asyncio.to_thread(read)
    by_path = {file.path: file for file in files}
    for done in reverts.done:
        if (file := by_path.get(done.plan.label)) is not None:
            file.changes.append(revert_change(done.plan))
    since = len(reverts.done)
    chosen = await ctx.ask(ChangesScreen(files, copy=ctx.desk.shell.copy_to_clipboard, reverts=reverts, note=note,
                                         read_only=reverts.read_only))
    if note := reverts.note(since):
        editor = ctx.screen.editor
        editor.load(f"{editor.text.rstrip()}\n\n{note}" if editor.text.strip() else note)
    call: BranchCall | None = next((call for call in calls if call.key == chosen), None)
    if call is not None and call.run_key:
        await ctx.screen.show_tool_call(call.run_key)


COMMANDS = (
    SlashCommand(
        "diff",
        "The files this session changed through edit, write and bash, with their diffs (F9); "
        "c copies a file's patch, r/R revert a hunk/file, u undoes, Enter goes to the tool call",
        diff_command,
    ),
)
