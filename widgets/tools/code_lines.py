"""Code shown as a tool's output: lines highlighted for a file's language (Pygments
through Rich's `Syntax`, in the palette's `syntax*` colours) and a line-number gutter.

Each line is cleaned of terminal controls (`one_row`: a line stays one row) before it is highlighted; a file name whose
language Pygments does not know shows as plain text. The work is bounded per line: a
line longer than HIGHLIGHT_CHARS (minified code) shows plain, and a block that shows
only the start of long lines (`cut`) cuts them before anything else is done to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fnmatch import translate
from functools import lru_cache

from rich.text import Text

from widgets.colors import palette
from widgets.text.safe import one_row

TAB = 4
HIGHLIGHT_CHARS = 4_000  # a longer line is not highlighted (Pygments takes seconds on a minified megabyte)


_SIMPLE_PATTERN = re.compile(r"\*\.[A-Za-z0-9_+-]+")
_plain: ContextVar[bool] = ContextVar("plain", default=False)


@contextmanager
def unhighlighted() -> Iterator[None]:
    """Code made inside is left plain: the same characters, so the same rows, as
    highlighted, without Pygments' cost (a block off screen, highlighted later)."""
    token = _plain.set(True)
    try:
        yield
    finally:
        _plain.reset(token)


@lru_cache(maxsize=1)
def _name_patterns() -> re.Pattern[str]:
    """Pygments' file-name patterns that are more than `*.ext` (`Makefile`, `*.html.j2`...), as one."""
    from pygments.lexers import get_all_lexers  # (Pygments: by the first file shown, not at start-up)

    patterns = {pattern for _, _, globs, _ in get_all_lexers() for pattern in globs if not _SIMPLE_PATTERN.fullmatch(pattern)}
    return re.compile("|".join(translate(pattern) for pattern in sorted(patterns)))


def lexer_for(path: str) -> str | None:
    """The Pygments lexer name for a file's name, or None (plain text). Pygments tries
    every lexer's patterns on each name; a name only `*.ext` patterns can match is looked
    up once per extension."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    if dot and stem and not _name_patterns().match(name):
        return _lexer_named("x." + extension)
    return _lexer_named(name)


@lru_cache(maxsize=256)
def _lexer_named(name: str) -> str | None:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(name).aliases[0]
    except (ClassNotFound, IndexError, ValueError):
        return None


def code_lines(lines: list[str], lexer: str | None, cut: int = 0) -> list[Text]:
    """`lines` cleaned (one row each), tabs expanded, highlighted with `lexer` (plain when None); with
    `cut`, a line longer than `cut` characters shows its first `cut` and "…"."""
    if cut:
        return [_cut(line, cut, text) for line, text in zip(lines, code_lines([line[: cut + 1] for line in lines], lexer), strict=True)]
    shown = [one_row(line).expandtabs(TAB) for line in lines]
    long = {index for index, line in enumerate(shown) if len(line) > HIGHLIGHT_CHARS}
    if lexer is None or _plain.get() or len(long) == len(shown):
        return [Text(line) for line in shown]
    code = "\n".join("" if index in long else line for index, line in enumerate(shown))
    from rich.syntax import Syntax

    try:
        text = Syntax("", lexer, theme=palette.syntax_theme()).highlight(code)
    except Exception:  # a lexer Pygments fails on: plain text rather than no text
        return [Text(line) for line in shown]
    text.rstrip_end(len(code))  # highlight() adds a final newline
    parts = text.split("\n", allow_blank=True)
    if len(parts) != len(shown):
        return [Text(line) for line in shown]
    return [Text(shown[index]) if index in long else part for index, part in enumerate(parts)]


def _cut(line: str, cut: int, text: Text) -> Text:
    """`text` (line's first cut + 1 characters as shown) with its end past `cut` replaced by "…"."""
    if len(line) <= cut:
        return text
    shown = text[:cut]
    shown.append("…", palette.style("muted"))
    return shown


def gutter(number: int | str, width: int) -> Text:
    """A line number right-aligned in `width` cells, then a space."""
    return Text(f"{number!s:>{width}} ", palette.style("lineNumber"))


def numbered(lines: list[Text], first: int) -> Text:
    """`lines` under one another, each after its number (counting from `first`)."""
    width = len(str(first + max(0, len(lines) - 1)))
    text = Text()
    for offset, line in enumerate(lines):
        if offset:
            text.append("\n")
        text.append_text(gutter(first + offset, width))
        text.append_text(line)
    return text
