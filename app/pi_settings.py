"""pi's own fullscreen settings that pideck follows (the project's `.pi/settings.json` over
the agent directory's, read once at start-up)."""

from __future__ import annotations

from typing import Any

from app.launch import LaunchConfig
from protocol.session_files import agent_dir, pi_setting


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
