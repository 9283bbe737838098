"""pi's themes read as pi reads them: colour values converted as pi-tui converts them,
variables, fallbacks, broken files, the themes an agent directory offers, the `theme`
setting and `--use-theme`, and the contrast of the built-in themes' text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocol.files.pi_colors import appearance_of_background, contrast, parse_color
from protocol.files.pi_themes import (
    BUILT_IN,
    GUESSED_DEFAULTS,
    TOKENS,
    ThemeError,
    colorfgbg_appearance,
    find_themes,
    read_theme,
    resolve_setting,
    theme_setting,
)

# What pi-tui 1.6.0 makes of these (`colorToHex(parseColor(value))`, run in node).
PI_TUI_HEX = {
    "okhsl(234 3% 89%)": "#dee0e1", "okhsl(20 72% 67%)": "#ea7f81", "okhsl(83 99% 47%)": "#8f6802",
    "okhsl(235 19% 91%)": "#dfe7ec", "okhsl(53 51% 24%)": "#4e2f1b", "okhsl(229 8% 49%)": "#6c767b",
    "oklch(62% 0.1 200)": "#1c989e", "oklch(100% 0.3 150)": "#ffffff", "oklch(0.5 0.4 30)": "#bb0c00",
    "okhsl(250 60% 55%)": "#4e88c2", "okhsl(0 100% 50%)": "#d70071", "okhsl(120 100% 95%)": "#e5ff8f",
    "okhsl(300 85% 10%)": "#1e0539", "#0af": "#00aaff", "#A0B1C2": "#a0b1c2",
}  # fmt: skip


@pytest.mark.parametrize(("value", "expected"), PI_TUI_HEX.items())
def test_colours_convert_as_pi_tui_converts_them(value: str, expected: str) -> None:
    assert parse_color(value) == expected


def test_indices_and_the_terminal_default_stay_as_they_are() -> None:
    assert parse_color(39) == 39
    assert parse_color("") == ""
    for bad in (256, -1, "okhsl(10 120% 50%)", "rgb(1,2,3)", "#12", True, None):
        with pytest.raises(ValueError):
            parse_color(bad)


def theme_document(**colors: object) -> dict[str, object]:
    base: dict[str, object] = {role: "#808080" for role, (_, fallback) in TOKENS.items() if fallback is None}
    return {"name": "mine", "vars": {"base": "#102030", "alias": "base"}, "colors": {**base, **colors}}


def test_variables_chain_and_optional_roles_fall_back() -> None:
    theme = read_theme(theme_document(text="alias", selectedBg=200, muted=""))
    assert theme.colors["text"] == "#102030"
    assert theme.colors["selectedBg"] == 200
    assert theme.colors["searchMatchBg"] == 200  # falls back to selectedBg
    assert theme.colors["scrollbarTrack"] == ""  # to muted, the terminal's default
    assert theme.colors["thinkingMax"] == theme.colors["thinkingXhigh"]


@pytest.mark.parametrize(("document", "reason"), [
    (theme_document(text="nowhere"), "variable reference not found: nowhere"),
    ({**theme_document(text="a"), "vars": {"a": "b", "b": "a"}}, "circular variable reference"),
    ({"name": "mine", "colors": {"text": "#fff"}}, "missing colours accent"),
    (theme_document(textColour="#fff"), "unknown colour 'textColour'"),
    ({**theme_document(), "extra": 1}, "unknown field 'extra'"),
    ({**theme_document(), "name": "light/dark"}, "invalid name"),
    ({**theme_document(), "name": "system"}, "invalid name"),
    (theme_document(text="okhsl(10 50%)"), "invalid colour value"),
    ([], "not a JSON object"),
])  # fmt: skip
def test_a_broken_theme_says_why_in_one_line(document: object, reason: str) -> None:
    with pytest.raises(ThemeError) as raised:
        read_theme(document)
    assert reason in str(raised.value)
    assert "\n" not in str(raised.value)


def test_appearance_is_declared_or_guessed_from_the_colours() -> None:
    assert BUILT_IN["dark"].appearance == "dark" and BUILT_IN["light"].appearance == "light"
    light_backgrounds = {role: "#f0f0f0" for role, (slot, _) in TOKENS.items() if slot == "bg"}
    assert read_theme(theme_document(**light_backgrounds)).appearance == "light"
    assert read_theme({**theme_document(**light_backgrounds), "appearance": "dark"}).appearance == "dark"


def test_the_themes_an_agent_directory_offers(tmp_path: Path) -> None:
    agent, extra = tmp_path / "agent", tmp_path / "extra"
    (agent / "themes").mkdir(parents=True)
    extra.mkdir()
    (agent / "themes" / "mine.json").write_text(json.dumps(theme_document()))
    (agent / "themes" / "broken.json").write_text("{not json")
    (agent / "themes" / "notes.txt").write_text("not a theme")
    (extra / "other.json").write_text(json.dumps({**theme_document(), "name": "other"}))
    (tmp_path / "flag.json").write_text(json.dumps({**theme_document(), "name": "flagged"}))
    (agent / "settings.json").write_text(json.dumps({"themes": ["../extra", "-../nothing.json"]}))
    catalog = find_themes(agent, ["--theme", "flag.json", "--", "--theme", "message.json"], tmp_path)
    assert catalog.names() == ["system", "dark", "flagged", "light", "mine", "other"]
    assert len(catalog.problems) == 1 and "broken.json: not valid JSON" in catalog.problems[0]


def test_use_theme_over_the_setting_and_light_dark_pairs() -> None:
    assert theme_setting([], None) == "system"
    assert theme_setting([], "light") == "light"
    assert theme_setting(["--use-theme", "mine", "--model", "x"], "light") == "mine"
    assert theme_setting(["--", "--use-theme", "mine"], "light") == "light"  # a message to pi, not a flag
    assert resolve_setting("light/dark", "light") == "light"
    assert resolve_setting("solar / night", "dark") == "night"
    assert resolve_setting("a/b/c", "dark") is None


def test_the_terminal_background_decides_dark_or_light() -> None:
    assert appearance_of_background((0, 0, 0)) == "dark"
    assert appearance_of_background((253, 246, 227), (101, 123, 131)) == "light"  # Solarized Light
    assert colorfgbg_appearance({"COLORFGBG": "0;15"}) == "light"
    assert colorfgbg_appearance({"COLORFGBG": "15;default;8"}) == "dark"
    assert colorfgbg_appearance({"COLORFGBG": "default;default"}) is None
    assert colorfgbg_appearance({}) is None


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_text_keeps_contrast_in_every_built_in_theme(name: str) -> None:
    """WCAG 2: body text at least 4.5:1 on the background and on every panel pideck
    paints with the theme; muted text and diff lines on the background."""
    theme = BUILT_IN[name]
    background = GUESSED_DEFAULTS[theme.appearance][1]
    panels = [theme.rgb(role, background=True) for role in ("userMessageBg", "toolPendingBg", "selectedBg")]
    for panel in (background, *panels):
        assert contrast(theme.rgb("text"), panel) >= 4.5
    for role in ("muted", "toolOutput", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext", "error", "warning"):
        assert contrast(theme.rgb(role), background) >= 4.5, role
