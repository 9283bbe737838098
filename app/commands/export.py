"""`/export [path]` (pi's `export_html`) and `/copy` (the last answer, or a code block of
it, copied with OSC 52).

OSC 52 goes through the terminal, so `/copy` works over ssh and inside tmux (when
tmux's `set-clipboard` allows it); Textual's `App.copy_to_clipboard` writes it.
"""

from __future__ import annotations

from pathlib import Path

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded
from protocol.wire.commands import ExportHtml, GetLastAssistantText
from protocol.numbers import parse_int


def resolve(ctx: CommandContext, path: str) -> Path:
    """`path` as pi will write it: `~` expanded, relative to pi's working directory."""
    return Path(ctx.pi.config.cwd) / Path(path).expanduser()


@guarded("/export failed")
async def export_command(ctx: CommandContext, args: str) -> None:
    if args.lower().endswith(".jsonl"):
        state = ctx.pi.model.state
        where = f" The session file itself is {state.session_file}." if state and state.session_file else ""
        ctx.warn(f"pi's RPC exports HTML only, not JSONL.{where}", title="/export")
        return
    if (host := ctx.pi.config.remote) is not None:  # pi resolves the path on its host
        result = await ctx.pi.client.call(ExportHtml(output_path=args or None))
        ctx.say(f"Exported on {host} to {result.path}", title="/export", timeout=10)
        return
    target = str(resolve(ctx, args)) if args else None
    result = await ctx.pi.client.call(ExportHtml(output_path=target))
    ctx.say(f"Exported to {resolve(ctx, result.path)}", title="/export", timeout=10)


def code_blocks(markdown: str) -> list[str]:
    """The code blocks (fenced or indented) of a markdown text, in order."""
    from widgets.markdown.render import PARSER  # (markdown-it: not at start-up)

    return [token.content for token in PARSER.parse(markdown) if token.type in ("fence", "code_block")]


def _lines(text: str) -> str:
    lines = text.count("\n") + 1
    return f"{lines} line{'s' * (lines != 1)}"


@guarded("/copy failed")
async def copy_command(ctx: CommandContext, args: str) -> None:
    words = args.split()
    asked = parse_int(words[1], low=1) if len(words) == 2 else None
    if words and (words[0] != "code" or len(words) > 2 or (len(words) == 2 and asked is None)):
        ctx.warn("Usage: /copy, /copy code, or /copy code N (the Nth code block of the last answer).", title="/copy")
        return
    last = await ctx.pi.client.call(GetLastAssistantText())
    text = last.text if last is not None else None
    if not text:
        ctx.warn("There is no assistant answer to copy yet.", title="/copy")
        return
    if not words:
        ctx.desk.shell.copy_to_clipboard(text)
        ctx.say(f"Copied the last answer ({len(text):,} characters, {_lines(text)}).", title="/copy")
        return
    blocks = code_blocks(text)
    number = asked if asked is not None else len(blocks)
    if not 1 <= number <= len(blocks):
        have = f"has {len(blocks)} code block{'s' * (len(blocks) != 1)}" if blocks else "has no code block"
        ctx.warn(f"The last answer {have}.", title="/copy")
        return
    code = blocks[number - 1].removesuffix("\n")
    ctx.desk.shell.copy_to_clipboard(code)
    ctx.say(f"Copied code block {number} of {len(blocks)} ({_lines(code)}).", title="/copy")


COMMANDS = (
    SlashCommand(
        "export",
        "Save the session as an HTML file (default name in pi's working directory)",
        export_command,
        usage="[path.html]",
    ),
    SlashCommand(
        "copy",
        "Copy the last assistant answer to the clipboard (Ctrl+X; OSC 52, works over ssh); "
        "`code` copies its last code block, `code N` its Nth",
        copy_command,
        usage="[code [N]]",
    ),
)
