"""Markdown links as terminal hyperlinks (OSC 8) where pi's terminal.hyperlinks setting is
true: the link's text and address carry the link; otherwise no segment does."""

from __future__ import annotations

from rich.console import Console
from rich.style import Style

from widgets.markdown.lines import render_prose
from widgets.markdown.render import PARSER, _Markdown

CONSOLE = Console(width=80, color_system="truecolor", force_terminal=True)
TEXT = "See [the docs](https://pi.dev/docs) for more."


def linked(lines: list[list]) -> dict[str, str]:
    return {segment.text: segment.style.link for line in lines for segment in line
            if segment.style is not None and segment.style.link}


def test_prose_links_are_hyperlinks_only_when_asked() -> None:
    tokens = PARSER.parse(TEXT)
    assert linked(render_prose(tokens, CONSOLE, 80, Style(), links=True) or []) == {
        "the docs": "https://pi.dev/docs", "https://pi.dev/docs": "https://pi.dev/docs"}
    assert linked(render_prose(tokens, CONSOLE, 80, Style()) or []) == {}


def test_rich_rendered_chunks_follow_the_setting_too() -> None:
    text = TEXT + "\n\n```\ncode\n```\n"  # code: rendered by Rich's Markdown
    options = CONSOLE.options.update(width=80)
    on = CONSOLE.render_lines(_Markdown(text, PARSER.parse(text), Style(), hyperlinks=True), options)
    off = CONSOLE.render_lines(_Markdown(text, PARSER.parse(text), Style()), options)
    assert "https://pi.dev/docs" in linked(on).values() and linked(off) == {}
