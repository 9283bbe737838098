"""The colours pideck draws foreign text with, by pi's theme role names (pi's
`docs/themes.md`: `error`, `toolDiffAdded`, `syntaxKeyword`, ...).

Widgets ask `style(role)` instead of naming colours, so a theme recolours them all
in one place: `use` installs a theme's roles and bumps `generation`, which caches of
rendered text key on. The defaults are pideck's dark look in the terminal's own
ANSI colours.
"""

from __future__ import annotations

from collections.abc import Mapping

from typing import TYPE_CHECKING

from rich.style import Style

if TYPE_CHECKING:
    from rich.syntax import SyntaxTheme

DEFAULT_ROLES: dict[str, str] = {
    "text": "",
    "muted": "dim",
    "dim": "dim",
    "accent": "magenta",
    "success": "green",
    "error": "red",
    "warning": "yellow",
    "toolTitle": "bold",
    "toolPath": "cyan",
    "toolOutput": "",
    "toolDiffAdded": "green",
    "toolDiffRemoved": "red",
    "toolDiffContext": "dim",
    "toolDiffEmphasis": "reverse",
    "lineNumber": "dim",
    "syntaxComment": "dim italic",
    "syntaxKeyword": "blue",
    "syntaxFunction": "yellow",
    "syntaxVariable": "cyan",
    "syntaxString": "green",
    "syntaxNumber": "magenta",
    "syntaxType": "magenta",
    "syntaxOperator": "",
    "syntaxPunctuation": "",
    "thinkingText": "dim italic",
    "selectedBg": "reverse",
    "searchMatchBg": "on yellow",
    "searchMatchText": "black",
    "mdHeading": "yellow",
    "mdLink": "blue",
    "mdLinkUrl": "dim",
    "mdCode": "cyan",
    "mdCodeBlock": "",
    "mdCodeBlockBorder": "dim",
    "mdQuote": "dim",
    "mdQuoteBorder": "dim",
    "mdHr": "dim",
    "mdListBullet": "magenta",
    "border": "cyan",
    "customMessageLabel": "blue",
    "bashMode": "green",
}

generation = 0
_styles: dict[str, Style] = {}
_syntax: SyntaxTheme | None = None


def use(roles: Mapping[str, str | Style]) -> None:
    """Draw with `roles` (missing ones keep their defaults) from now on."""
    global generation, _syntax
    merged: dict[str, str | Style] = {**DEFAULT_ROLES, **roles}
    _styles.clear()
    _styles.update({name: value if isinstance(value, Style) else Style.parse(value) for name, value in merged.items()})
    _syntax = None
    generation += 1


def style(role: str, extra: str = "") -> Style:
    """The style of a role (with `extra` attributes, e.g. "bold"); a plain style for a
    role no theme names."""
    if not extra:
        return _styles.get(role) or Style.null()
    key = f"{role} {extra}"
    if key not in _styles:
        _styles[key] = Style.parse(extra) + style(role)
    return _styles[key]


def syntax_theme() -> SyntaxTheme:
    """A Rich syntax theme from the `syntax*` roles, for `rich.syntax.Syntax` (Pygments is
    imported by the first code shown, not at start-up)."""
    global _syntax
    if _syntax is None:
        from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Token
        from rich.syntax import ANSISyntaxTheme

        tokens = {"syntaxComment": Comment, "syntaxKeyword": Keyword, "syntaxFunction": Name.Function,
                  "syntaxVariable": Name.Variable, "syntaxString": String, "syntaxNumber": Number,
                  "syntaxType": Keyword.Type, "syntaxOperator": Operator, "syntaxPunctuation": Punctuation}
        _syntax = ANSISyntaxTheme({Token: style("text"), **{token: style(role) for role, token in tokens.items()},
                                   Name.Class: style("syntaxType"), Name.Builtin: style("syntaxFunction"),
                                   Name.Decorator: style("syntaxFunction"), Comment.Preproc: style("syntaxKeyword")})
    return _syntax


use({})
