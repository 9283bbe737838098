"""Markdown to lines: `render_prose` against Rich's `Markdown`, on the stream benchmark's reply.

The 3,000-delta reply of `stream_to_screen` is cut into the chunks `StreamingText`
renders (`MarkdownChunker`); each chunk is parsed once and rendered at 88 columns by
(a) Rich's `Markdown` through `Console.render_lines`, as pideck did before, and
(b) `widgets.markdown.lines.render_prose`, which lays prose out identically (a test holds
it to Rich's output). Both include the markdown-it parse. Best of 5 rounds, taking turns.
A ratio below 1.00x means `render_prose` is faster.

Run: `python -m benchmarks markdown_render`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.style import Style

from benchmarks.harness import fastest_passes, long_reply_deltas
from benchmarks.table import Row
from widgets.markdown.chunks import MarkdownChunker
from widgets.markdown.lines import render_prose
from widgets.markdown.render import PARSER, _Markdown

WIDTH = 88
REPEAT = 5


def reply_chunks() -> list[str]:
    chunker = MarkdownChunker()
    chunker.feed("".join(long_reply_deltas()))
    return [*chunker.chunks, chunker.tail]


def run(repeat: int = REPEAT) -> list[Row]:
    chunks = reply_chunks()
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    options = console.options.update(width=WIDTH, height=None, highlight=False)
    style = Style()

    def by_rich(chunk: str) -> object:
        return console.render_lines(_Markdown(chunk, PARSER.parse(chunk), style), options, pad=True, new_lines=False)

    def by_prose(chunk: str) -> object:
        return render_prose(PARSER.parse(chunk), console, WIDTH, style)

    def parse_only(chunk: str) -> object:
        return PARSER.parse(chunk)

    renderers: dict[str, Callable[[str], object]] = {"rich": by_rich, "prose": by_prose, "parse": parse_only}
    ms = {name: seconds * 1000 for name, seconds in fastest_passes(renderers, chunks, repeat).items()}
    rich_name = f"Rich Markdown, {len(chunks)} chunks"
    return [
        Row(f"render_prose, {len(chunks)} chunks of the 3,000-delta reply", ms["prose"], "ms", rich_name, ms["rich"]),
        Row(rich_name, ms["rich"], "ms"),
        Row("of which markdown-it parsing", ms["parse"], "ms", rich_name, ms["rich"]),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("markdown_render", row) for row in run()))
