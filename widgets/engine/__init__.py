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

`tests/unit/test_textual_private.py` fails on a private name used anywhere else.
"""

from __future__ import annotations

TEXTUAL_CHECKED = "8.2.8"  # the Textual every private name here was checked on

_installed = False


def install() -> None:
    """Apply the engine's class-wide patches to Textual, once: the keys taught to its key
    table and parser, the threads of its Linux driver."""
    global _installed
    if _installed:
        return
    _installed = True
    from widgets.engine.driver import install_hangup_guards
    from widgets.engine.keys import install_alt_keys, install_key_reads

    install_alt_keys()
    install_key_reads()
    install_hangup_guards()
