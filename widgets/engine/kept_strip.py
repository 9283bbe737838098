"""Strips kept as long as their message: the rendered lines of the transcript.

Textual's `Strip` makes seven small caches of its own (of its crops, divisions, styled
copies...), each an object the garbage collector tracks, filled by the first frames that
draw the strip and kept as long as the strip is. A rendered reply keeps a strip per line:
a 3,000-token reply left some 19,000 objects for the collector to walk after every run and
at every full collection, 10,000 of them these caches (and 400 more strips in them). The
frames that draw a kept line cache what they make of it themselves (Textual's styles cache
holds each widget's rendered rows), so a kept line caches nothing: it is its segments.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from widgets.engine import ON


class _NoCache:
    """Stands in for a strip's caches (`get` and item assignment are all `Strip` uses):
    remembers nothing, so one serves every kept strip."""

    __slots__ = ()

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


_NO_CACHE: Any = _NoCache()


class KeptStrip(Strip):
    """A `Strip` without caches of its own (Strip's private cache attributes, set to one
    shared no-op), where the engine runs. `_render_cache`, the line as
    terminal text, is kept: it is a string, not an object the collector tracks."""

    __slots__ = ()

    if ON:  # (else a Strip as Textual makes it)
        def __init__(self, segments: Iterable[Segment], cell_length: int | None = None) -> None:
            self._segments = list(segments)
            self._cell_length = cell_length
            self._divide_cache = self._crop_cache = self._style_cache = self._filter_cache = _NO_CACHE
            self._line_length_cache = self._crop_extend_cache = self._offsets_cache = _NO_CACHE
            self._render_cache = None
            self._link_ids = None
            self._cell_count = None
