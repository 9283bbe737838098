"""pi's themes (pi's `docs/themes.md`): reading a theme file, finding the themes a pi
would offer, and choosing one from the `theme` setting or `--use-theme`.

`system` is a name, not a file: the terminal's own colours. A theme file names its roles'
colours in `colors`, through `vars` where several share one; `read_theme` resolves them
to `#rrggbb`, a 256-colour index, or "" (the terminal's default) and fills the optional
roles from their fallbacks, as pi does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.files import pi_builtin_themes
from protocol.files.config_files import ConfigFileError, read_json
from protocol.numbers import parse_int
from protocol.files.pi_colors import Color, oklab, parse_color, rgb_of

SYSTEM = "system"

# pi's theme tokens (`theme-tokens.js`), in its order: name -> (slot, fallback).
TOKENS: dict[str, tuple[str, str | None]] = {
    **{name: ("fg", None) for name in (
        "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim", "text",
        "thinkingText")},
    "scrollbarTrack": ("fg", "muted"), "scrollbarThumb": ("fg", "text"),
    "selectedBg": ("bg", None), "searchMatchBg": ("bg", "selectedBg"), "searchMatchText": ("fg", "text"),
    "userMessageBg": ("bg", None), "userMessageText": ("fg", None),
    "customMessageBg": ("bg", None), "customMessageText": ("fg", None), "customMessageLabel": ("fg", None),
    "toolPendingBg": ("bg", None), "toolSuccessBg": ("bg", None), "toolErrorBg": ("bg", None),
    **{name: ("fg", None) for name in (
        "toolTitle", "toolOutput", "mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder",
        "mdQuote", "mdQuoteBorder", "mdHr", "mdListBullet", "toolDiffAdded", "toolDiffRemoved", "toolDiffContext",
        "syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber",
        "syntaxType", "syntaxOperator", "syntaxPunctuation", "thinkingOff", "thinkingMinimal", "thinkingLow",
        "thinkingMedium", "thinkingHigh", "thinkingXhigh")},
    "thinkingMax": ("fg", "thinkingXhigh"),
    "bashMode": ("fg", None),
}  # fmt: skip
_TOP_LEVEL = {"$schema", "name", "appearance", "vars", "colors", "export"}
# The default colours pi assumes for "" when the terminal does not say (`GUESSED_DEFAULT_COLORS`).
GUESSED_DEFAULTS = {"dark": ((0xE5, 0xE5, 0xE7), (0, 0, 0)), "light": ((0, 0, 0), (0xFF, 0xFF, 0xFF))}


class ThemeError(ValueError):
    """A theme that cannot be used; the message is one line saying why."""


@dataclass(frozen=True)
class PiTheme:
    name: str
    appearance: str
    """"dark" or "light": the background it is made for."""
    colors: dict[str, Color] = field(repr=False)
    source: str = "built-in"

    def rgb(self, role: str, *, background: bool = False) -> tuple[int, int, int]:
        """A role's sRGB; the guessed terminal default for ""."""
        foreground_default, background_default = GUESSED_DEFAULTS[self.appearance]
        return rgb_of(self.colors[role], background_default if background else foreground_default)


def _resolve(value: object, variables: Mapping[str, Any]) -> Color:
    """A colour value, following variable references (a chain of any length, no recursion)."""
    seen: set[str] = set()
    while isinstance(value, str) and value and not value.startswith("#") and not value.lower().startswith(("oklch(", "okhsl(")):
        if value in seen:
            raise ThemeError(f"circular variable reference: {value[:80]}")
        if value not in variables:
            raise ThemeError(f"variable reference not found: {value[:80]}")
        seen.add(value)
        value = variables[value]
    try:
        return parse_color(value)
    except ValueError as exc:
        raise ThemeError(str(exc)[:200]) from None


def _appearance(colors: Mapping[str, Color]) -> str:
    """pi's guess from the theme's own colours: its backgrounds darker than its text is dark."""

    def lightness(slot: str) -> float | None:
        fixed = [rgb_of(c, (0, 0, 0)) for role, c in colors.items() if TOKENS[role][0] == slot and c != ""
                 and not (isinstance(c, int) and c < 16)]  # fmt: skip
        return sum(oklab(rgb)[0] for rgb in fixed) / len(fixed) if fixed else None

    fg, bg = lightness("fg"), lightness("bg")
    if fg is not None and bg is not None:
        return "dark" if bg < fg else "light"
    if bg is not None:
        return "dark" if bg < 0.5 else "light"
    return "dark" if fg is None or fg > 0.5 else "light"


def read_theme(document: object, source: str = "built-in") -> PiTheme:
    """A theme from its parsed JSON; ThemeError says what is wrong with it."""
    if not isinstance(document, dict):
        raise ThemeError("not a JSON object")
    if unknown := sorted(set(document) - _TOP_LEVEL):
        raise ThemeError(f"unknown field {unknown[0]!r}")
    name = document.get("name")
    if not isinstance(name, str) or not name or "/" in name or name == SYSTEM:
        raise ThemeError(f"invalid name {name!r} (a string without '/', not 'system')")
    colors, variables = document.get("colors"), document.get("vars", {})
    if not isinstance(colors, dict) or not isinstance(variables, dict):
        raise ThemeError('"colors" and "vars" must be objects')
    if unknown := sorted(set(colors) - set(TOKENS)):
        raise ThemeError(f"unknown colour {unknown[0]!r}")
    if missing := [role for role, (_, fallback) in TOKENS.items() if fallback is None and role not in colors]:
        raise ThemeError(f"missing colour{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    resolved = {role: _resolve(value, variables) for role, value in colors.items()}
    for role, (_, fallback) in TOKENS.items():
        if role not in resolved and fallback is not None:
            resolved[role] = resolved[fallback]
    appearance = document.get("appearance")
    if appearance not in (None, "dark", "light"):
        raise ThemeError(f'"appearance" must be "dark" or "light", not {appearance!r}')
    return PiTheme(name, appearance or _appearance(resolved), resolved, source)


def load_theme(path: Path) -> PiTheme:
    """A theme file; ThemeError with a one-line reason if it cannot be used."""
    try:
        document = read_json(path)
    except OSError as exc:
        raise ThemeError(f"cannot read it ({exc.strerror or exc})") from None
    except ConfigFileError as exc:
        raise ThemeError(str(exc)) from None
    return read_theme(document, str(path))


BUILT_IN = {theme.name: theme for theme in map(read_theme, (pi_builtin_themes.DARK, pi_builtin_themes.LIGHT))}


@dataclass
class ThemeCatalog:
    """The themes a pi with this agent directory and these flags offers, by name, and why
    the files that could not be read were left out."""

    themes: dict[str, PiTheme]
    problems: list[str]

    def names(self) -> list[str]:
        """`system` first, then the rest by name (as pi's selector lists them)."""
        return [SYSTEM, *sorted(self.themes)]


def _theme_files(entry: Path) -> Iterable[Path]:
    if entry.is_dir():
        return sorted(path for path in entry.iterdir() if path.suffix == ".json")
    return [entry] if entry.exists() else []


def _setting_paths(settings: Path, base: Path) -> list[Path]:
    try:
        entries = read_json(settings).get("themes", [])
    except (OSError, ValueError, AttributeError):  # the settings' own problem is named with pi's settings
        return []
    paths = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str) and entry and entry[0] not in "!-":  # exclusions: nothing to load
            path = Path(entry.removeprefix("+")).expanduser()
            paths.append(path if path.is_absolute() else base / path)
    return paths


def flag_values(pi_args: Sequence[str], flag: str) -> list[str]:
    """The values of a pi flag that takes one (`--theme a --theme b`), before any `--`."""
    values = []
    for index, arg in enumerate(pi_args):
        if arg == "--":
            break
        if arg == flag and index + 1 < len(pi_args):
            values.append(pi_args[index + 1])
    return values


def find_themes(agent: Path, pi_args: Sequence[str] = (), cwd: Path | None = None) -> ThemeCatalog:
    """The built-in themes, `<agent>/themes/*.json`, the agent settings' `themes` and pi's
    `--theme PATH` flags. The first theme of a name wins, as in pi. (A project's own
    themes load in pi only once the project is trusted, which pideck cannot tell.)"""
    catalog = ThemeCatalog(dict(BUILT_IN), [])
    base = cwd or Path.cwd()
    sources = [agent / "themes", *_setting_paths(agent / "settings.json", agent),
               *(path if (path := Path(value).expanduser()).is_absolute() else base / path
                 for value in flag_values(pi_args, "--theme"))]  # fmt: skip
    for source in sources:
        for path in _theme_files(source):
            try:
                theme = load_theme(path)
            except ThemeError as exc:
                catalog.problems.append(f"theme {path}: {exc}")
                continue
            catalog.themes.setdefault(theme.name, theme)
    return catalog


def theme_setting(pi_args: Sequence[str], setting: object) -> str:
    """The theme pi would start with: `--use-theme` over the `theme` setting, else system."""
    if used := flag_values(pi_args, "--use-theme"):
        return used[-1]
    return setting if isinstance(setting, str) and setting.strip() else SYSTEM


def resolve_setting(setting: str, appearance: str) -> str | None:
    """The theme name a setting picks on a `dark` or `light` terminal: `light/dark` is a
    pair; None for a malformed pair."""
    if "/" not in setting:
        return setting.strip()
    parts = [part.strip() for part in setting.split("/")]
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0] if appearance == "light" else parts[1]


def colorfgbg_appearance(env: Mapping[str, str]) -> str | None:
    """Dark or light from `COLORFGBG` (`fg;bg`), as pi and Vim read its background index."""
    background = env.get("COLORFGBG", "").split(";")[-1].strip()
    index = parse_int(background, high=15)
    if index is None:
        return None
    return "dark" if index <= 6 or index == 8 else "light"
