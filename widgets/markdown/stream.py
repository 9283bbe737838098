"""Streaming text as ONE widget whose cost per frame does not grow with the reply.

Textual's `Markdown` mounts a widget per block; a long reply becomes hundreds of
widgets, and every frame's layout walks them all. `StreamingText` instead keeps the
text as chunks (`MarkdownChunker`): only the unfinished tail is rendered again when
deltas arrive, and `render_line` hands the compositor just the lines it shows.

A finished chunk is rendered to strips once per width, when it is first shown or
when the widget is idle: until then its height is an estimate. In a flood, chunks
scroll past the anchored bottom between two frames, so most are never rendered
while the stream runs; a loaded session renders only what is on screen at first.

Prose (paragraphs, headings, lists, quotes, rules) is laid out by
`lines.render_prose` exactly as Rich would, several times faster; code,
tables and the rest go through Rich (`widgets/markdown/render.py`, imported by the first
chunk shown) (headings left-aligned, code in the theme's `syntax*`
colours from `widgets/colors/palette.py`, which are the terminal's own ANSI ones by default). `plain_style` renders the
chunks as styled plain text instead (model reasoning). The text is always data:
nothing in it is ever read as markup.
"""

from __future__ import annotations

import importlib
import time
from bisect import bisect_right
from typing import ClassVar

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from widgets.engine.grows_in_place import GrowsInPlace
from widgets.engine.kept_strip import KeptStrip
from widgets.engine.widget import set_dirty
from widgets.markdown.chunks import MarkdownChunker
from widgets.text.selection_marks import mark_selection


RENDERER = "widgets.markdown.render"


def import_renderer() -> None:
    """Import the markdown renderer (markdown-it, Rich's Markdown and Syntax: some 30 ms).
    The app does it in a thread once a session has started: the first reply does not wait
    for it, and pi's start did not share the CPU with it."""
    importlib.import_module(RENDERER)


class _Chunk:
    """A finished chunk: its source and, once rendered, its lines (blank separator first).
    `height` is what layout uses: an estimate until the lines are published."""

    __slots__ = ("height", "lines", "text")

    def __init__(self, text: str, height: int) -> None:
        self.text = text
        self.lines: list[Strip] | None = None
        self.height = height


IDLE_AFTER = 0.15  # seconds without a delta (to any block) before unrendered chunks are rendered
IDLE_BUDGET = 0.008  # seconds of rendering per idle step, so keys stay responsive


class StreamingText(GrowsInPlace, Widget):
    """Markdown (or styled plain text) that grows by `append` and renders per chunk."""

    DEFAULT_CSS = "StreamingText { height: auto; }"

    _last_append: ClassVar[float] = 0.0
    """When any block last received a delta: idle work waits while a reply streams."""

    def __init__(self, text: str = "", *, plain_style: str | None = None, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._chunker = MarkdownChunker()
        self._plain_style = plain_style
        self._width = 0
        self._chunks: list[_Chunk] = []
        self._starts: list[int] = []  # first line of each chunk; valid while not _stale
        self._stale = True
        self._done_height = 0
        self._tail_lines: list[Strip] = []
        self._style = Style()  # the widget's style, applied to every strip when it is rendered
        self._style_changed = True
        self._idle_timer: Timer | None = None
        self._selection: Selection | None = None
        self._painting = False  # in render_lines: drawing the screen, not looking up the mouse
        self._chunker.feed(text)

    @property
    def text(self) -> str:
        return self._chunker.text

    @property
    def line_count(self) -> int:
        self._index()
        return self._done_height + len(self._tail_lines)

    @property
    def pending(self) -> int:
        """Finished chunks not rendered yet: their height is still an estimate."""
        return sum(chunk.lines is None for chunk in self._chunks)

    def append(self, delta: str) -> None:
        if not delta:
            return
        StreamingText._last_append = time.monotonic()
        self._chunker.feed(delta)
        self._check_style()
        if not self._width:
            self.refresh(layout=True)  # laid out whole in get_content_height
            return
        before = self.line_count
        first_changed = self._done_height
        old_tail = self._tail_lines
        finished = self._take_chunks()  # rendered at the next layout: once per frame, however many deltas came
        self._tail_lines = self._render_tail()
        after = self.line_count
        if not finished:  # most deltas change the tail's last line or two, not the lines above
            first_changed += next(
                (i for i, (old, new) in enumerate(zip(old_tail, self._tail_lines)) if old != new),
                min(len(old_tail), len(self._tail_lines)),
            )
        # only the lines from the first changed one on: the rest stay in Textual's line cache
        self.refresh(
            Region(0, first_changed, self._width, max(before, after) - first_changed),
            layout=finished or after != before,
        )
        self._schedule_idle()

    def replace(self, text: str) -> None:
        """The final text of the block (`*_end`, `message_end`): usually what streamed."""
        if text == self.text:
            return
        if text.startswith(self.text):
            self.append(text[len(self.text) :])
            return
        self._chunker = MarkdownChunker()
        self._chunker.feed(text)
        self._chunks, self._stale, self._width = [], True, 0
        self.refresh(layout=True)

    def visible_text(self, last_lines: int = 0) -> str:
        """What the rendered lines show, or their last `last_lines` (for tests); renders
        every chunk that is still an estimate."""
        self._render_pending(budget=None)
        lines = [line for chunk in self._chunks for line in chunk.lines or ()] + self._tail_lines
        return "\n".join(strip.text.rstrip() for strip in lines[-last_lines:])

    # --- chunks and their lines -----------------------------------------------------------

    def _take_chunks(self) -> bool:
        """Chunks the chunker finished since the last call join the list, unrendered;
        True if there were any."""
        new = self._chunker.chunks[len(self._chunks) :]
        for text in new:
            self._chunks.append(_Chunk(text, self._estimate(text, first=not self._chunks)))
            self._stale = True
        return bool(new)

    def _estimate(self, text: str, first: bool) -> int:
        """Lines `text` will take at this width, roughly (plus the separator if not first)."""
        width = max(1, self._width)
        lines = text.strip("\n").split("\n")
        return sum(len(line) // width + 1 for line in lines) + (0 if first else 1)

    def _index(self) -> None:
        if not self._stale:
            return
        starts, y = [], 0
        for chunk in self._chunks:
            starts.append(y)
            y += chunk.height
        self._starts, self._done_height, self._stale = starts, y, False

    def _render_done(self, chunk: _Chunk, first: bool) -> None:
        chunk.lines = self._render_separated(chunk.text, first)

    def _lay_out(self, chunk: _Chunk) -> bool:
        """A rendered chunk takes its real height in the layout; True if that changed it."""
        height = len(chunk.lines or ())
        if height == chunk.height:
            return False
        chunk.height, self._stale = height, True
        return True

    def _render_newest(self, lines: int) -> int | None:
        """Render the newest unrendered chunks that fit in `lines` (what an anchored view
        shows next) and lay them out at their real height; the index of the first chunk
        whose height changed, if one did."""
        resized, shown = None, len(self._tail_lines)
        for index in range(len(self._chunks) - 1, -1, -1):
            if shown >= lines:
                break
            chunk = self._chunks[index]
            if chunk.lines is None:
                self._render_done(chunk, first=index == 0)
            if self._lay_out(chunk):
                resized = index
            shown += chunk.height
        self._index()
        return resized

    def _publish(self) -> None:
        """Rendered chunks' real heights replace their estimates, in one new layout."""
        changed = False
        for chunk in self._chunks:
            if chunk.lines is not None:
                changed |= self._lay_out(chunk)
        if changed:
            self.refresh(layout=True)

    def _render_pending(self, budget: float | None = IDLE_BUDGET) -> bool:
        """Render unrendered chunks, newest first, for up to `budget` seconds (None: all).
        Their heights are published once none is left, so idle work costs one new layout,
        not one per step. True when none is left."""
        if not self._width:
            return True
        started = time.perf_counter()
        for index in range(len(self._chunks) - 1, -1, -1):
            chunk = self._chunks[index]
            if chunk.lines is None:
                self._render_done(chunk, first=index == 0)
                if budget is not None and time.perf_counter() - started > budget:
                    break
        if self.pending:
            return False
        self._publish()
        return True

    def _schedule_idle(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.stop()
        if self.pending and self.is_attached:
            self._idle_timer = self.set_timer(IDLE_AFTER, self._idle_step)

    def _idle_step(self) -> None:
        self._idle_timer = None
        quiet = time.monotonic() - StreamingText._last_append
        if quiet < IDLE_AFTER:  # a reply is streaming: leave it the CPU
            self._idle_timer = self.set_timer(IDLE_AFTER - quiet, self._idle_step)
        elif not self._render_pending():
            self._idle_timer = self.set_timer(0.01, self._idle_step)

    # --- rendering ------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_changed = True

    def _check_style(self) -> None:
        """After a CSS change: if the widget's style differs, render everything again."""
        if self._style_changed and self.is_attached:
            self._style_changed = False
            style = self.rich_style
            if style != self._style:
                self._style, self._width = style, 0

    def _ensure_width(self, width: int) -> None:
        """At a new width every finished chunk goes back to an estimate; the tail is rendered."""
        self._check_style()
        if width == self._width or width <= 0:
            return
        self._width = width
        self._take_chunks()
        for index, chunk in enumerate(self._chunks):
            chunk.lines, chunk.height = None, self._estimate(chunk.text, first=index == 0)
        self._stale = True
        self._tail_lines = self._render_tail()
        self._schedule_idle()

    def _render_tail(self) -> list[Strip]:
        return self._render_separated(self._chunker.tail, first=not self._chunks)

    def _render_separated(self, text: str, first: bool) -> list[Strip]:
        """`text`'s lines, after a blank line unless it is the first chunk."""
        lines = self._render_chunk(text)
        if lines and not first:
            lines.insert(0, KeptStrip.blank(self._width, self._style))
        return lines

    def _render_chunk(self, chunk: str) -> list[Strip]:
        if not chunk.strip():
            return []
        console: Console = self.app.console
        renderable: RenderableType
        if self._plain_style is not None:
            renderable = Text(chunk.strip("\n"), self._style + Style.parse(self._plain_style))
        else:
            from widgets.markdown.render import markdown_lines  # (its parser is imported by the first markdown shown)

            prose = markdown_lines(chunk, console, self._width, self._style, self.hyperlinks, self.code_indent)
            if isinstance(prose, list):
                return self._strips(prose)
            renderable = prose
        options = console.options.update(width=self._width, height=None, highlight=False)
        return self._strips(console.render_lines(renderable, options, pad=True, new_lines=False))

    def _strips(self, lines: list[list[Segment]]) -> list[Strip]:
        """Lines as strips on the widget's style, without blank lines at either end. Rich
        leaves its padding unstyled and its code and rules without the widget's colours:
        Textual's line filters (NO_COLOR, dim) expect every segment to have them."""
        strips: list[Strip] = [KeptStrip(Segment.apply_style(line, self._style), self._width) for line in lines]
        while strips and not strips[0].text.strip():
            strips.pop(0)
        while strips and not strips[-1].text.strip():
            strips.pop()
        return strips

    @property
    def hyperlinks(self) -> bool:
        """Links render as terminal hyperlinks (OSC 8): pi's terminal.hyperlinks setting, which
        the screen holds as its class `-hyperlinks`."""
        return self.screen.has_class("-hyperlinks")

    @property
    def code_indent(self) -> str | None:
        """pi's markdown.codeBlockIndent setting, which the screen holds (None: unset)."""
        return getattr(self.screen, "code_block_indent", None)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Lays out the newest screenful at its real height, so that a frame never shows
        an estimate at the bottom of an anchored transcript."""
        self._ensure_width(width)
        self._take_chunks()
        resized = self._render_newest(self.app.size.height)
        if resized is not None:
            start = self._starts[resized]
            set_dirty(self, Region(0, start, width, self.line_count - start))
        return max(1, self.line_count)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._painting = True
        try:
            return super().render_lines(crop)
        finally:
            self._painting = False

    def render_line(self, y: int) -> Strip:
        strip = self._line(y)
        if self._selection is not None:
            strip = mark_selection(self, self._selection, y, strip)
        if not self._painting:
            # Textual finds where the mouse is in the text (to select) by calling render_line
            # itself and reading (column, line) offsets off the strip; painted lines do not
            # need them, and adding them costs more than the rest of a line's rendering.
            # Added last: a segment the selection splits keeps its start's offset.
            strip = strip.apply_offsets(0, y)
        return strip

    def _line(self, y: int) -> Strip:
        width = self.size.width
        self._ensure_width(width)
        if len(self._starts) != len(self._chunks):
            self._index()  # otherwise keep the index the layout used until the next layout
        if y >= self._done_height:
            tail_y = y - self._done_height
            return self._tail_lines[tail_y] if tail_y < len(self._tail_lines) else Strip.blank(width, self._style)
        index = bisect_right(self._starts, y) - 1
        chunk = self._chunks[index]
        if chunk.lines is None:
            self._render_done(chunk, first=index == 0)
        if chunk.lines is not None and len(chunk.lines) != chunk.height:
            self._publish()  # a chunk on screen shows its real height: lay out again
        lines = chunk.lines or []
        offset = y - self._starts[index]
        return lines[offset] if offset < len(lines) else Strip.blank(width, self._style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as the rendered lines show it (what the mouse went over)."""
        return selection.extract(self.visible_text()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """A selection (by the mouse or a search match) is drawn over the rendered lines;
        its offsets are (column, line) in them."""
        self._selection = selection
        self.refresh()
