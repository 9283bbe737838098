"""Which theme pideck starts with, from agent directories written here: pi's `theme`
setting (the project's over the agent directory's), `--use-theme` after `--`, light/dark
pairs by the terminal's background, custom and broken theme files, and `/theme save`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.style import Style
from textual.theme import Theme

from app.pi.launch import LaunchConfig
from app.themes import Themes
from protocol.files.pi_themes import BUILT_IN, TOKENS
from widgets.colors import palette


class Used:
    """What a Themes object did to the app: the Textual themes registered, the one in use
    and its warnings."""

    def __init__(self, tmp_path: Path, settings: dict[str, Any] | None = None, *pi_args: str,
                 env: dict[str, str] | None = None, background: tuple[int, int, int] | None = None) -> None:
        self.agent, self.cwd = tmp_path / "agent", tmp_path / "project"
        self.agent.mkdir(exist_ok=True)
        self.cwd.mkdir(exist_ok=True)
        if settings is not None:
            (self.agent / "settings.json").write_text(json.dumps(settings))
        self.registered: dict[str, Theme] = {}
        self.warnings: list[str] = []
        self.name = ""
        self.console = Console()
        config = LaunchConfig(argv=("pi", "--mode", "rpc", *pi_args), env={"PI_CODING_AGENT_DIR": str(self.agent), **(env or {})},
                              cwd=self.cwd, demo=False, protocol_log=tmp_path / "log")  # fmt: skip
        self.themes = Themes(config, register=lambda theme: self.registered.__setitem__(theme.name, theme),
                             use=self._use, console=lambda: self.console, warn=self.warnings.append,
                             background=background)  # fmt: skip

    def _use(self, name: str) -> None:
        self.name = name

    def start(self) -> Used:
        self.themes.start()
        return self


@pytest.fixture(autouse=True)
def default_palette() -> Any:
    yield
    palette.use({})


def write_theme(path: Path, name: str, **colors: object) -> None:
    base = {role: "#7f7f7f" for role, (_, fallback) in TOKENS.items() if fallback is None}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": name, "colors": {**base, "text": "#ff0000", "border": "#0000ff", **colors}}))


def test_system_is_the_default_in_the_terminals_own_colours(tmp_path: Path) -> None:
    used = Used(tmp_path).start()
    assert (used.themes.current, used.name, used.warnings) == ("system", "system-dark", [])
    assert used.registered["system-dark"].ansi
    assert palette.style("error") == Style.parse("red")


def test_system_is_made_where_textual_has_no_ansi_themes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual before 8.2.5 has no ANSI themes of its own ("ansi-dark"): pideck started on one
    with a KeyError. The system theme is then Textual's ANSI theme, light or dark."""
    from textual.theme import BUILTIN_THEMES

    from widgets.colors import theme_styles

    older = {name: theme for name, theme in BUILTIN_THEMES.items() if not name.startswith("ansi-")}
    older["textual-ansi"] = Theme("textual-ansi", primary="ansi_blue", foreground="ansi_default",
                                  background="ansi_default", variables={"border": "ansi_bright_blue"})  # (as 8.2.4's)
    monkeypatch.setattr(theme_styles, "BUILTIN_THEMES", older)
    for appearance in ("dark", "light"):
        theme = theme_styles._system_theme(appearance)
        assert (theme.name, theme.dark) == (f"system-{appearance}", appearance == "dark")
        assert theme.primary == older["textual-ansi"].primary and theme.variables["border-blurred"] == "ansi_bright_black"


def test_the_setting_chooses_a_built_in_theme_and_all_its_roles(tmp_path: Path) -> None:
    used = Used(tmp_path, {"theme": "light"}).start()
    assert used.name == "pi-light"
    theme = used.registered["pi-light"]
    light = BUILT_IN["light"]
    assert (theme.background, theme.foreground, theme.error, theme.dark) == ("#ffffff", light.colors["text"], light.colors["error"], False)
    for role, (slot, _) in TOKENS.items():
        style = palette.style(role)
        assert (style.bgcolor if slot == "bg" else style.color).get_truecolor().hex == light.colors[role], role
    assert used.console.get_style("markdown.code").color.get_truecolor().hex == light.colors["mdCode"]


def test_the_projects_setting_over_the_agent_directorys_and_use_theme_over_both(tmp_path: Path) -> None:
    used = Used(tmp_path, {"theme": "light"})
    (used.cwd / ".pi").mkdir()
    (used.cwd / ".pi" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    assert used.start().name == "pi-dark"
    assert Used(tmp_path, {"theme": "light"}, "--use-theme", "dark").start().name == "pi-dark"
    assert Used(tmp_path, {"theme": "dark"}, "--", "--use-theme", "light").start().name == "pi-dark"


@pytest.mark.parametrize(("background", "env", "expected"), [
    ((250, 250, 250), {"COLORFGBG": "15;0"}, "pi-light"),  # the terminal's answer decides
    (None, {"COLORFGBG": "0;15"}, "pi-light"),
    (None, {"COLORFGBG": "15;0"}, "pi-dark"),
    (None, {}, "pi-dark"),
])  # fmt: skip
def test_a_light_dark_pair_follows_the_terminal(tmp_path: Path, background: Any, env: dict[str, str], expected: str) -> None:
    assert Used(tmp_path, {"theme": "light/dark"}, env=env, background=background).start().name == expected


def test_system_on_a_light_terminal(tmp_path: Path) -> None:
    assert Used(tmp_path, background=(255, 255, 255)).start().name == "system-light"


def test_a_custom_theme_file(tmp_path: Path) -> None:
    write_theme(tmp_path / "agent" / "themes" / "mine.json", "mine", selectedBg=21)
    used = Used(tmp_path, {"theme": "mine"}).start()
    assert (used.name, used.warnings) == ("pi-mine", [])
    assert used.registered["pi-mine"].foreground == "#ff0000"
    assert palette.style("text") == Style.parse("#ff0000")
    assert palette.style("selectedBg") == Style.parse("on color(21)")  # the terminal's own index
    assert used.themes.catalog.names() == ["system", "dark", "light", "mine"]


def test_a_broken_theme_is_named_in_a_warning_and_system_is_used(tmp_path: Path) -> None:
    (tmp_path / "agent" / "themes").mkdir(parents=True)
    (tmp_path / "agent" / "themes" / "broken.json").write_text('{"name": "broken", "colors": {"text": "nope"}}')
    used = Used(tmp_path, {"theme": "broken"}).start()
    assert used.name == "system-dark"
    assert len(used.warnings) == 2
    assert "broken.json: missing colours accent" in used.warnings[0]
    assert used.warnings[1] == "theme 'broken' was not found (or could not be read); using system"


def test_save_writes_the_setting_where_it_takes_effect(tmp_path: Path) -> None:
    used = Used(tmp_path, {"theme": "dark", "defaultModel": "x"}).start()
    used.themes.switch("light")
    path = used.themes.save()
    assert path == used.agent / "settings.json"
    assert json.loads(path.read_text()) == {"theme": "light", "defaultModel": "x"}
    (used.cwd / ".pi").mkdir()
    (used.cwd / ".pi" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    assert used.themes.save() == used.cwd / ".pi" / "settings.json"  # the project's setting wins, so it goes there
    assert json.loads((used.cwd / ".pi" / "settings.json").read_text()) == {"theme": "light"}


def test_save_leaves_a_settings_file_it_cannot_read_alone(tmp_path: Path) -> None:
    used = Used(tmp_path).start()
    (used.agent / "settings.json").write_text("{broken")
    with pytest.raises(ValueError):
        used.themes.save()
    assert (used.agent / "settings.json").read_text() == "{broken"


@pytest.mark.parametrize(("content", "said"), [
    ("{broken", "not valid JSON"), ('["theme"]', "holds a JSON array, not an object"), ("7", "JSON number"),
])
def test_save_says_what_a_settings_file_holds_instead_of_settings(tmp_path: Path, content: str, said: str) -> None:
    used = Used(tmp_path).start()
    (used.agent / "settings.json").write_text(content)
    with pytest.raises(ValueError, match=said):
        used.themes.save()
    assert (used.agent / "settings.json").read_text() == content


@pytest.mark.parametrize("empty", ["", "{}", "{ }", "{\n}\n", "\ufeff{}"])
def test_save_adds_to_an_empty_object_however_it_is_written(tmp_path: Path, empty: str) -> None:
    used = Used(tmp_path).start()
    (used.agent / "settings.json").write_text(empty)
    used.themes.switch("light")
    assert json.loads(used.themes.save().read_text()) == {"theme": "light"}
