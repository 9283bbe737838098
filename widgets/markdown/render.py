"""Markdown chunks to lines: markdown-it's parse, pideck's own prose layout
(`lines.render_prose`), and Rich for code, tables and the rest.

Imported when the first chunk of markdown is rendered, not at start-up: markdown-it, Rich's
Markdown and Syntax (Pygments) are some 35 ms of it, and a new session shows no markdown
before its first reply.
"""

from __future__ import annotations

from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax

from widgets.colors import palette
from widgets.markdown.lines import render_prose
from widgets.markdown.safe import clean_tokens


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class _IndentedCode(CodeBlock):
    """A code block with pi's markdown.codeBlockIndent before each line; unset (None), with
    Rich's padding of a cell all round."""

    indent: str | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> CodeBlock:
        block = super().create(markdown, token)
        block.indent = getattr(markdown, "code_indent", None)
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.indent is None:
            yield from super().__rich_console__(console, options)
            return
        syntax = Syntax(str(self.text).rstrip(), self.lexer_name, theme=self.theme, word_wrap=True)
        width = max(1, options.max_width - cell_len(self.indent))
        for line in console.render_lines(syntax, options.update_width(width)):
            yield Segment(self.indent)
            yield from line
            yield Segment.line()


PARSER = MarkdownIt().enable("strikethrough").enable("table")
"""One parser for every chunk (Rich builds one per `Markdown`, which costs more than
parsing a chunk)."""


class _Markdown(Markdown):
    """Rich's Markdown with left-aligned headings, over tokens already parsed."""

    elements: ClassVar = {**Markdown.elements, "heading_open": _LeftHeading, "fence": _IndentedCode,
                          "code_block": _IndentedCode}

    def __init__(
        self, markup: str, parsed: list[Token], style: Style, hyperlinks: bool = False, code_indent: str | None = None
    ) -> None:
        self.markup = markup
        self.parsed = parsed
        self.code_theme = self.inline_code_theme = palette.syntax_theme()
        self.justify = None
        self.style = style
        self.hyperlinks = hyperlinks
        self.code_indent = code_indent
        self.inline_code_lexer = None


def markdown_lines(chunk: str, console: Console, width: int, style: Style, links: bool,
                   code_indent: str | None = None) -> list[list[Segment]] | Markdown:
    """`chunk`'s lines laid out as prose, or (code, tables and the rest) what Rich renders."""
    tokens = clean_tokens(PARSER.parse(chunk))  # parsing decodes: cleaned after it
    prose = render_prose(tokens, console, width, style, links)
    return prose if prose is not None else _Markdown(chunk, tokens, style, links, code_indent)
