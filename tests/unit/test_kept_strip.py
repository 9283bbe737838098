"""A kept strip is a Strip without caches of its own (widgets/engine/kept_strip.py)."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from widgets.engine.kept_strip import KeptStrip


def test_every_slot_of_textual_s_strip_is_set() -> None:
    # (a Textual that adds one fails here, not at the first frame that reads it)
    kept = KeptStrip([Segment("hello")], 5)
    slots = [name for cls in Strip.__mro__ for name in getattr(cls, "__slots__", ())]
    assert slots and [name for name in slots if not hasattr(kept, name)] == []


@pytest.mark.engine
def test_it_crops_divides_and_styles_as_a_strip_does_and_remembers_none_of_it() -> None:
    segments = [Segment("hello ", Style(bold=True)), Segment("world")]
    kept, strip = KeptStrip(segments, 11), Strip(segments, 11)
    assert kept.crop(2, 9) == strip.crop(2, 9) and kept.crop(2, 9) is not kept.crop(2, 9)
    assert kept.divide([3, 8]) == strip.divide([3, 8])
    assert kept.apply_style(Style(italic=True)) == strip.apply_style(Style(italic=True))
    assert kept.crop_extend(0, 14, None) == strip.crop_extend(0, 14, None)
    assert kept.apply_offsets(1, 2).text == "hello world"
