"""The files a session changed (protocol/state/file_changes.py), from tool runs as the session
model keeps them: live-like runs built here, and a session file recorded from real pi
(app/scripted_model/scenarios.py `file_changes`)."""

from __future__ import annotations

import subprocess
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import fixture_entries

from app.scripted_model.scenarios import CHANGES_GREETER
from protocol.state.branch_calls import BranchCall, CallKey, branch, branch_calls
from protocol.state.file_changes import NO_NEWLINE, display_path, file_changes, patch_lines
from protocol.state.reverts import NotExact, file_patch, replay
from protocol.wire.messages import ToolResultMessage

CWD = "/home/ada/p"


_ORDER = count()


def run(name: str, args: Any, details: Any = None, *, is_error: bool = False, done: bool = True) -> BranchCall:
    order = next(_ORDER)
    result = ToolResultMessage(tool_call_id=f"call{order}", tool_name=name, details=details, is_error=is_error)
    return BranchCall(CallKey(f"entry{order}", 0, f"call{order}"), name, args, result if done else None)


def recorded() -> list[BranchCall]:
    entries = fixture_entries("changes.jsonl")
    return branch_calls(branch(entries, entries[-1].id))


def test_a_recorded_session_lists_files_in_order_of_last_change_with_their_changes() -> None:
    files = file_changes(recorded(), CWD)
    assert [f.path for f in files] == ["notes.txt", "greeter.py"]  # ./greeter.py changed last
    notes, greeter = files
    assert [c.call.tool_call_id for c in greeter.changes] == ["call_write_greeter", "call_edit_greeter", "call_edit_main"]
    assert [(c.added, c.removed) for c in greeter.changes] == [(6, 0), (2, 2), (1, 1)]
    assert (greeter.added, greeter.removed) == (9, 3)
    assert greeter.changes[1].lines[0] == "@@ -1,6 +1,6 @@"
    assert '-    return "hello " + name' in greeter.changes[1].lines
    # the failed edit of notes.txt is left out; the second write is a diff against the first
    assert [c.call.tool_call_id for c in notes.changes] == ["call_write_notes", "call_rewrite_notes"]
    rewrite = notes.changes[1]
    assert rewrite.lines == ("@@ -1,3 +1,4 @@", " one", "-two", "+2", " three", "+four", NO_NEWLINE)
    assert (rewrite.added, rewrite.removed) == (2, 1)


def test_one_patch_of_all_of_a_files_changes_rebuilds_it(tmp_path: Path) -> None:
    greeter = file_changes(recorded(), CWD)[1]
    replayed = replay(greeter.changes, None)  # a write made it: forward from there
    expected = CHANGES_GREETER.replace('"hello " + name', 'f"Hello, {name}!"').replace('"world"', '"pideck"')
    expected = expected.replace("def main():", "def main() -> None:")
    assert (replayed.before, replayed.after) == (None, expected.encode())
    patch = file_patch(greeter.path, replayed.before, replayed.after)
    assert patch.startswith("--- /dev/null\n+++ greeter.py\n@@ -0,0 +1,6 @@\n+def greet(name):\n")
    assert patch.count("+++ ") == 1  # one creation, not one patch per change
    subprocess.run(["patch", "-s", "-p0"], input=patch, text=True, cwd=tmp_path, check=True)
    assert (tmp_path / "greeter.py").read_text() == expected


@pytest.mark.parametrize(("given", "shown"), [
    ("a.py", "a.py"), ("./a.py", "a.py"), ("@src/../a.py", "a.py"), (f"{CWD}/a.py", "a.py"),
    ("/etc/hosts", "/etc/hosts"), ("../q/b.py", "/home/ada/q/b.py"), (f"{CWD}x/c.py", f"{CWD}x/c.py"),
])
def test_paths_are_relative_to_pis_cwd_when_inside_it(given: str, shown: str) -> None:
    assert display_path(given, CWD) == shown


def test_failed_and_unfinished_runs_and_other_tools_are_left_out() -> None:
    runs = [
        run("write", {"path": "a", "content": "x\n"}, is_error=True),
        run("edit", {"path": "a", "edits": []}, done=False),
        run("bash", {"command": "echo > a"}),
        run("write", {"content": "no path"}),
        run("write", "not a dict"),
    ]
    assert file_changes(runs, CWD) == []


def test_a_write_after_an_edit_shows_the_whole_new_content() -> None:
    runs = [
        run("write", {"path": "a", "content": "1\n"}),
        run("edit", {"path": "a", "edits": [{"oldText": "1", "newText": "2"}]},
            {"patch": "--- a\n+++ a\n@@ -1 +1 @@\n-1\n+2\n"}),
        run("write", {"path": "a", "content": "3\n"}),
    ]
    last = file_changes(runs, CWD)[0].changes[-1]
    assert last.created and last.lines == ("@@ -0,0 +1,1 @@", "+3")


@pytest.mark.parametrize("details", [
    None, "a string", {"patch": 7}, {"patch": "not a diff"}, {"patch": "@@ -1 +1 @@\nnonsense"},
])
def test_an_edit_without_pis_patch_shows_what_it_asked_for(details: Any) -> None:
    asked = {"path": "a", "edits": [{"oldText": "old\nline", "newText": "new"}], "oldText": "x", "newText": "y"}
    edit = run("edit", asked, details)
    change = file_changes([edit], CWD)[0].changes[0]
    assert change.lines == ("@@ edit 1 of 2 @@", "-old", "-line", "+new", "@@ edit 2 of 2 @@", "-x", "+y")
    assert (change.added, change.removed, change.patch) == (2, 3, False)
    assert "no diff" in change.note
    with pytest.raises(NotExact):  # not a patch of the file: never copied or reverted as one
        replay(file_changes([edit], CWD)[0].changes, b"new\ny\n")


def test_an_edit_with_nothing_to_show_says_so() -> None:
    change = file_changes([run("edit", {"path": "a", "edits": "[broken json"})], CWD)[0].changes[0]
    assert (change.lines, change.added, change.removed) == ((), 0, 0)
    assert change.note == "pi sent no diff for this edit"


def test_patch_lines_drop_pis_file_headers() -> None:
    assert patch_lines("--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n\\ No newline at end of file\n") == [
        "@@ -1 +1 @@", "-x", "+y", NO_NEWLINE]
    assert patch_lines("") is None
