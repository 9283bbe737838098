"""pideck's engine: what it does in Textual's place, and the only code that touches Textual's
private names (and Rich's and textual-serve's, as Textual uses them).

Textual repaints and sends every region a frame marks dirty; the engine renders only the
rows a frame repaints (rows_compositor.py), keeps the rows of a widget that only grew
(grows_in_place.py), draws the frame after a pause at once (frame_timer.py), sends the
terminal only the pieces of lines it does not show yet, with only the SGR sequences they
need (unchanged_lines.py, sgr.py), and has it move rows itself where the transcript only
scrolled (scroll_in_place.py). `EngineApp` (app.py) and `EngineScreen` (screen.py) are
what pideck's App and main screen are built on. At the terminal's edge it teaches Textual's
key table and parser the keys pideck reads as one (keys.py) and gives its Linux driver
threads that survive a dead terminal (driver.py). The other modules are small functions
over Textual's insides, each where Textual has no public way.

The engine runs only on the Textual it was checked on (`TEXTUAL_CHECKED`), and not with
PIDECK_ENGINE=off: then pideck draws with Textual's own compositor, timer and display, and
reads keys with its own parser and key table (slower, and the keys Textual reads apart stay
apart); the driver's threads and the small functions stay, each left out or falling back to
what Textual offers where a name is missing.
`tests/unit/test_textual_private.py` fails on a private name used anywhere else.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

TEXTUAL_CHECKED = "8.2.8"  # the Textual every private name here was checked on
SETTING = "PIDECK_ENGINE"  # "off": Textual's own compositor, timer, display and parser


def textual_version() -> str:
    """The installed Textual's version, from its distribution's folder beside the package
    (importlib.metadata costs start-up 40 ms), else from importlib.metadata."""
    spec = find_spec("textual")
    if spec is not None and spec.origin is not None:
        found = list(Path(spec.origin).parent.parent.glob("textual-*.dist-info"))
        if len(found) == 1:
            return found[0].name.removeprefix("textual-").removesuffix(".dist-info")
    from importlib.metadata import version

    return version("textual")


def engine_mode(setting: str | None, version: str) -> tuple[bool, str]:
    """Whether the engine runs, given PIDECK_ENGINE and Textual's version, and the line that
    says so."""
    if version != TEXTUAL_CHECKED:
        return False, f"engine: off (Textual {version} is not the checked {TEXTUAL_CHECKED})"
    if (setting or "").strip().lower() == "off":
        return False, f"engine: off ({SETTING}=off; Textual {version})"
    return True, f"engine: on (Textual {version})"


def setting_problem(setting: str | None) -> str | None:
    """What is wrong with PIDECK_ENGINE's value, if anything (it is `on` or `off`)."""
    if setting is None or setting.strip().lower() in ("", "on", "off"):
        return None
    return f"{SETTING}={setting[:40]!r} is neither on nor off; the engine is {'on' if ON else 'off'}"


TEXTUAL = textual_version()
ON, MODE = engine_mode(os.environ.get(SETTING), TEXTUAL)


def off_note() -> str | None:
    """What pideck says once as it starts where the engine is off for the Textual installed."""
    if ON or TEXTUAL == TEXTUAL_CHECKED:
        return None
    return (f"Textual {TEXTUAL} is not the {TEXTUAL_CHECKED} pideck's engine was checked on: pideck draws "
            "with Textual's own compositor and reads keys with its own parser, slower (pideck --version says so)")

_installed = False


def install() -> None:
    """Apply the engine's class-wide patches to Textual, once: the threads of its Linux driver
    and Alt+Enter and Alt+digits in its key table (with the engine off too, where that Textual
    takes them: a dead terminal must not keep pideck alive, Alt+Enter must not send), and where
    the engine runs, the other keys taught to its key table and parser."""
    global _installed
    if _installed:
        return
    _installed = True
    from widgets.engine.alt_keys import teach_alt_keys
    from widgets.engine.driver import install_hangup_guards

    install_hangup_guards()
    teach_alt_keys()
    if ON:
        from widgets.engine.keys import install_alt_keys, install_key_reads

        install_alt_keys()
        install_key_reads()
