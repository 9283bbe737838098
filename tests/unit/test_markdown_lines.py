"""`render_prose` lays prose out exactly as Rich's Markdown does, and leaves the rest to Rich."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from widgets.markdown.lines import render_prose
from widgets.markdown.render import PARSER, _Markdown

CONSOLE = Console(width=120, color_system="truecolor", force_terminal=True)
BASE_STYLES = (Style(), Style(color="red", bgcolor="black"))

PROSE = [
    "plain words",
    "word1 and more word2 and more " * 12,
    "a *few* words **bold** `code` ~~gone~~ ***both*** and [a **link**](https://x.y/z) here.\nsoft\\\nhard",
    "## Heading two\n\nParagraph after.",
    "# H1 `code`\n\n### h3\n\n#### h4\n\n##### h5\n\n###### h6\n\n##\n\nafter an empty heading",
    "- item **41** with `code_41` and enough words to wrap around the narrow width\n- second\n"
    "  - nested one\n  - nested two, long enough to wrap at the narrow widths we test\n- third",
    "1. one\n2. two\n3. three\n4. four\n5. five\n6. six\n7. seven\n8. eight\n9. nine\n10. ten",
    "7. seven\n8. eight",
    "- loose\n\n- list\n\n  with two paragraphs",
    "> quoted **text** that goes on for long enough to wrap in the quote\n> - and a list\n>\n> > nested",
    "para\n\n---\n\nafter the rule\n\n- a list after a paragraph",
    "- ending with a rule\n\n  ***",
    "Averyveryveryveryveryveryveryveryveryveryveryveryverylongword and then more",
    "wide 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 chars and emoji 🎉🎉🎉 in a paragraph",
    "trailing spaces   \nnext line",
    "text with &amp; an entity, \\*escaped\\* stars and a_snake_case_name",
]
NOT_PROSE = [
    "```python\nx = 1\n```",
    "    indented code",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "<b>html</b>",
    "an image ![alt](x.png)",
    "a\ttab",
]


def normalized(lines: list[list[Segment]]) -> list[list[tuple[str, Style]]]:
    """Lines as (text, style) runs: adjacent runs of one style merged, no style = null style."""
    result = []
    for line in lines:
        runs: list[tuple[str, Style]] = []
        for text, style, _ in line:
            style = style or Style()
            if runs and runs[-1][1] == style:
                runs[-1] = (runs[-1][0] + text, style)
            elif text:
                runs.append((text, style))
        result.append(runs)
    return result


def by_rich(markdown: str, width: int, style: Style) -> list[list[Segment]]:
    options = CONSOLE.options.update(width=width, height=None, highlight=False)
    return CONSOLE.render_lines(_Markdown(markdown, PARSER.parse(markdown), style), options, pad=True, new_lines=False)


def by_us(markdown: str, width: int, style: Style) -> list[list[Segment]] | None:
    return render_prose(PARSER.parse(markdown), CONSOLE, width, style)


@pytest.mark.parametrize("markdown", PROSE)
@pytest.mark.parametrize("width", [12, 37, 80])
@pytest.mark.parametrize("style", BASE_STYLES, ids=["plain", "coloured"])
def test_prose_is_laid_out_as_rich_does(markdown: str, width: int, style: Style) -> None:
    ours = by_us(markdown, width, style)
    assert ours is not None, "prose is ours to render"
    assert normalized(ours) == normalized(by_rich(markdown, width, style))


@pytest.mark.parametrize("markdown", NOT_PROSE)
def test_everything_else_is_left_to_rich(markdown: str) -> None:
    assert by_us(markdown, 40, Style()) is None


def test_lists_nested_deeper_than_the_width_are_left_to_rich() -> None:
    assert by_us("- a\n  - b\n    - c", 5, Style()) is None


PIECES = [
    "word", "**bold**", "*em*", "`code`", "~~s~~", "[l](u)", "漢字", "🎉", "a_b", "x" * 30, "&lt;", "3.",
    "-", "*", "_", "\n", "\n\n", "\n- ", "\n1. ", "\n  - ", "\n> ", "\n> > ", "\n## ", "\n---\n", "  ", "\\\n",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " "])), min_size=1, max_size=25),
    st.integers(min_value=6, max_value=100),
    st.sampled_from(BASE_STYLES),
)
def test_any_mix_of_prose_is_laid_out_as_rich_does(pieces: list[tuple[str, str]], width: int, style: Style) -> None:
    markdown = "".join(piece + gap for piece, gap in pieces)
    ours = by_us(markdown, width, style)
    if ours is not None:
        assert normalized(ours) == normalized(by_rich(markdown, width, style))
