"""The theme pideck draws with: pi's `theme` setting (or `--use-theme` after `--`), the
themes its agent directory offers, a live switch (`/theme`) and writing the choice back
to pi's settings when asked.

`system` is the terminal's own colours; `light/dark` picks by the terminal's background
(`appearance`: from its OSC 11 answer at start-up, else `COLORFGBG`, else dark). A theme
that cannot be read or found is named in a one-line warning and system is used instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from textual.theme import Theme

from app.pi.launch import LaunchConfig
from protocol.files.config_files import ConfigFileError, decode_json, json_kind, read_json, read_text
from protocol.files.pi_colors import RGB, appearance_of_background
from protocol.files.pi_themes import SYSTEM, PiTheme, ThemeCatalog, colorfgbg_appearance, find_themes, resolve_setting, theme_setting
from protocol.files.session_files import agent_dir, pi_args_of, pi_setting
from widgets.colors import palette
from widgets.colors.theme_styles import SYSTEM_THEMES, markdown_styles, palette_roles, textual_name, textual_theme

Warn = Callable[[str], None]


def terminal_appearance(background: RGB | None, foreground: RGB | None, env: dict[str, str]) -> str:
    """"dark" or "light": the terminal's reported background decides, else COLORFGBG, else dark."""
    if background is not None:
        return appearance_of_background(background, foreground)
    return colorfgbg_appearance(env) or "dark"


class Themes:
    """The themes found, the one in use, and switching it on a Textual app."""

    def __init__(self, config: LaunchConfig, *, register: Callable[[Theme], None], use: Callable[[str], None],
                 console: Callable[[], Console], warn: Warn, background: RGB | None = None,
                 foreground: RGB | None = None) -> None:  # fmt: skip
        self.config = config
        self._register, self._use, self._console, self._warn = register, use, console, warn
        self.background = background
        self.appearance = terminal_appearance(background, foreground, config.env)
        self.catalog = ThemeCatalog({}, [])
        self.current = SYSTEM
        self._markdown_pushed = False

    @property
    def _agent(self) -> Path:
        return agent_dir(self.config.env)

    def setting(self) -> str:
        """What pi would start with: `--use-theme` over the `theme` setting, else system."""
        return theme_setting(pi_args_of(self.config.argv), pi_setting("theme", self.config.cwd, self._agent))

    def start(self) -> None:
        """Find the themes and use the one the settings name (at start-up and on /reload)."""
        self.catalog = find_themes(self._agent, pi_args_of(self.config.argv), self.config.cwd)
        for problem in self.catalog.problems:
            self._warn(f"{problem}; it is left out")
        setting = self.setting()
        name = resolve_setting(setting, self.appearance)
        if name is None:
            self._warn(f"theme setting {setting!r} is not a light/dark pair; using system")
            name = SYSTEM
        self.switch(name)

    def switch(self, name: str) -> bool:
        """Draw with theme `name` from now on; False (and a warning, system instead) if
        there is none of that name."""
        wanted = name
        theme: PiTheme | None = None
        if name != SYSTEM:
            theme = self.catalog.themes.get(name)
            if theme is None:
                self._warn(f"theme {name!r} was not found (or could not be read); using system")
                name = SYSTEM
        appearance = self.appearance if theme is None else theme.appearance
        if theme is not None:
            self._register(textual_theme(theme, self.background if self.appearance == theme.appearance else None))
        else:
            self._register(SYSTEM_THEMES[appearance])
        palette.use(palette_roles(theme))
        console = self._console()
        if self._markdown_pushed:
            console.pop_theme()
        console.push_theme(markdown_styles())
        self._markdown_pushed = True
        self._use(textual_name(theme, appearance))
        self.current = name
        return name == wanted

    def save(self) -> Path:
        """Write the theme in use as pi's `theme` setting: into the project's
        `.pi/settings.json` when that sets the theme, else the agent directory's
        `settings.json`. OSError or ValueError (saying what the file holds instead of an
        object of settings) if not."""
        project = self.config.cwd / ".pi" / "settings.json"
        path = project if _reads(project).get("theme") is not None else self._agent / "settings.json"
        settings = _settings_to_add_to(path)
        settings["theme"] = self.current
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        return path


def _reads(path: Path) -> dict[str, object]:
    try:
        value = read_json(path)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _settings_to_add_to(path: Path) -> dict[str, object]:
    """The settings in `path`, {} when there is none or it is empty; OSError, or ValueError
    saying why it is not an object of settings pideck can add to."""
    try:
        text = read_text(path)
    except FileNotFoundError:
        return {}
    except ConfigFileError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        value = decode_json(text)
    except ConfigFileError as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path} holds a JSON {json_kind(value)}, not an object of settings pideck can add the theme to")
    return value
