"""Reverting and combining changes (protocol/state/reverts.py): hunks applied and reversed only
where their lines are, one patch per file for `patch -p0`, the three-way check."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from protocol.state.file_changes import NO_NEWLINE, Change
from protocol.state.reverts import NotExact, apply, apply_bytes, file_patch, file_plan, hunk_plan, hunks, replay

BEFORE = "".join(f"line {n}\n" for n in range(1, 21))
TWO_HUNKS = ("@@ -1,4 +1,4 @@", " line 1", "-line 2", "+LINE 2", " line 3", " line 4",
             "@@ -15,4 +15,4 @@", " line 15", " line 16", "-line 17", "+LINE 17", " line 18")
AFTER = BEFORE.replace("line 2\n", "LINE 2\n").replace("line 17\n", "LINE 17\n")


def test_a_two_hunk_patch_applies_and_each_hunk_reverses_alone() -> None:
    found = hunks(TWO_HUNKS)
    assert [(h.old_start, h.new_start, h.new_lines) for h in found] == [(1, 1, (2, 2)), (15, 15, (17, 17))]
    assert hunks(("@@ -3,4 +3,5 @@", " a", "+b", "+c", " d", " e", "-f"))[0].new_lines == (4, 7)
    assert apply(BEFORE, found) == AFTER
    assert apply(AFTER, found, reverse=True) == BEFORE
    assert apply(AFTER, found[1:], reverse=True) == BEFORE.replace("line 2\n", "LINE 2\n")


def test_a_hunk_moved_by_lines_added_above_still_reverses_where_its_lines_are() -> None:
    shifted = "new top\n" * 3 + AFTER
    assert apply(shifted, hunks(TWO_HUNKS)[1:], reverse=True) == "new top\n" * 3 + AFTER.replace("LINE 17", "line 17")


def test_a_hunk_whose_lines_changed_since_is_refused() -> None:
    with pytest.raises(NotExact):
        apply(AFTER.replace("LINE 17", "LINE seventeen"), hunks(TWO_HUNKS)[1:], reverse=True)


def test_missing_newline_at_end_and_crlf_and_bom_are_kept() -> None:
    lines = ("@@ -1,2 +1,2 @@", " a", "-b", NO_NEWLINE, "+c", NO_NEWLINE)
    assert apply("a\nb", hunks(lines)) == "a\nc"
    assert apply_bytes(b"\xef\xbb\xbfa\r\nc", hunks(lines), reverse=True) == b"\xef\xbb\xbfa\r\nb"


def test_one_patch_per_file_rebuilds_it_with_patch_p0(tmp_path: Path) -> None:
    patch = file_patch("src/a.txt", BEFORE.encode(), AFTER.encode())
    assert patch.startswith("--- src/a.txt\n+++ src/a.txt\n@@ ") and patch.count("--- ") == 1
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.txt").write_text(BEFORE)
    subprocess.run(["patch", "-s", "-p0"], input=patch, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "src/a.txt").read_text() == AFTER
    created = file_patch("new.txt", None, b"x\ny")
    assert created == "--- /dev/null\n+++ new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
    subprocess.run(["patch", "-s", "-p0"], input=created, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "new.txt").read_text() == "x\ny"
    assert file_patch("same", b"a\n", b"a\n") == ""


def change(lines: tuple[str, ...], *, created: bool = False, tool: str = "edit") -> Change:
    return Change("id", tool, lines, 0, 0, created=created)


def test_replay_works_back_from_now_through_edits_and_forward_from_a_write() -> None:
    assert replay([change(TWO_HUNKS)], AFTER.encode()).before == BEFORE.encode()
    write = change(("@@ -0,0 +1,2 @@", "+a", "+b"), created=True, tool="write")
    replayed = replay([write, change(("@@ -1,2 +1,2 @@", " a", "-b", "+c"))], None)
    assert (replayed.before, replayed.after, replayed.assumed_new) == (None, b"a\nc\n", True)
    with pytest.raises(NotExact):
        replay([change(TWO_HUNKS), write], b"a\nb\n")  # what the edit started from is gone


def test_a_file_that_changed_since_pi_left_it_is_a_conflict_with_its_three_versions() -> None:
    ok = file_plan("a", "/p/a", b"old\n", b"pi\n", b"pi\n")
    assert ok.conflict is None and ok.lines == ["@@ -1 +1 @@", "-pi", "+old"]
    clash = file_plan("a", "/p/a", b"old\n", b"pi\n", b"user\n")
    assert clash.conflict == (b"old\n", b"pi\n", b"user\n") and clash.new == b"old\n"
    hunk = hunks(TWO_HUNKS)[0]
    edited = AFTER.replace("line 10", "user's line").encode()
    plan = hunk_plan("a", "/p/a", hunk, AFTER.encode(), edited)
    assert plan.conflict is not None and plan.new == edited.replace(b"LINE 2", b"line 2")
    assert plan.what == "line 2"
    gone = hunk_plan("a", "/p/a", hunk, AFTER.encode(), AFTER.replace("LINE 2", "L2").encode())
    assert gone.problem and gone.new == gone.old


def test_rewind_points_are_the_branchs_user_messages_with_the_file_changes_after_each() -> None:
    """Each call is named by where it is: the provider's ids repeat (`call_0` every turn)."""
    from protocol.wire.entries import MessageEntry
    from protocol.wire.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
    from protocol.wire.responses import ForkMessage
    from protocol.state.rewind import rewind_points

    def entry(id: str, parent: str | None, message: object) -> MessageEntry:
        return MessageEntry(id=id, parent_id=parent, message=message)

    def calls(*names: str) -> AssistantMessage:
        return AssistantMessage(content=[ToolCall(id="call_0", name=name) for name in names], stop_reason="toolUse")

    def result(name: str, is_error: bool = False) -> ToolResultMessage:
        return ToolResultMessage(tool_call_id="call_0", tool_name=name, is_error=is_error)

    entries = [
        entry("u1", None, UserMessage(content="one")),
        entry("a1", "u1", calls("write")),
        entry("t1", "a1", result("write")),
        entry("u2", "t1", UserMessage(content="two")),
        entry("a2", "u2", calls("edit", "read", "edit")),
        entry("t2", "a2", result("edit", is_error=True)),
        entry("t3", "t2", result("read")),
        entry("t4", "t3", result("edit")),
        entry("x", "u1", UserMessage(content="another branch")),
    ]
    messages = [ForkMessage(entry_id=i, text=t) for i, t in (("u1", "one"), ("x", "another branch"), ("u2", "two"))]
    points = rewind_points(entries, "t4", messages)
    placed = [(p.entry_id, [(call.key.entry_id, call.key.index) for call in p.calls]) for p in points]
    assert placed == [("u1", [("a1", 0), ("a2", 2)]), ("u2", [("a2", 2)])]  # not the failed edit, not the read
    assert [call.result_entry_id for call in points[0].calls] == ["t1", "t4"]
    assert rewind_points(entries, "missing", messages) == []
