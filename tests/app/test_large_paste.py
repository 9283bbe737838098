"""A large paste is a marker in the prompt, as in pi's editor, and reaches pi whole: sent,
steered, queued, given back by Esc, edited with Ctrl+G, deleted whole by Backspace."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, TmuxPideck, start_run, type_text, wait_until
from textual import events
from textual.pilot import Pilot

from widgets.prompt.editor import PromptEditor

LINES = "".join(f"line {n} of the log\n" for n in range(200))


async def paste(pilot: Pilot[Any], editor: PromptEditor, text: str) -> None:
    """As the terminal's paste reaches the app, which hands it to the prompt."""
    before = editor.text
    pilot.app.post_message(events.Paste(text))
    await wait_until(pilot, lambda: editor.text != before, what="the paste")


async def test_a_large_paste_is_a_marker_and_is_sent_whole(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "3")  # a run goes on until Esc
    async with fake.run() as pilot:
        editor = pilot.app.query_one(PromptEditor)
        await type_text(pilot, "Summarize ")
        await paste(pilot, editor, LINES.replace("\n", "\r\n"))
        assert editor.text == "Summarize [paste #1 +201 lines]"
        await type_text(pilot, " briefly.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: fake.commands("prompt"), what="the prompt sent")
        assert fake.commands("prompt")[0]["message"] == f"Summarize {LINES} briefly."
        await wait_until(pilot, lambda: pilot.app.desk.current.pi.model.running, what="the run")
        # a steer with a marker, queued while pi works, then given back by Esc: as typed
        await paste(pilot, editor, LINES)
        await type_text(pilot, " also")
        assert editor.text == "[paste #1 +201 lines] also", "a new prompt's pastes count from 1 again"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake.commands("prompt")) == 2, what="the steer sent")
        steer = fake.commands("prompt")[1]
        assert (steer["message"], steer["streamingBehavior"]) == (f"{LINES} also", "steer")
        await pilot.press("escape")
        await wait_until(pilot, lambda: "abort" in fake.kinds(), what="the abort")
        await wait_until(pilot, lambda: editor.text, what="the queue given back")
        assert editor.text == "[paste #1 +201 lines] also"
        await wait_until(pilot, lambda: not pilot.app.desk.current.pi.model.running, what="the run ended")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake.commands("prompt")) == 3, what="sent again")
        assert fake.commands("prompt")[2]["message"] == f"{LINES} also"


async def test_backspace_deletes_a_marker_whole_and_small_pastes_stay_text(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        editor = pilot.app.query_one(PromptEditor)
        await paste(pilot, editor, "one\ntwo")
        assert editor.text == "one\ntwo"
        editor.load("see ")
        await paste(pilot, editor, "x" * 1001)
        assert editor.text == "see [paste #1 1001 chars]"
        await pilot.press("backspace")
        assert editor.text == "see "
        editor.load("[paste #1 1001 chars]")  # its paste is gone: plain text now
        await pilot.press("enter")
        await wait_until(pilot, lambda: fake.commands("prompt"), what="the prompt sent")
        assert fake.commands("prompt")[0]["message"] == "[paste #1 1001 chars]"


async def test_ctrl_g_edits_the_paste_in_full(tmp_path: Path) -> None:
    script = tmp_path / "edit.sh"
    script.write_text('#!/bin/sh\nfor f; do :; done\nsed -i "s/line 7 of/LINE SEVEN of/" "$f"\n')
    script.chmod(0o755)
    fake = Fake(tmp_path)
    app = fake.app({"VISUAL": "", "EDITOR": str(script)})

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:
        yield

    app.suspend = suspend  # type: ignore[method-assign]  # the headless driver cannot hand over the terminal
    async with fake.run(app) as pilot:
        editor = app.query_one(PromptEditor)
        await paste(pilot, editor, LINES)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: "LINE SEVEN" in editor.text, what="the edit")
        assert editor.text == LINES.replace("line 7 of", "LINE SEVEN of").removesuffix("\n")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_bracketed_paste_of_200_lines_in_tmux(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    with TmuxPideck(fake) as term:
        term.wait_started()
        buffer = tmp_path / "paste.txt"
        buffer.write_text(LINES)
        term._tmux("load-buffer", str(buffer))
        term._tmux("paste-buffer", "-p", "-t", "t")  # as a terminal pastes: bracketed
        term.wait(lambda: "[paste #1 +201 lines]" in term.screen(), "the marker")
        assert "line 5 of the log" not in term.screen()
        term.keys("Enter")
        term.wait(lambda: fake.commands("prompt"), "the prompt sent")
        assert fake.commands("prompt")[0]["message"] == LINES
