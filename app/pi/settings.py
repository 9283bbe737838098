"""pi's own settings that pideck follows, fullscreen and display ones (the project's
`.pi/settings.json` over the agent directory's, read at start-up; the display ones again on
/reload)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.pi.launch import LaunchConfig
from protocol.files.session_files import agent_dir, pi_setting, settings_problems


def _setting(config: LaunchConfig, name: str) -> Any:
    return pi_setting(name, config.cwd, agent_dir(config.env))


def copy_on_select(config: LaunchConfig) -> bool:
    """`fullscreenCopyOnSelect`: a mouse drag copies what it selected (on by default)."""
    return _setting(config, "fullscreenCopyOnSelect") is not False


def wheel_lines(config: LaunchConfig) -> int | None:
    """`fullscreenWheelScrollLines`: lines per wheel step, 1 to 100; None for "auto" (the
    default: faster as a spin speeds up) or a value pi would not take."""
    value = _setting(config, "fullscreenWheelScrollLines")
    return value if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100 else None


def scrollbar_setting(config: LaunchConfig) -> str:
    """`fullscreenScrollbar`: the transcript's scrollbar, "auto" (when it overflows, the
    default), "always" or "hidden"."""
    value = _setting(config, "fullscreenScrollbar")
    return value if value in ("always", "hidden") else "auto"


def terminal_progress(config: LaunchConfig) -> bool:
    """`terminal.showTerminalProgress`: OSC 9;4 progress in the terminal's tab while pi
    works (off by default)."""
    return _setting(config, "terminal.showTerminalProgress") is True


def exit_output_setting(config: LaunchConfig) -> str:
    """`fullscreenExitOutput`: what quitting leaves in the terminal, "transcript" (the
    default) or "resume-hint"."""
    return "resume-hint" if _setting(config, "fullscreenExitOutput") == "resume-hint" else "transcript"

TREE_FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")


# pi's display settings pideck follows (pi's docs/settings.md): what each must be. One of
# another type is ignored (pi's default stands) and `display_warnings` says so.
def _is_int(low: int, high: int) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


_DISPLAY: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "hideThinkingBlock": ("true or false", lambda value: isinstance(value, bool)),
    "outputPad": ("0 or 1", _is_int(0, 1)),
    "editorPaddingX": ("a number from 0 to 3", _is_int(0, 3)),
    "autocompleteMaxVisible": ("a number from 3 to 20", _is_int(3, 20)),
    "quietStartup": ('true, false or "header"', lambda value: isinstance(value, bool) or value == "header"),
    "doubleEscapeAction": ('"tree", "fork" or "none"', lambda value: value in ("tree", "fork", "none")),
    "treeFilterMode": ('"default", "no-tools", "user-only", "labeled-only" or "all"',
                       lambda value: value in TREE_FILTERS),
    "terminal.hyperlinks": ('true, false or "auto"', lambda value: isinstance(value, bool) or value == "auto"),
    "showHardwareCursor": ("true or false", lambda value: isinstance(value, bool)),
    "markdown.codeBlockIndent": ("a string", lambda value: isinstance(value, str)),
}


def _display(config: LaunchConfig, name: str) -> Any:
    """A display setting as the user set it, or None if unset or not of its type."""
    value = _setting(config, name)
    return value if value is not None and _DISPLAY[name][1](value) else None


def display_warnings(config: LaunchConfig) -> list[str]:
    """The settings files pideck cannot use (each left out), and the display settings set to
    something pi would not take (each ignored)."""
    return [*settings_problems(config.cwd, agent_dir(config.env)),
            *(f"{name} should be {expected}, not {json.dumps(value)[:80]}"
              for name, (expected, valid) in _DISPLAY.items()
              if (value := _setting(config, name)) is not None and not valid(value))]


@dataclass(frozen=True)
class Display:
    """What pideck draws by pi's display settings; None: pideck's own look (unset)."""

    hide_thinking: bool = False  # hideThinkingBlock: thinking blocks start collapsed (Ctrl+T shows them)
    output_pad: int = 1  # outputPad: the transcript's padding at either side
    editor_padding: int | None = None  # editorPaddingX: the prompt's, in cells
    completion_rows: int | None = None  # autocompleteMaxVisible: the completion menu's rows
    quiet_startup: bool = False  # quietStartup true: no welcome text ("header" keeps it: it is the key hints)
    hyperlinks: bool = False  # terminal.hyperlinks true: markdown links are OSC 8 links ("auto": not)
    hardware_cursor: bool = False  # showHardwareCursor: the terminal's cursor at the prompt's, not a drawn one
    code_indent: str | None = None  # markdown.codeBlockIndent: before each line of a code block


def display(config: LaunchConfig) -> Display:
    output_pad = _display(config, "outputPad")
    return Display(
        hide_thinking=_display(config, "hideThinkingBlock") is True,
        output_pad=1 if output_pad is None else output_pad,
        editor_padding=_display(config, "editorPaddingX"),
        completion_rows=_display(config, "autocompleteMaxVisible"),
        quiet_startup=_display(config, "quietStartup") is True,
        hyperlinks=_display(config, "terminal.hyperlinks") is True,
        hardware_cursor=_display(config, "showHardwareCursor") is True,
        code_indent=_display(config, "markdown.codeBlockIndent"),
    )


def double_escape_action(config: LaunchConfig) -> str:
    """`doubleEscapeAction`: what Esc twice on an empty prompt opens while pi is idle,
    "tree" (the default), "fork" or "none"."""
    return _display(config, "doubleEscapeAction") or "tree"


def tree_filter(config: LaunchConfig) -> str:
    """`treeFilterMode`: the filter /tree opens with (one of TREE_FILTERS; "default")."""
    return _display(config, "treeFilterMode") or "default"


def external_editor_setting(config: LaunchConfig) -> str | None:
    """`externalEditor`: the command Ctrl+G edits the prompt with, over $VISUAL and $EDITOR
    (unset, blank or not a string: None)."""
    value = _setting(config, "externalEditor")
    return value if isinstance(value, str) and value.strip() else None
