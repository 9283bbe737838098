"""What tells a reader how much there is: the run's turn count, the preview of long output
lines, the note on collapsed thinking."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, start_run, wait_until
from textual.app import App

from protocol.wire.events import AgentEnd, AgentSettled, AgentStart, TurnStart
from protocol.state.session_model import SessionModel
from widgets.transcript.message_views import ThinkingBlock
from widgets.tools.output import PREVIEW_LINE_CHARS, output_preview


def screen_rows(app: App[object]) -> list[str]:
    """The screen's rows as the terminal shows them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def test_turns_count_the_current_run_through_retries_and_queued_messages() -> None:
    model = SessionModel()
    for _ in range(3):  # a first prompt of three turns
        model.apply_all([AgentStart(), TurnStart(), TurnStart(), TurnStart(), AgentEnd(), AgentSettled()])
    model.apply_all([AgentStart(), TurnStart()])
    assert model.turns == 1, "a new prompt's run starts at turn 1"
    model.apply_all([AgentEnd(will_retry=True), AgentStart(), TurnStart()])
    assert model.turns == 2, "a retry (or a queued message) goes on with the same run"


def test_a_long_output_line_keeps_its_end_in_the_preview() -> None:
    words = " ".join(f"word{n}" for n in range(300))  # about 2,400 characters
    long_line = f"▌ {words} model server, its replies and the demo) |"
    output = f"short\n{long_line}\n" + "".join(f"line {n}\n" for n in range(130)) + long_line + "\n"
    for expanded in (False, True):
        shown = [line for line in output_preview(output, expanded).plain.split("\n") if "word" in line]
        assert shown, "the long line is in the preview"
        for line in shown:
            assert line.startswith("…") and line.endswith("the demo) |"), line[:20] + " … " + line[-20:]
            assert len(line) == PREVIEW_LINE_CHARS + 1
    assert "short" in output_preview(output, True).plain, "short lines stay whole"


async def test_collapsed_thinking_says_how_many_lines_it_hides(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="thinking_tools.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake, "list files", running=False)
        block = await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.query(ThinkingBlock).first())
        thought = block.text.strip().splitlines()[0][:30]
        await wait_until(pilot, lambda: any(thought in row for row in screen_rows(app)), what="the thinking shown")
        await pilot.press("ctrl+t")
        note = "thinking (1 line, Ctrl+T)"
        await wait_until(pilot, lambda: any(note in row for row in screen_rows(app)), what=f"{note!r} in {screen_rows(app)}")
        assert not any(thought in row for row in screen_rows(app)), "the thinking itself is hidden"
        assert block.region.height == 1
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: any(thought in row for row in screen_rows(app)), what="the thinking again")
        assert not any(note in row for row in screen_rows(app))
