"""The Changes view (/diff, F9) over the fake child, on the messages of a session recorded
from real pi writing and editing files (tests/fixtures/sessions/changes.jsonl), and its SVG
snapshot in a tiny app (snapshots/test_changes_view/; update with `--snapshot-update`, then look)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from rich.style import Style
from tests.pi_harness import SESSIONS, Fake, call_view, fixture_entries, question, send, wait_until
from tests.screen_app import ScreenApp
from tests.snapshot_plugin import settle

from protocol.wire.entries import MessageEntry
from app.scripted_model.scenarios import CHANGES_GREETER
from protocol.state.branch_calls import run_call
from protocol.state.file_changes import file_changes
from protocol.state.reverts import file_patch
from protocol.wire.messages import ToolResult
from protocol.state.session_model import SessionModel, ToolRun
from widgets.colors import palette
from widgets.screens.changes_screen import EMPTY, ChangesScreen, DiffView
from widgets.transcript.transcript import Transcript


def changes_fake(tmp_path: Path, edit_details: Any = "keep") -> Fake:
    """The fake child answering get_messages with the recorded session's messages;
    `edit_details` replaces the details of the edit results unless "keep"."""
    messages = []
    for line in (SESSIONS / "changes.jsonl").read_text().splitlines()[1:]:
        entry = json.loads(line)
        if entry.get("type") == "message":
            message = entry["message"]
            if edit_details != "keep" and message.get("toolName") == "edit":
                message["details"] = edit_details
            messages.append(message)
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages))
    return Fake(tmp_path, "--messages", str(path))


def rows_text(view: DiffView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


def segment_style(view: DiffView, y: int, text: str) -> Style:
    """The style of the segment of screen row `y` that holds `text`."""
    for segment in view.render_line(y):
        if text in segment.text:
            return segment.style or Style.null()
    raise AssertionError(f"{text!r} not on row {y}: {view.render_line(y).text!r}")


async def open_changes(pilot: Any, key: str | None = None) -> ChangesScreen:
    if key:
        await pilot.press(key)
    else:
        await send(pilot, "/diff")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChangesScreen), what="the Changes view")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ChangesScreen)
    return screen


async def test_changes_lists_files_in_order_of_last_change_with_coloured_diffs(tmp_path: Path) -> None:
    fake = changes_fake(tmp_path)
    async with fake.run() as pilot:
        screen = await open_changes(pilot, "f9")
        files = screen.query_one("#changes-files")
        prompts = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
        assert prompts == ["notes.txt\n+5 −1 · 2 changes", "greeter.py\n+9 −3 · 3 changes"]
        view = screen.query_one(DiffView)
        rows = rows_text(view)
        assert rows[:3] == ["notes.txt  +5 −1 · 2 changes", "  write +3 −0 · new content", "@@ -0,0 +1,3 @@"]
        assert "-2 two" in rows and "+4 four" in rows and "\\ No newline at end of file" in rows
        removed, added = rows.index("-2 two"), rows.index("+4 four")
        assert segment_style(view, removed, "two").color == palette.style("toolDiffRemoved").color
        assert segment_style(view, added, "four").color == palette.style("toolDiffAdded").color
        assert segment_style(view, rows.index(" 1 one", 4), "one").dim  # context after the second write's hunk
        assert segment_style(view, 2, "@@").color == palette.style("accent").color
        assert not screen.query_one("#changes-note").display  # no bash command to say anything of
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen), what="closed")


async def test_copy_writes_one_patch_of_the_file_from_before_the_session_to_now(tmp_path: Path) -> None:
    fake = changes_fake(tmp_path)
    now = CHANGES_GREETER.replace('"hello " + name', 'f"Hello, {name}!"').replace('"world"', '"pideck"')
    (tmp_path / "greeter.py").write_text(now.replace("def main():", "def main() -> None:"))
    async with fake.run() as pilot:
        written: list[str] = []
        driver = pilot.app._driver
        assert driver is not None
        original = driver.write
        driver.write = lambda data: (written.append(data), original(data))[1]  # type: ignore[method-assign]
        screen = await open_changes(pilot)
        screen.query_one("#changes-files").highlighted = 1  # greeter.py
        await wait_until(pilot, lambda: screen.selected() is not None and screen.selected().path == "greeter.py",
                         what="greeter.py selected")
        await pilot.press("c")
        await wait_until(pilot, lambda: any("Copied the patch of greeter.py, from before this session to now: +6 −0 "
                                            "(taken as a new file" in n.message
                                            for n in pilot.app.toasts.center.entries), what="the toast")
        payloads = [m[1] for data in written for m in re.finditer(r"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", data)]
        expected = file_patch("greeter.py", None, (tmp_path / "greeter.py").read_bytes())
        assert [base64.b64decode(p).decode() for p in payloads] == [expected]
        assert expected.count("+++ greeter.py\n") == 1 and expected.startswith("--- /dev/null\n")


async def test_enter_on_a_hunk_jumps_to_its_tool_call(tmp_path: Path) -> None:
    fake = changes_fake(tmp_path)
    async with fake.run(size=(120, 30)) as pilot:
        transcript = pilot.app.query_one(Transcript)
        transcript.scroll_end(animate=False, immediate=True)
        screen = await open_changes(pilot)
        view = screen.query_one(DiffView)
        rows = rows_text(view)
        target = rows.index("  write +3 −0 · new content")  # notes.txt's first write: near the top of the transcript
        view.move_to(target + 2)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen), what="closed")
        tool = call_view(pilot.app, "call_write_notes")
        assert tool is not None
        await wait_until(pilot, lambda: transcript.region.y <= tool.region.y < transcript.region.bottom,
                         what="the call in view")


async def test_an_empty_session_says_nothing_was_changed(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        screen = await open_changes(pilot)
        assert str(screen.query_one("#changes-empty").render()) == EMPTY
        await pilot.press("c")
        await wait_until(pilot, lambda: any("nothing to copy" in n.message for n in pilot.app.toasts.center.entries),
                         what="the toast")
        await pilot.press("q")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, ChangesScreen), what="closed")


async def test_edits_without_pis_details_show_what_they_asked_for(tmp_path: Path) -> None:
    fake = changes_fake(tmp_path, edit_details="not a dict")
    async with fake.run() as pilot:
        screen = await open_changes(pilot)
        view = screen.query_one(DiffView)
        view.show_file(1)
        await pilot.pause()
        rows = rows_text(view)
        assert "pi sent no diff: the text the edit replaced and its replacement" in rows
        assert '-2     return "hello " + name' not in rows  # not pi's numbered patch: the edit's own text
        assert '-  return "hello " + name' in rows and "@@ edit 1 of 2 @@" in rows


def test_changes_view_snapshot(snap_compare: Any) -> None:
    session = SessionModel()
    session.load_messages(entry.message for entry in fixture_entries("changes.jsonl") if isinstance(entry, MessageEntry))
    screen = ChangesScreen(file_changes(map(run_call, session.tool_runs()), "/home/ada/p"), copy=lambda text: None)

    async def run_before(pilot: Any) -> None:
        await wait_until(pilot, lambda: screen.query_one(DiffView).size.height > 0, what="the diff")
        await pilot.press("down", "down", "down")
        await settle(pilot)

    assert snap_compare(ScreenApp(screen), run_before=run_before, terminal_size=(100, 30))


async def test_a_large_diff_draws_only_the_rows_in_view() -> None:
    big = "".join(f"line {i}\n" for i in range(10_000))
    run = ToolRun("call_big", "write", {"path": "big.txt", "content": big}, 0.0, 0, result=ToolResult(), done=True)
    screen = ChangesScreen(file_changes([run_call(run)], "/p"), copy=lambda text: None)
    async with ScreenApp(screen).run_test(size=(100, 30)) as pilot:
        view = await wait_until(pilot, lambda: screen.is_mounted and screen.query_one(DiffView), what="the view")
        await wait_until(pilot, lambda: view.size.height > 0 and view._strips, what="drawn")
        assert len(view.rows) == 10_003 and len(view._strips) <= view.size.height
        await pilot.press("end")
        await wait_until(pilot, lambda: "+10000 line 9999" in rows_text(view), what="the last line")
        assert len(view._strips) <= 3 * view.size.height


async def test_a_revert_is_written_off_the_ui_thread_and_keys_wait_for_it(tmp_path: Path) -> None:
    """With pi on another host a write is an ssh connection: the screen keeps answering meanwhile."""
    import threading

    from protocol.state.reverts import Plan

    release, on_main = threading.Event(), []

    class SlowReverts:
        def plan_file(self, file: Any) -> Plan:
            return Plan(str(tmp_path / "x"), file.path, "the whole file", b"a\n", b"b\n")

        def apply(self, plan: Plan) -> None:
            on_main.append(threading.current_thread() is threading.main_thread())
            release.wait(5)

    async with changes_fake(tmp_path).run() as pilot:
        screen = await open_changes(pilot)
        screen.reverts = SlowReverts()  # type: ignore[assignment]
        await pilot.press("R")
        await question(pilot)
        await pilot.press("y")
        await wait_until(pilot, lambda: on_main, what="the write begun")
        await pilot.press("u")
        await wait_until(pilot, lambda: any("A revert is being written" in n.message for n in pilot.app.toasts.center.entries),
                         what="u answered while the write runs")
        release.set()
        await wait_until(pilot, lambda: any(n.message.startswith("Reverted ") for n in pilot.app.toasts.center.entries),
                         what="the revert done")
        assert on_main == [False] and not screen.busy
