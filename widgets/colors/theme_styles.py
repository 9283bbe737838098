"""A pi theme as what pideck draws with: a Textual `Theme` (the CSS variables of panes,
dialogs, borders, selection), the palette's roles (the Rich styles of the text pideck
renders) and Rich's `markdown.*` styles.

`system` is the terminal's own colours: Textual's ANSI themes, the palette's defaults
and Rich's markdown styles without their fixed backgrounds.
"""

from __future__ import annotations

from dataclasses import replace

from rich.style import Style
from rich.theme import Theme as RichTheme
from textual.theme import BUILTIN_THEMES
from textual.theme import Theme as TextualTheme

from protocol.files.pi_colors import RGB, Color, hex_of
from protocol.files.pi_themes import GUESSED_DEFAULTS, TOKENS, PiTheme
from widgets.colors import palette


def textual_name(theme: PiTheme | None, appearance: str) -> str:
    """The Textual theme's name: `system-dark`/`system-light`, else `pi-NAME`."""
    return f"system-{appearance}" if theme is None else f"pi-{theme.name}"


def textual_theme(theme: PiTheme, background: RGB | None = None) -> TextualTheme:
    """pi's roles as a Textual theme; `background` is the terminal's reported one (used
    where the theme leaves the background to the terminal, as pi does)."""
    dark = theme.appearance == "dark"
    back = background if background is not None else GUESSED_DEFAULTS[theme.appearance][1]

    def color(role: str, *, bg: bool = False) -> str:
        return hex_of(back) if bg and theme.colors[role] == "" else hex_of(theme.rgb(role, background=bg))

    return TextualTheme(
        name=textual_name(theme, theme.appearance),
        primary=color("border"), secondary=color("borderAccent"), accent=color("accent"),
        foreground=color("text"), background=hex_of(back), surface=color("toolPendingBg", bg=True),
        panel=color("userMessageBg", bg=True), boost=color("selectedBg", bg=True),
        error=color("error"), success=color("success"), warning=color("warning"), dark=dark,
        variables={
            "border": color("border"), "border-blurred": color("borderMuted"),
            "text-muted": color("muted"), "foreground-muted": color("muted"),
            "footer-key-foreground": color("accent"), "footer-description-foreground": color("muted"),
            "block-cursor-background": color("selectedBg", bg=True), "block-cursor-foreground": color("text"),
            "block-cursor-text-style": "bold", "block-cursor-blurred-background": color("selectedBg", bg=True),
            "block-hover-background": color("toolPendingBg", bg=True),
            "input-selection-background": color("selectedBg", bg=True),
            "screen-selection-background": color("selectedBg", bg=True), "screen-selection-foreground": color("text"),
            "scrollbar": color("scrollbarThumb"), "scrollbar-hover": color("text"), "scrollbar-active": color("accent"),
            "scrollbar-background": hex_of(back), "scrollbar-background-hover": hex_of(back),
            "scrollbar-background-active": hex_of(back), "scrollbar-corner-color": hex_of(back),
        },
    )  # fmt: skip


def _role_style(value: Color, slot: str) -> str:
    """A role's Rich style. A role pi leaves to the terminal ("") takes the colours of what it
    is drawn on, which are the theme's: the terminal's own would show through as a stripe."""
    if value == "":
        return ""
    color = f"color({value})" if isinstance(value, int) else value
    return f"on {color}" if slot == "bg" else color


def palette_roles(theme: PiTheme | None) -> dict[str, str]:
    """The palette's roles for a theme: every role pi defines, background roles as
    `on COLOUR`; none (the palette's defaults) for system."""
    if theme is None:
        return {}
    roles = {role: _role_style(theme.colors[role], slot) for role, (slot, _) in TOKENS.items()}
    emphasis = ("bold", roles["text"], _role_style(theme.colors["selectedBg"], "bg") or "reverse")
    return {**roles, "lineNumber": roles["dim"], "toolPath": roles["accent"],
            "toolDiffEmphasis": " ".join(part for part in emphasis if part)}


def markdown_styles() -> RichTheme:
    """Rich's `markdown.*` styles from the palette's `md*` roles, over Rich's own (whose
    inline code has a fixed black background)."""

    def role(name: str, extra: str = "") -> Style:
        return Style.parse(extra) + palette.style(name) if extra else palette.style(name)

    headings = {f"markdown.h{level}": role("mdHeading", "bold") for level in range(1, 7)}
    return RichTheme({
        **headings, "markdown.h1.border": role("mdHeading"),
        "markdown.code": role("mdCode", "bold"), "markdown.code_block": role("mdCodeBlock"),
        "markdown.link": role("mdLink", "underline"), "markdown.link_url": role("mdLinkUrl", "underline"),
        "markdown.block_quote": role("mdQuote", "italic"), "markdown.hr": role("mdHr"),
        "markdown.item.bullet": role("mdListBullet", "bold"), "markdown.item.number": role("mdListBullet"),
        "markdown.list": role("mdListBullet"), "markdown.h7": role("mdHeading", "italic"),
        "markdown.table.border": role("mdCodeBlockBorder"), "markdown.table.header": role("mdHeading", "bold"),
        "markdown.kbd": role("mdCode", "bold"),
    })  # fmt: skip


def _system_theme(appearance: str) -> TextualTheme:
    """Textual's ANSI theme, its pane borders in the terminal's grey (pi's `borderMuted`).

    The cursor of a list without the focus (its filter line or the prompt has it: /model,
    /resume, /fork, `/` and `@` completion, F1) is drawn as a focused one (as the pi themes
    draw it; app/pideck.tcss gives it the cursor's text colour): Textual's is a tint of the
    primary colour, which ANSI colours cannot be, so it came out as no colour at all and the
    row looked like the others. (Textual before 8.2.5 has no ANSI themes of its own: its
    `textual-ansi` then, light or dark as asked.)"""
    base = BUILTIN_THEMES.get(f"ansi-{appearance}") or replace(BUILTIN_THEMES["textual-ansi"], dark=appearance == "dark")
    cursor = {
        "block-cursor-blurred-background": base.variables.get("block-cursor-background", "ansi_blue"),
        "block-cursor-blurred-foreground": base.variables.get("block-cursor-foreground", "ansi_bright_white"),
        "block-cursor-blurred-text-style": "bold",
    }
    return replace(base, name=f"system-{appearance}",
                   variables={**base.variables, "border-blurred": "ansi_bright_black", **cursor})


SYSTEM_THEMES = {appearance: _system_theme(appearance) for appearance in ("dark", "light")}
