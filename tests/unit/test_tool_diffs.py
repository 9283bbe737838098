"""pi's edit diffs read for display (protocol/state/tool_diffs.py)."""

from __future__ import annotations

import pytest

from protocol.state.tool_diffs import ADDED, CONTEXT, REMOVED, SKIPPED, changed_spans, diff_counts, display_diff, patch_counts

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


def _minified(count: int, renamed: int | None = None) -> str:
    return "".join(f"var {'renamed' if i == renamed else 'v'}{i}=f(a{i % 7},\"s{i}\");" for i in range(count))


def test_a_one_token_change_in_a_huge_line_diffs_only_that_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """The common start and end of the lines are set aside before the word diff: one
    changed identifier in a 200 KB minified line compares a few words, not 40,000."""
    import protocol.state.tool_diffs as tool_diffs

    sizes: list[tuple[int, int]] = []

    class Recording(tool_diffs.SequenceMatcher):  # type: ignore[misc]
        def __init__(self, junk: object, a: list[str], b: list[str], autojunk: bool = True) -> None:
            sizes.append((len(a), len(b)))
            assert len(a) * len(b) <= 4, f"a word diff of {len(a)} by {len(b)} words"
            super().__init__(junk, a, b, autojunk=autojunk)

    monkeypatch.setattr(tool_diffs, "SequenceMatcher", Recording)
    old, new = _minified(9000), _minified(9000, renamed=4500)
    assert len(old) > 200_000
    old_spans, new_spans = changed_spans(old, new)
    assert [old[s:e] for s, e in old_spans] == ["v4500"]
    assert [new[s:e] for s, e in new_spans] == ["renamed4500"]
    assert sizes


def test_a_changed_region_over_the_budget_is_marked_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """More word pairs than WORD_DIFF_BUDGET are not diffed word by word: each side's
    changed region is one range, without the spaces at its ends."""
    import protocol.state.tool_diffs as tool_diffs

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("no word diff over the budget")

    words = [f"w{i}" for i in range(600)]
    old, new = "  x = " + " ".join(words) + " ;", "  x = " + " ".join(reversed(words)) + " ;"
    monkeypatch.setattr(tool_diffs, "SequenceMatcher", refuse)
    old_spans, new_spans = changed_spans(old, new)
    assert [old[s:e] for s, e in old_spans] == [" ".join(words)]
    assert [new[s:e] for s, e in new_spans] == [" ".join(reversed(words))]


@pytest.mark.parametrize(("old", "new", "removed", "added"), [
    ("call(old_name, b)", "call(new_name, b)", ["old_name"], ["new_name"]),
    ("a = 1", "a = 12", ["1"], ["12"]),
    ("x  y", "x y", [], []),
    ("same", "same", [], []),
    ("", "added", [], ["added"]),
])
def test_changed_spans_widen_to_whole_words(old: str, new: str, removed: list[str], added: list[str]) -> None:
    old_spans, new_spans = changed_spans(old, new)
    assert [old[s:e] for s, e in old_spans] == removed
    assert [new[s:e] for s, e in new_spans] == added
