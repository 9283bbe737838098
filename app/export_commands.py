"""`/export [path]` (pi's `export_html`) and `/copy` (the last answer, or a code block of
it, copied with OSC 52).

OSC 52 goes through the terminal, so `/copy` works over ssh and inside tmux (when
tmux's `set-clipboard` allows it); Textual's `App.copy_to_clipboard` writes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.command_support import guarded
from app.slash_commands import slash_command
from protocol.commands import ExportHtml, GetLastAssistantText
from widgets.markdown_stream import PARSER

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


def resolve(app: PideckApp, path: str) -> Path:
    """`path` as pi will write it: `~` expanded, relative to pi's working directory."""
    return Path(app.config.cwd) / Path(path).expanduser()


@slash_command("export", "Save the session as an HTML file (default name in pi's working directory)",
               usage="[path.html]")
@guarded("/export failed")
async def export_command(app: PideckApp, args: str) -> None:
    if args.lower().endswith(".jsonl"):
        state = app.model.state
        where = f" The session file itself is {state.session_file}." if state and state.session_file else ""
        app.notify(f"pi's RPC exports HTML only, not JSONL.{where}", title="/export", severity="warning",
                   markup=False)
        return
    target = str(resolve(app, args)) if args else None
    result = await app.client.call(ExportHtml(output_path=target))
    app.notify(f"Exported to {resolve(app, result.path)}", title="/export", markup=False, timeout=10)


def code_blocks(markdown: str) -> list[str]:
    """The code blocks (fenced or indented) of a markdown text, in order."""
    return [token.content for token in PARSER.parse(markdown) if token.type in ("fence", "code_block")]


def _lines(text: str) -> str:
    lines = text.count("\n") + 1
    return f"{lines} line{'s' * (lines != 1)}"


@slash_command("copy", "Copy the last assistant answer to the clipboard (Ctrl+X; OSC 52, works over ssh); "
               "`code` copies its last code block, `code N` its Nth", usage="[code [N]]")
@guarded("/copy failed")
async def copy_command(app: PideckApp, args: str) -> None:
    words = args.split()
    if words and (words[0] != "code" or len(words) > 2 or (len(words) == 2 and not words[1].isdigit())):
        app.notify("Usage: /copy, /copy code, or /copy code N (the Nth code block of the last answer).",
                   title="/copy", severity="warning", markup=False)
        return
    last = await app.client.call(GetLastAssistantText())
    text = last.text if last is not None else None
    if not text:
        app.notify("There is no assistant answer to copy yet.", title="/copy", severity="warning", markup=False)
        return
    if not words:
        app.copy_to_clipboard(text)
        app.notify(f"Copied the last answer ({len(text):,} characters, {_lines(text)}).", title="/copy", markup=False)
        return
    blocks = code_blocks(text)
    number = int(words[1]) if len(words) == 2 else len(blocks)
    if not 1 <= number <= len(blocks):
        have = f"has {len(blocks)} code block{'s' * (len(blocks) != 1)}" if blocks else "has no code block"
        app.notify(f"The last answer {have}.", title="/copy", severity="warning", markup=False)
        return
    code = blocks[number - 1].removesuffix("\n")
    app.copy_to_clipboard(code)
    app.notify(f"Copied code block {number} of {len(blocks)} ({_lines(code)}).", title="/copy", markup=False)
