"""What pideck leaves in the terminal when the user quits, as pi's fullscreen mode does.

pi's `fullscreenExitOutput` setting chooses: "transcript" (the default) prints the
conversation into the terminal's scrollback, "resume-hint" prints only how to resume.
Either way, when the session is saved, the command that opens it again follows on a
line of its own (to select with a triple click), printable and quoted to be pasted
(app/cli/resume_commands.py). The conversation is printed as text: the user's and pi's
messages, one line per tool call with the end of its output, cleaned as the transcript
is; nothing from the model is read as markup or reaches the terminal as control
sequences, and a session's name shows its controls (`visible`).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import IO

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from app.pi.launch import LaunchConfig
from app.pi.settings import display, exit_output_setting
from app.cli.resume_commands import resume_line
from protocol.wire.messages import BashExecutionMessage
from protocol.state.session_model import Banner, MessageItem, SessionModel
from widgets.transcript.message_views import MARKDOWN_ROLES, message_footer, message_label, run_mark, tail_text
from protocol.control_codes import visible
from widgets.text.safe import clean
from widgets.tools.kinds import Call, kind_of
from widgets.transcript.transcript import hidden_in_transcript
from widgets.colors import palette

OUTPUT_LINES = 3  # the last lines of a tool's or a command's output


def print_exit_output(model: SessionModel, args: argparse.Namespace, config: LaunchConfig, file: IO[str],
                      started: bool = True) -> None:
    """The conversation (unless pi's settings say "resume-hint") and how to resume it
    (`started`: the session pideck was started with, else one /open started or pideck
    attach showed, `config`'s)."""
    console = Console(file=file, highlight=False, soft_wrap=False)
    if exit_output_setting(config) != "resume-hint":
        for renderable in transcript(model, display(config).hyperlinks):
            console.print(renderable)
    command = resume_line(args, config, model.state, started)
    if command is not None:
        console.print(Text("To resume this session:", palette.style("muted")))
        console.print(Text(command), soft_wrap=True)


def print_other_sessions(sessions: list[tuple[str, str | None]], file: IO[str]) -> None:
    """How to resume each other session pideck had open (its name, its command or None when
    it is not saved)."""
    if not sessions:
        return
    console = Console(file=file, highlight=False, soft_wrap=False)
    console.print(Text("The other sessions:", palette.style("muted")))
    for name, command in sessions:
        console.print(Text(f"{visible(name, one_line=True)}: ", palette.style("muted")).append(command or "not saved"),
                      soft_wrap=True)


def transcript(model: SessionModel, hyperlinks: bool = False) -> Iterator[RenderableType]:
    """The conversation as Rich renderables (`hyperlinks`: markdown links as OSC 8 links, as
    pi's terminal.hyperlinks setting says)."""
    for item in model.items:
        if isinstance(item, Banner):
            yield Text(f"— {clean(item.title)}{f': {clean(item.outcome)}' if item.outcome else ''}", palette.style("muted"))
        elif not hidden_in_transcript(model, item):
            yield Group(message_label(item), Padding(Group(*_body(model, item, hyperlinks)), (0, 0, 1, 2)))


def _body(model: SessionModel, item: MessageItem, hyperlinks: bool) -> Iterator[RenderableType]:
    if isinstance(item.message, BashExecutionMessage):
        # a `!command` run in this session streamed its output into a block, which then also
        # went into the message (pi's answer) or holds the error: print one of them once
        streamed = item.blocks.get(0)
        yield from _output(streamed.text if streamed is not None else item.message.output)
        if footer := message_footer(item):
            yield footer
        return
    markdown = item.role in MARKDOWN_ROLES
    from widgets.markdown.safe import SafeMarkdown  # (markdown-it: at exit, not at start-up)

    for index, block in item.ordered_blocks():
        call = block.tool_call
        if call is not None:
            run = model.run_at(item.key, index)
            line = Text.assemble(run_mark(run), kind_of(call.name).title(Call(call.name, call.arguments, run, model.cwd)))
            yield Group(line, *_output(run.output if run is not None else ""))
        elif block.kind == "text" and block.text.strip():
            yield SafeMarkdown(block.text, hyperlinks=hyperlinks) if markdown else tail_text(block.text.rstrip("\n"), 40)
        elif block.kind == "image":
            yield Text("[image]", palette.style("warning"))
    if footer := message_footer(item):
        yield footer


def _output(output: str) -> Iterator[Text]:
    if output.strip():
        yield tail_text(output.rstrip("\n"), OUTPUT_LINES, palette.style("muted"))
