"""A question whose answer writes or deletes takes it only from a key pressed on purpose
(widgets/screens/on_purpose.py): text typed while or just before it opened answered it (a
prompt typed on into the "changed since pi left it" question, a path such as
`…/barp_3yl3sw/…`, wrote over the user's edit with its `y`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.test_sessions import open_second, two_fakes
from tests.pi_harness import SIZE, Fake, burst, ready, wait_until
from tests.snapshot_plugin import settle
from textual import events
from textual.widgets._toast import Toast

from protocol.state.reverts import Plan
from widgets.engine.key_events import key_clock
from widgets.screens.on_purpose import BURST
from widgets.screens.revert_dialog import RevertDialog, RewindConfirm


def conflict(tmp_path: Path) -> Plan:
    return Plan(str(tmp_path / "notes.md"), "notes.md", "the whole file", b"the user's\n", b"before\n",
                conflict=(b"before\n", b"pi's\n", b"the user's\n"))


async def ask(pilot: Any, dialog: RevertDialog) -> list[bool | None]:
    answers: list[bool | None] = []
    pilot.app.push_screen(dialog, answers.append)
    await wait_until(pilot, lambda: pilot.app.screen is dialog, what="the question")
    return answers


def ignored(dialog: RevertDialog) -> str:
    """The line that says a key was ignored ("" while it is hidden, or not composed yet)."""
    lines = dialog.query("#revert-ignored")
    return str(lines.first().render()) if lines and lines.first().display else ""


async def test_text_typed_on_as_the_question_opens_answers_nothing(tmp_path: Path) -> None:
    async with Fake(tmp_path).run() as pilot:
        dialog = RevertDialog(conflict(tmp_path))
        answers = await ask(pilot, dialog)
        burst(pilot.app, *"/tmp/barp_3yl3sw/x")  # typed on into it, in the question's first frames
        await wait_until(pilot, lambda: "y was ignored" in ignored(dialog), what="the y ignored, and said")
        await pilot.pause()
        assert pilot.app.screen is dialog and answers == []
        await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("y")  # on its own, 0.3 s after it was drawn: it writes
        await wait_until(pilot, lambda: answers == [True], what="the answer")


async def test_a_y_in_a_burst_answers_nothing_however_late(tmp_path: Path) -> None:
    async with Fake(tmp_path).run() as pilot:
        dialog = RewindConfirm(conflict(tmp_path), title="Rewind to before “x”")
        answers = await ask(pilot, dialog)
        await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
        burst(pilot.app, *"3yl")  # keys faster than a person types: text, not an answer
        await wait_until(pilot, lambda: "y was ignored" in ignored(dialog), what="the y ignored")
        burst(pilot.app, "x", "enter")  # an Enter right after a key
        await wait_until(pilot, lambda: "Enter was ignored" in ignored(dialog), what="the Enter ignored")
        await pilot.pause()
        assert pilot.app.screen is dialog and answers == []
        await pilot.press("enter")  # on its own
        await wait_until(pilot, lambda: answers == [True], what="the answer")


async def test_a_toast_waits_until_the_question_is_closed(tmp_path: Path) -> None:
    """Toasts were drawn over the question's columns ("as pi left it", "now")."""
    fake = Fake(tmp_path)
    async with fake.app().run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, fake)
        app = pilot.app
        dialog = RevertDialog(conflict(tmp_path))
        answers = await ask(pilot, dialog)
        app.notify("pi says something while the question is open", markup=False)
        await pilot.pause()
        assert not [toast for toast in dialog.query(Toast) if toast.display and toast.region], "a toast over the question"
        await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("n")
        await wait_until(pilot, lambda: answers == [False], what="the answer")
        await wait_until(pilot, lambda: any("while the question is open" in str(toast._notification.message)
                                            for toast in app.screen.query(Toast)), what="the toast, after")


def test_no_toast_covers_the_question(snap_compare: Any, tmp_path: Path) -> None:
    fake = Fake(tmp_path)

    async def steps(pilot: Any) -> None:
        pilot.app.push_screen(RevertDialog(Plan("/p/notes.md", "notes.md", "the whole file", b"the user's\n",
                                                b"before\n", conflict=(b"before\n", b"pi's\n", b"the user's\n"))))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, RevertDialog), what="the question")
        pilot.app.notify("A toast that came while the question was open", title="Note", markup=False)
        await settle(pilot)

    assert fake.snap(snap_compare, steps)


async def test_a_key_typed_on_as_the_session_of_the_question_is_shown_again_writes_nothing(tmp_path: Path) -> None:
    """The question up a while in session 2; session 1 shown, then session 2 again, and a `y`
    pressed right after Alt+2 (not in one burst with it): it counts from when the question is
    shown again, so the y is ignored."""
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        dialog = RevertDialog(conflict(tmp_path))
        answers = await ask(pilot, dialog)
        await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: app.screen is app.desk.slots[0].main, what="session 1 shown")
        pressed = key_clock()
        for key, character, at in (("alt+2", None, pressed), ("y", "y", pressed + 2 * BURST)):
            event = events.Key(key, character)  # (the y 2 BURST after Alt+2: not one burst with it, and
            event.time = at  # well within SETTLE of the question drawn again, however loaded the machine)
            event.set_sender(app)
            app.post_message(event)
        await wait_until(pilot, lambda: "y was ignored" in ignored(dialog), what="the y ignored, and said")
        await pilot.pause()
        assert app.screen is dialog and answers == []
        await wait_until(pilot, dialog.on_purpose.takes_keys, what="the question taking keys")
        await pilot.press("y")
        await wait_until(pilot, lambda: answers == [True], what="the answer")
