"""The benchmark runner: every module is found and importable, and its table formats.

(The benchmarks themselves are measurements, not tests: `make bench`.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.table import Row, format_markdown, format_table

ROOT = Path(__file__).resolve().parents[2]


def test_every_benchmark_module_is_listed() -> None:
    listed = subprocess.run([sys.executable, "-m", "benchmarks", "--list"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=True).stdout
    names = {line.split(":")[0] for line in listed.splitlines()}
    assert names == {
        "big_diff", "checkpoints", "big_line_diff", "big_write", "decode_throughput", "file_completion", "keystroke_latency", "large_session", "long_tool_session", "markdown_render", "memory", "notify_flood", "remote_files", "sessions", "startup",
        "stream_to_screen", "streaming_cpu", "tool_transcript", "versus_pi_tui", "hold", "held_startup", "hold_idle",
        "served_pages",
    }


def test_rows_print_beside_their_reference_as_text_and_markdown() -> None:
    rows = [("stream", Row("submit -> screen", 450.0, "ms", "pi alone", 225.0)), ("memory", Row("RSS", 120.5, "MB"))]
    text = format_table(rows).splitlines()
    assert text[0].split()[:2] == ["benchmark", "measurement"] and "2.00x" in text[2] and "450" in text[2]
    markdown = format_markdown(rows).splitlines()
    assert markdown[2] == "| stream | submit -> screen | 450 | ms | pi alone | 225 | 2.00x |"
    assert markdown[3] == "| memory | RSS | 120 | MB |  |  |  |"


def test_benchmarks_run_with_a_state_folder_of_their_own(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`make bench` starts pidecks that save desks and checkpoints: never in the user's folder."""
    import os
    from types import SimpleNamespace

    import benchmarks.__main__ as runner

    seen: list[str] = []
    module = SimpleNamespace(run=lambda: seen.append(os.environ["XDG_STATE_HOME"]) or [Row("x", 1.0, "ms")])
    monkeypatch.setattr(runner, "discover", lambda failed: {"probe": module})
    monkeypatch.setenv("XDG_STATE_HOME", "/the/users/own")
    assert runner.main(["probe"]) == 0
    assert seen and seen[0] != "/the/users/own" and "pideck-bench-state-" in seen[0]
    assert not Path(seen[0]).exists(), "and it goes when they end"
