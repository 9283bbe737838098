"""The /resume and /fork pickers (widgets/screens/session_picker.py) in a tiny app, without pi."""

from __future__ import annotations

import io
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from tests.pi_harness import PICKER_SIZE, summary, wait_until
from tests.screen_app import ScreenApp
from textual import events
from textual.screen import Screen
from textual.widgets import Input

from protocol.wire.responses import ForkMessage
from protocol.files.session_files import SessionSummary
from widgets.engine.key_events import key_clock
from widgets.screens.session_picker import ForkPicker, SessionPicker, human_size

HERE = [summary("Parser work", "Plan the parser", minute=5), summary(None, "Explain the build")]
ELSEWHERE = [*HERE, summary(None, "Fix the website banner", cwd="/home/ada/web")]


def session_picker() -> ScreenApp:
    return ScreenApp(SessionPicker(lambda everywhere: ELSEWHERE if everywhere else HERE, where="/s"))


async def test_filter_then_enter_resumes_the_match() -> None:
    app = session_picker()
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="listing")
        assert picker.highlighted_value() is HERE[0]
        await pilot.press(*"BUILD exp")  # every word, any case, any order
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="filter")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.results, what="dismiss")
        assert app.results[0] is HERE[1]


async def test_tab_lists_every_folder_and_back() -> None:
    app = session_picker()
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="this folder")
        await pilot.press("tab")
        await wait_until(pilot, lambda: len(picker.shown) == 3, what="every folder")
        assert "every folder" in str(picker.query_one("#picker-note").render())
        assert isinstance(app.focused, Input)  # Tab did not move the focus away from the filter
        await pilot.press("tab")
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="this folder again")


async def test_no_match_and_escape() -> None:
    app = session_picker()
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="listing")
        await pilot.press(*"zzz", "enter")  # nothing matches: Enter does nothing
        await pilot.pause()
        assert picker.shown == [] and app.screen is picker
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.results, what="dismiss")
        assert app.results == [None]


async def test_unreadable_directory_is_reported() -> None:
    def fail(everywhere: bool) -> list[SessionSummary]:
        raise PermissionError(13, "Permission denied", "/s")

    app = ScreenApp(SessionPicker(fail))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        note = app.first.query_one("#picker-note")
        await wait_until(pilot, lambda: "cannot read the sessions" in str(note.render()), what="the error")
        assert "Permission denied" in str(note.render())


async def test_fork_picker_starts_on_the_last_message_and_keeps_text_literal() -> None:
    messages = [ForkMessage(entry_id="a", text="first [bold]one[/]"), ForkMessage(entry_id="b", text="second\nline")]
    app = ScreenApp(ForkPicker(messages))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="rows")
        assert picker.highlighted_value() == "b"
        assert str(picker.shown[0].prompt).endswith("first [bold]one[/]")
        assert str(picker.shown[1].prompt).endswith("second line")
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: app.results, what="dismiss")
        assert app.results == ["a"]


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 5 * 1024 * 1024, 3 << 30)] == ["0 B", "1023 B", "1.0 KB", "5.0 MB", "3.0 GB"]


async def test_arrows_wrap_around_and_page_keys_stop_at_the_ends() -> None:
    app = ScreenApp(ForkPicker([ForkMessage(entry_id=entry, text=f"message {entry}") for entry in "abc"]))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 3, what="rows")
        seen = []
        for key in ("down", "up", "pagedown", "pageup", "up"):
            await pilot.press(key)
            seen.append(picker.highlighted_value())
        assert seen == ["a", "c", "c", "a", "c"]


def prompts(picker: SessionPicker) -> list[str]:
    console = Console(width=120, file=io.StringIO(), record=True)
    for row in picker.shown:
        console.print(row.prompt)
    return console.export_text().splitlines()


async def test_named_only_and_paths_as_in_pi() -> None:
    app = session_picker()
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="listing")
        await pilot.press("ctrl+n")
        assert [row.value for row in picker.shown] == [HERE[0]], "only the named session"
        assert "1 named" in str(picker.query_one("#picker-note").render())
        await pilot.press("ctrl+n", "ctrl+p")
        assert len(picker.shown) == 2 and any("/s/Plan .jsonl" in line for line in prompts(picker))
        await pilot.press("ctrl+p")
        assert not any("/s/" in line for line in prompts(picker)) and any("/home/ada/p" in line for line in prompts(picker))


async def test_delete_asks_first_and_never_deletes_the_open_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no `trash` command: the file is removed
    files = [tmp_path / "open.jsonl", tmp_path / "old.jsonl"]
    for file in files:
        file.write_text("{}\n")
    sessions = [replace(summary("Open work", "Open", minute=5), path=files[0]), replace(summary(None, "Old try"), path=files[1])]
    app = ScreenApp(SessionPicker(lambda everywhere: sessions, current=str(files[0])))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        note = picker.query_one("#picker-note")
        await wait_until(pilot, lambda: len(picker.shown) == 2, what="listing")
        await pilot.press("ctrl+d")
        assert "cannot be deleted" in str(note.render()) and files[0].exists()

        await pilot.press("down", "ctrl+d")
        assert "Delete “Old try”? Enter deletes" in str(note.render())
        await pilot.press("escape")
        assert app.screen is picker and files[1].exists(), "Esc keeps it, and the picker stays"
        await pilot.press("ctrl+d")
        await wait_until(pilot, picker.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not files[1].exists(), what="deleted")
        assert [row.value for row in picker.shown] == [sessions[0]] and app.screen is picker
        assert "“Old try” removed" in str(note.render())
        assert files[0].exists()


async def test_the_delete_asked_again_takes_an_enter_only_once_shown_again_a_while(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The delete asked a while ago, a screen over the list closed, then an Enter right away:
    the question counts from when it is shown again, so the Enter deletes nothing."""
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no `trash` command: the file is removed
    old = tmp_path / "old.jsonl"
    old.write_text("{}\n")
    app = ScreenApp(SessionPicker(lambda everywhere: [replace(summary(None, "Old try"), path=old)]))
    async with app.run_test(size=PICKER_SIZE) as pilot:
        picker = app.first
        note = picker.query_one("#picker-note")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="listing")
        await pilot.press("ctrl+d")
        await wait_until(pilot, picker.on_purpose.takes_keys, what="the question taking keys")
        await app.push_screen(Screen())
        app.pop_screen()
        enter = events.Key("enter", "\r")  # pressed as the list shows again
        enter.time = key_clock()
        enter.set_sender(app)
        app.post_message(enter)
        await wait_until(pilot, lambda: "Enter was ignored" in str(note.render()), what="the Enter ignored")
        assert old.exists()
        await wait_until(pilot, picker.on_purpose.takes_keys, what="the question taking keys again")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not old.exists(), what="deleted")
