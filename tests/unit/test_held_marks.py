"""What says on pideck's screen that a session's pi is held: the prompt's border, the
sessions row, /sessions, the welcome text; and a held pi's stop, in the window's words."""

from __future__ import annotations

from protocol.state.desk import Mark, SessionLine
from protocol.state.session_model import SessionModel, exit_reason
from protocol.wire.client import ChildExited
from widgets.screens.sessions_picker import session_row
from widgets.panes.sessions_row import row_text
from widgets.panes.status_where import where_label
from widgets.transcript.transcript import WELCOME, WELCOME_HELD


def line(held: int | None) -> SessionLine:
    return SessionLine(number=1, name="review", mark=Mark.IDLE, model="m", folder="/p", host=None, cost="—",
                       idle_for=None, current=True, held=held)


def test_the_prompts_border_says_held_and_keeps_it_when_cut() -> None:
    model = SessionModel()
    model.cwd = "/home/ada/src/a long project folder"
    assert where_label(model, branch="main", home="/home/ada", host=None, cells=200, held=3).plain == (
        "~/src/a long project folder (main) · held 3")
    assert where_label(model, branch="main", home="/home/ada", host=None, cells=12, held=3).plain == "…n) · held 3"
    assert "held" not in where_label(model, branch=None, home=None, host=None, cells=200).plain


def test_the_sessions_row_and_sessions_say_held() -> None:
    assert row_text([line(3)])[0].plain == "1 ○ review held"
    assert row_text([line(None)])[0].plain == "1 ○ review"
    assert "held 3" in session_row(line(3)).plain
    assert "held" not in session_row(line(None)).plain


def test_the_welcome_names_ctrl_backslash_where_pi_is_held() -> None:
    assert "Ctrl+\\ detaches: the window goes, the run goes on" in WELCOME_HELD
    assert "Ctrl+C twice quits" in WELCOME_HELD
    assert "Ctrl+\\" not in WELCOME  # (pi not held: there is nothing to detach)


def test_a_held_pi_stopped_by_pideck_stop_is_said_so() -> None:
    assert exit_reason(ChildExited(returncode=0, stderr_tail="", stopped_by="pideck stop")) == (
        "pi was stopped by `pideck stop`")
    assert exit_reason(ChildExited(returncode=0, stderr_tail="")) == "pi exited (code 0)"
