"""pi's transcript keys, pressed in the prompt: PgUp/PgDn, Ctrl+Home/End, Ctrl+Up/Down
between the user's messages; Ctrl+Z suspends pideck to the shell (tmux)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck, burst, start_run, wait_until

from widgets.transcript.message_views import MessageView
from widgets.prompt.editor import PromptEditor
from widgets.transcript.transcript import Transcript


def user_tops(transcript: Transcript) -> list[int]:
    return [
        view.virtual_region.y
        for _, view in sorted(transcript.views.items())
        if isinstance(view, MessageView) and view.item.role == "user"
    ]


async def test_transcript_keys_work_from_the_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path)  # every prompt gets the recorded markdown answer
    async with fake.run(size=(80, 24)) as pilot:
        app = pilot.app
        transcript, editor = app.query_one(Transcript), app.query_one(PromptEditor)
        for turn in range(3):
            await start_run(pilot, fake, f"question {turn}", running=False)
            await wait_until(pilot, lambda: not app.desk.current.pi.model.running and len(user_tops(transcript)) == turn + 1,
                             what="the answer")
        await wait_until(pilot, lambda: 0 < transcript.max_scroll_y == transcript.scroll_y, what="at the end")
        tops = user_tops(transcript)
        assert tops == sorted(tops) and tops[1] < transcript.max_scroll_y, "answers longer than the screen"

        await pilot.press("pageup")
        await wait_until(pilot, lambda: transcript.scroll_y < transcript.max_scroll_y, what="a page up")
        assert editor.has_focus, "the prompt keeps the focus"
        await pilot.press("pagedown", "pagedown")
        await wait_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, what="back down")

        await pilot.press("ctrl+up")  # from the end: the last message sent that starts above
        last_above = max(y for y in tops if y < transcript.max_scroll_y)
        await wait_until(pilot, lambda: transcript.scroll_y == last_above, what="the previous prompt")
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: transcript.scroll_y == max(y for y in tops if y < last_above),
                         what="the one before")
        await pilot.press("ctrl+down")
        await wait_until(pilot, lambda: transcript.scroll_y == last_above, what="the next prompt")

        await pilot.press("ctrl+home")
        await wait_until(pilot, lambda: transcript.scroll_y == 0, what="the top")
        await pilot.press("ctrl+end")  # back to the end, following new output again
        await wait_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, what="the end")
        await start_run(pilot, fake, "and again", running=False)
        await wait_until(pilot, lambda: len(user_tops(transcript)) == 4 and not app.desk.current.pi.model.running, what="answer")
        await wait_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y > user_tops(transcript)[-1],
                         what="following the new answer")


async def test_keys_pressed_faster_than_frames_each_move_the_view(tmp_path: Path) -> None:
    """Page Up and Ctrl+Up pressed together (held down, or typed ahead over ssh) each move
    the view on from where the last one left it, from the prompt or in the transcript: none
    is lost to a scroll not yet drawn."""
    fake = Fake(tmp_path)
    async with fake.run(size=(80, 24)) as pilot:
        app = pilot.app
        transcript = app.query_one(Transcript)
        for turn in range(4):
            await start_run(pilot, fake, f"question {turn}", running=False)
            await wait_until(pilot, lambda: not app.desk.current.pi.model.running and len(user_tops(transcript)) == turn + 1,
                             what="the answer")
        await wait_until(pilot, lambda: 0 < transcript.max_scroll_y == transcript.scroll_y, what="at the end")
        end, page = transcript.max_scroll_y, transcript.scrollable_content_region.height
        assert end > 4 * page, "answers longer than four screens"

        burst(app, "pageup", "pageup", "pageup")
        await wait_until(pilot, lambda: transcript.scroll_y == end - 3 * page, what="three pages up")
        burst(app, "pagedown", "pagedown")
        await wait_until(pilot, lambda: transcript.scroll_y == end - page, what="two pages down")

        tops = [y for y in user_tops(transcript) if y < transcript.scroll_y]
        assert len(tops) >= 3
        burst(app, "ctrl+up", "ctrl+up", "ctrl+up")
        await wait_until(pilot, lambda: transcript.scroll_y == tops[-3], what="the third prompt above")

        transcript.focus()  # (Tab): the transcript's own page keys, a page each too
        await wait_until(pilot, lambda: transcript.has_focus, what="the transcript focused")
        burst(app, "pagedown", "pagedown")
        await wait_until(pilot, lambda: transcript.scroll_y == min(end, tops[-3] + 2 * page), what="two pages down, focused")


async def test_a_new_prompt_follows_its_answer_and_new_output_below_is_marked(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--rate", "1/150")  # an answer streams for about five seconds
    async with fake.run(size=(80, 24)) as pilot:
        app = pilot.app
        transcript = app.query_one(Transcript)
        marker = transcript.new_output
        at_end = lambda: transcript.scroll_y == transcript.max_scroll_y > 0  # noqa: E731
        await start_run(pilot, fake, "question 0", running=False)
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and at_end(), timeout=60, what="the first answer")

        await pilot.press("pageup")  # reading the answer when the next prompt is sent
        await wait_until(pilot, lambda: not transcript.following, what="scrolled up")
        assert not marker.display, "nothing new below yet"
        await start_run(pilot, fake, "question 1")
        await wait_until(pilot, lambda: len(user_tops(transcript)) == 2 and at_end(), what="the new prompt at the end")
        await wait_until(pilot, lambda: at_end() and transcript.max_scroll_y > user_tops(transcript)[-1],
                         what="its answer followed")

        await pilot.press("pageup")  # scrolled up while the answer streams: more is below
        await wait_until(pilot, lambda: marker.display and marker.region, what="the new output marker")
        assert "↓ new output" in str(marker.render())
        assert transcript.region.contains_region(marker.region) and marker.region.bottom == transcript.region.bottom
        scroll_y = transcript.scroll_y
        assert app.desk.current.pi.model.running and transcript.scroll_y == scroll_y, "the reader is left where they are"
        await pilot.click(marker)
        await wait_until(pilot, lambda: at_end() and not marker.display, what="the end, by the marker")
        await pilot.press("pageup")
        await wait_until(pilot, lambda: marker.display, what="the marker again")
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: at_end() and not marker.display, what="the end, by ctrl+end")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, timeout=60, what="the answer done")
        assert at_end() and not marker.display


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_ctrl_z_suspends_to_the_shell_and_fg_brings_pideck_back(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    with TmuxPideck(fake, typed=True) as term:
        term.wait_started()
        term.keys("C-z")
        term.wait(lambda: "Stopped" in term.screen(), "the shell to report pideck stopped")
        assert "ready" not in term.screen(), "pideck gave the screen back"
        assert "abort" not in fake.kinds()
        term.keys("-l", "fg")
        term.keys("Enter")
        term.wait(lambda: "ready" in term.screen() and "Stopped" not in term.screen(), "pideck back")
        term.send("after the pause")
        term.wait(lambda: [c["message"] for c in fake.commands("prompt")] == ["after the pause"], "a prompt")
