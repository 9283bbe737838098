"""Markdown prose to lines of segments, without Rich's renderable machinery.

Rich's `Markdown` renders every element through `Console.render`: a tree of
renderables, style stacks and line splitting that costs about 1 ms for a paragraph.
A streaming reply renders a chunk per paragraph, so that was most of the work per
frame. `render_prose` walks markdown-it's tokens itself and lays out paragraphs,
headings, lists, block quotes and rules exactly as Rich does (a test holds it to
Rich's output), in a fraction of the time.

Anything else (code, tables, HTML, images) returns None: the caller renders that
chunk with Rich's `Markdown`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len, chop_cells, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style

if TYPE_CHECKING:
    from markdown_it.token import Token

Line = list[Segment]

_WORD = re.compile(r"\s*\S+(\s*)")
_TRAILING_SPACE = re.compile(r"\s+$")
_INLINE_STYLES = {"strong": "markdown.strong", "em": "markdown.em", "s": "markdown.s"}
_BLOCKS = {
    "paragraph_open",
    "heading_open",
    "bullet_list_open",
    "ordered_list_open",
    "list_item_open",
    "blockquote_open",
    "hr",
    "inline",
}
_INLINES = {
    "text",
    "softbreak",
    "hardbreak",
    "code_inline",
    "link_open",
    "link_close",
    *(f"{tag}_open" for tag in _INLINE_STYLES),
    *(f"{tag}_close" for tag in _INLINE_STYLES),
}


class Unsupported(Exception):
    """The chunk holds something `render_prose` leaves to Rich."""


def supported(tokens: Sequence[Token]) -> bool:
    """True if the tokens hold only prose, with no tab in it (Rich expands tabs)."""
    for token in tokens:
        if token.nesting == -1:
            continue
        if token.type not in _BLOCKS:
            return False
        if token.type == "inline" and (
            "\t" in token.content or any(child.type not in _INLINES for child in token.children or ())
        ):
            return False
    return True


def render_prose(
    tokens: Sequence[Token], console: Console, width: int, style: Style, links: bool = False
) -> list[Line] | None:
    """The lines Rich's `Markdown` would render for these tokens at `width`, with the
    document style `style` (`links`: a link's text and address are terminal hyperlinks,
    OSC 8); None if the tokens hold more than prose."""
    if not supported(tokens):
        return None
    try:
        return _Renderer(console, style, links).blocks(list(tokens), width)
    except Unsupported:
        return None


class _Renderer:
    def __init__(self, console: Console, style: Style, links: bool = False) -> None:
        self.style = style
        self.links = links
        self._styles: dict[str, Style] = {}
        self._console = console

    def theme(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self._console.get_style(name, default="none")
        return style

    # --- blocks ---------------------------------------------------------------------------

    def blocks(self, tokens: list[Token], width: int) -> list[Line]:
        """Top-level blocks with Rich's blank lines: one before each block unless the
        element closed last was a rule (a list or quote closes its children first, an
        empty paragraph or heading its empty inline element)."""
        lines: list[Line] = []
        blank = False
        for kind, inner in _split_blocks(tokens):
            if inner and kind.type in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
                blank = _closes_last(inner).type != "hr"
            elif inner and not inner[0].children:
                blank = True
            if blank:
                lines.append([])
            lines.extend(self.block(kind, inner, width, self.style))
            blank = kind.type != "hr"
        return [_pad(line, width, None) for line in lines]

    def block(self, open_: Token, inner: list[Token], width: int, style: Style) -> list[Line]:
        kind = open_.type
        if width < 1:
            raise Unsupported("no room")  # lists nested deeper than the width
        if kind in ("paragraph_open", "heading_open"):
            if kind == "heading_open":
                style = style + self.theme(f"markdown.{open_.tag}")
            else:
                style = style + self.theme("markdown.paragraph")
            return self.paragraph(inner[0] if inner else None, width, style)
        if kind in ("bullet_list_open", "ordered_list_open"):
            return self.list(open_, inner, width, style)
        if kind == "blockquote_open":
            return self.quote(inner, width, style)
        if kind == "hr":
            return [[Segment("-" * width, self.theme("markdown.hr"))], []]
        raise Unsupported(kind)

    def nested(self, tokens: list[Token], width: int, style: Style) -> list[Line]:
        """Blocks inside a list item or quote: one after another, no blank line between,
        each line padded to `width` in `style` (Rich's `render_lines(style=...)`)."""
        lines: list[Line] = []
        for kind, inner in _split_blocks(tokens):
            for line in self.block(kind, inner, width, style):
                styled = [Segment(text, style + segment_style if segment_style else style) for text, segment_style, _ in line]
                lines.append(_pad(styled, width, style))
        return lines

    def list(self, open_: Token, inner: list[Token], width: int, style: Style) -> list[Line]:
        items = [item for _, item in _split_blocks(inner)]
        lines: list[Line] = []
        item_style = style + self.theme("markdown.item")
        if open_.type == "bullet_list_open":
            bullet_style = self.theme("markdown.item.bullet")
            first, rest = Segment(" • ", bullet_style), Segment("   ", bullet_style)
            for item in items:
                for index, line in enumerate(self.nested(item, width - 3, item_style)):
                    lines.append([first if index == 0 else rest, *line])
            return lines
        start = int(open_.attrs.get("start", 1))
        number_width = len(str(start + len(items))) + 2
        number_style = self.theme("markdown.item.number")
        rest = Segment(" " * number_width, number_style)
        for offset, item in enumerate(items):
            numeral = Segment(f"{start + offset}".rjust(number_width - 1) + " ", number_style)
            for index, line in enumerate(self.nested(item, width - number_width, item_style)):
                lines.append([numeral if index == 0 else rest, *line])
        return lines

    def quote(self, inner: list[Token], width: int, style: Style) -> list[Line]:
        quote_style = style + self.theme("markdown.block_quote")
        bar = Segment("▌ ", quote_style)
        return [[bar, *line] for line in self.nested(inner, width - 4, quote_style)]

    # --- inline text ----------------------------------------------------------------------

    def paragraph(self, inline: Token | None, width: int, style: Style) -> list[Line]:
        """An inline token's text, styled, wrapped at `width` and padded (unstyled) to it."""
        spans: list[tuple[int, int, Style]] = []
        parts: list[str] = []
        offset = 0
        stack = [style]
        link: tuple[str, list[str]] | None = None  # a link's address and text, until it closes

        def add(text: str, span_style: Style) -> None:
            nonlocal offset
            if link is not None:  # a link shows its text plain, then its address
                link[1].append(text)
                return
            if text:
                parts.append(text)
                spans.append((offset, offset + len(text), span_style))
                offset += len(text)

        for child in (inline.children or ()) if inline is not None else ():
            kind = child.type
            if kind == "text":
                add(child.content, stack[-1])
            elif kind == "softbreak":
                add(" ", stack[-1])
            elif kind == "hardbreak":
                add("\n", stack[-1])
            elif kind == "code_inline":
                add(child.content, stack[-1] + self.theme("markdown.code"))
            elif kind.endswith("_open") and kind[:-5] in _INLINE_STYLES:
                stack.append(stack[-1] + self.theme(_INLINE_STYLES[kind[:-5]]))
            elif kind.endswith("_close") and kind[:-6] in _INLINE_STYLES:
                stack.pop()
            elif kind == "link_open":
                link = (str(child.attrs.get("href", "")), [])
            elif kind == "link_close" and link is not None:
                (href, text), link = link, None
                linked = Style(link=href) if self.links and href else Style()
                add("".join(text), stack[-1] + self.theme("markdown.link") + linked)
                add(" (", stack[-1])
                add(href, stack[-1] + self.theme("markdown.link_url") + linked)
                add(")", stack[-1])
        return _wrap("".join(parts), spans, width)


def _closes_last(tokens: list[Token]) -> Token:
    """The block token that closes last: a closing tag, or a rule."""
    return next((token for token in reversed(tokens) if token.nesting == -1 or token.type == "hr"), tokens[-1])


def _split_blocks(tokens: list[Token]) -> list[tuple[Token, list[Token]]]:
    """Top-level blocks of a token list: (opening token, the tokens inside)."""
    blocks: list[tuple[Token, list[Token]]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.nesting == 0:
            blocks.append((token, []))
            index += 1
            continue
        depth, end = 1, index + 1
        while depth:
            depth += tokens[end].nesting
            end += 1
        blocks.append((token, tokens[index + 1 : end - 1]))
        index = end
    return blocks


def _wrap(text: str, spans: list[tuple[int, int, Style]], width: int) -> list[Line]:
    """Rich's word wrap (`Text.wrap`, justify "left"): lines of styled segments, each
    at most `width` cells; words longer than a line are folded."""
    lines: list[Line] = []
    start = 0
    for piece in text.split("\n"):
        end = start + len(piece)
        for line_start, line_end in _divide(piece, width):
            lines.append(_cut(text, spans, start + line_start, start + line_end, width))
        start = end + 1
    return lines


def _divide(text: str, width: int) -> list[tuple[int, int]]:
    """Where a line of text breaks at `width`: (start, end) of each wrapped line."""
    breaks: list[int] = []
    used = 0
    ascii_only = _one_cell_each(text)
    for match in _WORD.finditer(text):
        start, end = match.span()
        word_end = match.start(1)
        if ascii_only:
            length, full = word_end - start, end - start
        else:
            length, full = cell_len(text[start:word_end]), cell_len(text[start:end])
        if width - used >= length:
            used += full
        elif length > width:  # fold the word over as many lines as it needs
            folded = chop_cells(text[start:end], width)
            for index, part in enumerate(folded):
                if start:
                    breaks.append(start)
                if index == len(folded) - 1:
                    used = cell_len(part)
                else:
                    start += len(part)
        elif used and start:
            breaks.append(start)
            used = full
    edges = [0, *breaks, len(text)]
    return list(zip(edges, edges[1:], strict=False))


def _cut(text: str, spans: list[tuple[int, int, Style]], start: int, end: int, width: int) -> Line:
    """The segments of text[start:end], trailing spaces past `width` dropped and the
    rest cropped to `width`."""
    line = text[start:end]
    if len(line) > width:
        match = _TRAILING_SPACE.search(line)
        if match is not None:
            end -= min(len(match.group()), len(line) - width)
            line = text[start:end]
    segments: Line = []
    for span_start, span_end, style in spans:
        if span_end <= start or span_start >= end:
            continue
        segments.append(Segment(text[max(span_start, start) : min(span_end, end)], style))
    if _cells(line) > width:
        return _crop(segments, width)
    return segments


def _crop(segments: Line, width: int) -> Line:
    cropped: Line = []
    used = 0
    for text, style, _ in segments:
        length = cell_len(text)
        if used + length > width:
            cropped.append(Segment(set_cell_size(text, width - used), style))
            break
        cropped.append(Segment(text, style))
        used += length
    return cropped


def _one_cell_each(text: str) -> bool:
    """Printable ASCII (most text): a character is a cell, no need to measure."""
    return text.isascii() and text.isprintable()


def _cells(text: str) -> int:
    return len(text) if _one_cell_each(text) else cell_len(text)


def _pad(line: Line, width: int, style: Style | None) -> Line:
    used = sum(_cells(text) for text, _, _ in line)
    if used < width:
        return [*line, Segment(" " * (width - used), style)]
    return line
