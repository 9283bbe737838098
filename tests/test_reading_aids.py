"""What tells a reader how much there is: the run's turn count, the preview of long output
lines, the note on collapsed thinking."""

from __future__ import annotations

from protocol.events import AgentEnd, AgentSettled, AgentStart, TurnStart
from protocol.session_model import SessionModel
from widgets.tool_output import PREVIEW_LINE_CHARS, output_preview


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
