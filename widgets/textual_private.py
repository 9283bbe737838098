"""Every name pideck takes from Textual's private modules (and Rich's, as Textual uses it), in one place, each with the reason
there is no public way. Checked on Textual 8.2.8; `tests/unit/test_textual_private.py` fails
on another Textual so that each is checked again, and fails if any other module imports a
private Textual module.

Besides these names, Textual's private attributes are used where there is no public way:
- app/pideck_app.py: `App._display` overridden to send only the changed pieces of lines
  (app/terminal/unchanged_lines.py), with `_running`, `_closed` and `_batch_count` to know
  when Textual itself would write, and `Screen._compositor` to tell the main screen's
  compositor that its update reached the terminal (widgets/scroll_in_place.py);
  Rich's `Console._color_system`, the colour system Textual's own `Strip.render` uses
  (app/terminal/sgr.py); `App._driver` to write OSC sequences (no public way to
  write to the terminal); `App._filters` to make the dim filter safe; `App._bindings` and
  `PromptEditor._merged_bindings` to apply pi's keybindings.json to every key.
- app/main_screen.py: `Screen._compositor` replaced by a RowsCompositor (no public way to
  choose a screen's compositor); `Screen._update_timer` replaced by a FrameTimer
  (widgets/frame_timer.py: `Timer._run`, `_tick`, `_active`, `_start` and `_timers`), whose
  frame after a pause is not a frame late (no public way to choose a screen's frame timing); `Screen._compositor_refresh` extended to paint the
  transcript's scrollbar (`_vertical_scrollbar`, its `_repaint_required`) in the frame of
  the layout that moved it (no public way to add a widget to a frame under way).
- widgets/rows_compositor.py: `Compositor.render_partial_update` and `_render_chops`
  (`_dirty_regions`, `_regions_to_spans`, `cuts`), to render only what a frame repaints;
  `reflow_visible` and the dirty regions before and after `reflow`, to draw a layout that
  scrolled the transcript as a scroll of the terminal's rows;
  `Compositor.reflow` and `find_widget`, with `_arrange_root`, `_visible_map`,
  `_full_map_invalidated` and the caches a reflow resets (`_cuts`, `_layers`,
  `_layers_visible`, `_visible_widgets`), so that a layout places only the widgets in view
  and the map of every widget is made only to find one out of view (no public way).
- app/toasts.py: `App._unnotify`, to take one toast off (no public way).
- app/hotkeys_table.py: `TextArea._merged_bindings`, the editor's keys for /hotkeys.
- widgets/readline_area.py: `_merged_bindings` and `_bindings`, to drop TextArea's keys
  that pi's editor gives other meanings.
- widgets/kept_strip.py: `Strip`'s slots (`_segments`, `_cell_length`, its seven `_*_cache`
  caches, `_render_cache`, `_link_ids`, `_cell_count`), set by a subclass whose caches are
  one shared no-op, so that the lines a transcript keeps are not seven objects more each
  for the garbage collector (no public way to make a strip without its caches).
- widgets/keys_in_order.py: `Screen._modal_binding_chain`, to run a key's bindings when the
  widget reads it and to know whether any takes it (no public way to ask).
- app/terminal/keys.py, through `escape_now` here: the parser's `_timeout_time`, to end its
  wait for what follows an Esc when the next read shows that nothing does (no public way).
- widgets/grows_in_place.py: `_size_updated`, `_scroll_update`, `_dirty_regions` and
  `_styles_cache`, to keep a growing widget's painted rows when only its height changes.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message

# The clock and sleep of Textual's timers, which the frame timer keeps to (widgets/frame_timer.py),
# and the clock of its events' times (widgets/prompt_editor.py: was a key typed before text came back).
from textual import _time as textual_time

# The frame Textual hands its driver, looked into to leave out what the terminal shows already;
# the compositor, whose partial frames render only the rows they repaint (widgets/rows_compositor.py).
from textual._compositor import ChopsUpdate, Compositor, CompositorUpdate, LayoutUpdate, MapGeometry, ReflowResult

# Textual's key table and parser: Alt+Enter, Ctrl+Alt+] and Alt+arrows arrive as one key
# only if taught there (app/terminal/keys.py); type-ahead read before the App runs is
# parsed as Textual would (app/terminal/type_ahead.py).
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser

# The writer thread of the Linux driver, replaced by one that survives a dead terminal
# (app/terminal/hangup.py): the driver creates it by this name.
from textual.drivers._writer_thread import WriterThread

# pi's key names to Textual's (`-` is `minus`): the mapping Textual itself uses for bindings.
from textual.keys import _character_to_key as character_to_key

# Where a Static's line wraps: the cuts Textual's Content wraps at (it calls this function of
# Rich's), for search to bring the row of a match in a long wrapped line on screen
# (widgets/transcript_search.py); `Content.wrap` gives the wrapped lines without their offsets.
from rich._wrap import divide_line

# One key of the Footer, measured so that only keys that fit whole are shown (widgets/key_footer.py).
from textual.widgets._footer import FooterKey

TEXTUAL_CHECKED = "8.2.8"


def escape_now(parser: XTermParser) -> Iterable[Message]:
    """What `parser` holds while it waits to see whether an ESC starts a sequence, read now
    as if that wait had ended (a lone ESC: the Esc key)."""
    if parser._timeout_time is None:
        return ()
    parser._timeout_time = 0.0
    return parser.tick()


__all__ = [
    "ANSI_SEQUENCES_KEYS", "ChopsUpdate", "Compositor", "CompositorUpdate", "FooterKey", "LayoutUpdate", "MapGeometry",
    "ReflowResult",
    "TEXTUAL_CHECKED",
    "WriterThread", "XTermParser", "character_to_key", "divide_line", "escape_now", "textual_time",
]
