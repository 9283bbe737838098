"""Markdown tokens cleaned after markdown decoded them.

A reply is cleaned before it is parsed, but parsing decodes again: an autolink's shown
text is percent-decoded (`<http://x/%1b]52;c;…%1b%5c>` shows ESC ] 52, a clipboard
write), entities become characters. `clean_tokens` cleans every text a token holds
(content, info string, attributes, children) after that last decoding step, so what
Rich or `lines.render_prose` draw from them holds no terminal control. A link's target also
goes inside an OSC 8 hyperlink when pi's `terminal.hyperlinks` is on: `link_target`
leaves it printable ASCII (anything else percent-encoded), so it cannot end the
sequence or start another.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from markdown_it.token import Token
from rich.markdown import Markdown

from widgets.text.safe import clean

_LINK_ATTRS = ("href", "src")
_URL_SAFE = "!#$%&'()*+,/:;=?@[]~"  # printable ASCII a URL keeps as it is (with letters, digits, -._)


def link_target(url: str) -> str:
    """`url` cleaned, and in printable ASCII: what may go inside an OSC 8 hyperlink."""
    return quote(clean(url), safe=_URL_SAFE)


def clean_tokens(tokens: Sequence[Token]) -> Sequence[Token]:
    """The tokens (changed in place) with every text they hold cleaned; returns them."""
    pending = list(tokens)
    while pending:  # a list, not recursion: nesting comes from the reply
        token = pending.pop()
        if token.content:
            token.content = clean(token.content)
        if token.info:
            token.info = clean(token.info)
        if token.attrs:
            token.attrs = {
                key: link_target(value) if key in _LINK_ATTRS else clean(value) if isinstance(value, str) else value
                for key, value in token.attrs.items()
            }
        if token.children:
            pending.extend(token.children)
    return tokens


class SafeMarkdown(Markdown):
    """Rich's `Markdown` over cleaned tokens (for text printed outside the App)."""

    def __init__(self, markup: str, **options: object) -> None:
        super().__init__(markup, **options)  # type: ignore[arg-type]
        clean_tokens(self.parsed)
