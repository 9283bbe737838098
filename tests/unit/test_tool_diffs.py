"""pi's edit diffs read for display (protocol/tool_diffs.py)."""

from __future__ import annotations

import pytest

from protocol.tool_diffs import ADDED, CONTEXT, REMOVED, SKIPPED, changed_spans, diff_counts, display_diff, patch_counts

PI_DIFF = "  9 keep\n-10 def old_name():\n+10 def new_name():\n+11     pass\n    ...\n 40 tail"


def test_display_diff_reads_pi_lines_and_skips() -> None:
    lines = display_diff({"diff": PI_DIFF, "firstChangedLine": 10})
    assert lines is not None
    assert [line.kind for line in lines] == [CONTEXT, REMOVED, ADDED, ADDED, SKIPPED, CONTEXT]
    assert [line.number for line in lines] == [" 9", "10", "10", "11", "  ", "40"]
    assert lines[3].text == "    pass"
    assert diff_counts(lines) == (2, 1)


@pytest.mark.parametrize("details", [None, "diff", {}, {"diff": 3}, {"diff": ""}, {"diff": "no marker"}, {"diff": "   not a skip"}, [1]])
def test_display_diff_refuses_what_is_not_pis_format(details: object) -> None:
    assert display_diff(details) is None


def test_patch_counts_leave_headers_out() -> None:
    patch = "--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n ctx\n"
    assert patch_counts(patch) == (2, 1)


def test_changed_spans_mark_only_the_changed_words() -> None:
    old, new = "    return old_name(a)", "    return new_name(a, b)"
    old_spans, new_spans = changed_spans(old, new)
    assert [old[s:e] for s, e in old_spans] == ["old_name"]
    assert [new[s:e] for s, e in new_spans] == ["new_name", ", b"]


def test_changed_spans_keep_shared_indent_out() -> None:
    old_spans, new_spans = changed_spans("  x = 1", "    x = 1")
    assert all(start >= 2 for start, _ in old_spans + new_spans)
