"""The big-code benchmarks still drive the app as it is built (`make bench` measures; this
runs each once on small content, in this process)."""

from __future__ import annotations

from benchmarks import big_diff, big_line_diff, big_write, long_tool_session


async def test_the_big_line_diff_benchmark_loads_and_opens_the_full_view() -> None:
    result = await big_line_diff.measure(300)
    assert {"load", "full", "rss"} <= set(result) and all(value > 0 for value in result.values())


async def test_the_big_write_benchmark_loads_opens_and_pages() -> None:
    result = await big_write.measure(20_000)
    assert {"load", "full", "page", "rss"} <= set(result) and all(value > 0 for value in result.values())


async def test_the_big_diff_benchmark_loads_expands_and_opens_the_changes() -> None:
    result = await big_diff.measure(300)  # more rows than an expanded block shows
    assert {"load", "expand", "changes", "rss"} <= set(result) and all(value > 0 for value in result.values())


async def test_the_long_tool_session_benchmark_goes_to_the_start_and_back() -> None:
    result = await long_tool_session.measure(300)
    assert result["views"] <= 400 and all(value > 0 for value in result.values())
