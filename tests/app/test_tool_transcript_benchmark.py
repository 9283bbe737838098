"""The tool-transcript benchmark still drives the app as it is built: a few tool results
loaded to the screen, scrolled, then a short reply (`make bench` measures; this runs it once)."""

from __future__ import annotations

import pytest

from benchmarks import tool_transcript


async def test_the_tool_transcript_benchmark_loads_scrolls_and_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tool_transcript, "TOOLS", 12)
    monkeypatch.setattr(tool_transcript, "PAGES", 2)
    monkeypatch.setattr(tool_transcript, "DELTAS", 40)
    result = await tool_transcript.measure_variant(True, "smoke")
    assert set(result) == {"load", "scroll", "stream"} and all(seconds > 0 for seconds in result.values())
    empty = await tool_transcript.measure_variant(None, "empty")
    assert set(empty) == {"stream"}
