"""Several pi sessions in one pideck, over two fake pi children: /open, the sessions row,
Alt+N and Alt+0, a session not shown folding its records without drawing them, a dialog
waiting in it, /sessions and /close."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from app.pideck_app import PideckApp
from protocol.state.desk import Mark, SessionLine
from tests.pi_harness import Fake, burst, drawn_text, notes, question, quiesce, ready, type_text, ui, wait_until
from widgets.prompt.editor import PromptEditor
from widgets.screens.dialogs import ConfirmDialog
from widgets.screens.sessions_picker import SessionsPicker
from widgets.panes.sessions_row import SessionsRow


def row(app: object) -> str:
    return str(app.screen.query_one(SessionsRow).render())  # type: ignore[attr-defined]


def toasts(app: Any) -> list[str]:
    """The titles of the toasts up."""
    return [notification.title for notification in app._notifications]


def two_fakes(tmp_path: Path, *second_args: str) -> tuple[Fake, Fake]:
    """Two fake pi children, each in a folder of its own (`one`, `two`)."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    return Fake(tmp_path / "one"), Fake(tmp_path / "two", *second_args)


async def open_second(pilot: object, second: Fake) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    await type_text(pilot, f"/open --pi {shlex.quote(shlex.join(second.argv))} {second.dir}")
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.slots[1].pi.ready and "get_commands" in second.kinds(),
                     what="the second session started")
    await wait_until(pilot, lambda: app.screen is app.desk.slots[1].main and app.screen.query_one(SessionsRow).display,
                     what="the second session shown with the sessions row")


async def test_open_switch_and_a_session_not_shown_is_drawn_only_when_shown(tmp_path: Path) -> None:
    first, second = two_fakes(tmp_path, "--rate", "1/50")
    async with first.run() as pilot:
        app = pilot.app
        assert not app.desk.current.main.query_one(SessionsRow).display, "no row while one session is open"
        await type_text(pilot, "draft for one")
        app.desk.current.main.editor.load("draft for one")
        await pilot.press("alt+2")
        assert app.desk.current is app.desk.slots[0], "Alt+2 with one session open stays"
        app.desk.current.main.editor.load("")
        await open_second(pilot, second)
        assert "1 ○ one" in row(app) and "2 ○ two" in row(app), row(app)
        await wait_until(pilot, lambda: "Session 2 opened: two" in toasts(app), what="the toast of the session opened")
        assert not [title for title in toasts(app) if "·" in title], "not titled with the session left"
        assert app.desk.slots[1].pi.cwd == (tmp_path / "two").resolve()

        await type_text(pilot, "Write a long answer slowly.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: second.commands("prompt"), what="the prompt sent to the second pi")
        await pilot.press("alt+1")
        assert app.desk.current is app.desk.slots[0] and app.screen is app.desk.slots[0].main
        app.desk.current.main.editor.load("draft for one")
        background = app.desk.slots[1]
        await wait_until(pilot, lambda: background.mark is Mark.WORKING, what="the second session working")
        await wait_until(pilot, lambda: background.pi.model.running is False and background.unread,
                         what="its run ended unseen", timeout=30)
        answer = [item for item in background.pi.model.items if getattr(item, "role", "") == "assistant"]
        assert answer, "the records were folded into its model"
        assert "Reading a JSONL stream" not in drawn_text(background.main), "nothing of it drawn while not shown"
        assert background.mark is Mark.DONE and "2 ✓ two" in row(app)
        assert not first.commands("prompt"), "the first pi got nothing"

        await pilot.press("alt+0")  # the next that needs you: the one whose run ended unseen
        await wait_until(pilot, lambda: "Reading a JSONL stream" in drawn_text(background.main),
                         what="its transcript drawn once shown")
        assert app.desk.current is background and not background.unread
        await pilot.press("alt+1")
        assert app.desk.current.main.editor.text == "draft for one", "each session keeps its draft"


async def test_a_dialog_of_a_session_not_shown_waits_for_it_and_marks_it(tmp_path: Path) -> None:
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        await pilot.press("alt+1")
        app.NOTIFICATION_TIMEOUT = 60  # (a toast that stays is not one that timed out)
        second.inject(ui("confirm", "c-1", title="Deploy now?", message="It goes live."))
        await wait_until(pilot, lambda: app.desk.slots[1].mark is Mark.NEEDS_YOU, what="the second session marked")
        assert app.screen is app.desk.slots[0].main, "the dialog is not shown over another session"
        assert "needs you" in row(app)
        await wait_until(pilot, lambda: "Needs you" in toasts(app), what="a toast says it asks")
        await pilot.press("alt+0")
        await question(pilot, ConfirmDialog)  # once its session shows
        await wait_until(pilot, lambda: "Needs you" not in toasts(app), what="the toast gone once its session shows")
        await pilot.press("y")
        answers = await wait_until(pilot, lambda: second.commands("extension_ui_response"), what="the answer")
        assert answers == [{"type": "extension_ui_response", "id": "c-1", "confirmed": True}]
        assert not first.commands("extension_ui_response"), "the answer went to the pi that asked"
        await wait_until(pilot, lambda: app.desk.slots[1].mark is not Mark.NEEDS_YOU, what="the mark gone")


async def test_sessions_lists_them_and_close_ends_one(tmp_path: Path) -> None:
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        await type_text(pilot, "/sessions")
        await pilot.press("enter")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SessionsPicker) else None,
                                  what="the sessions list")
        assert [row.value for row in picker.shown] == [1, 2]
        await pilot.press("up", "enter")
        await wait_until(pilot, lambda: app.desk.current is app.desk.slots[0] and app.screen is app.desk.slots[0].main,
                         what="session 1 shown")
        await pilot.press("alt+2")
        client = app.desk.slots[1].pi.client
        await type_text(pilot, "/close")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.desk.slots) == 1 and not client.running, what="the second pi closed")
        assert app.screen is app.desk.slots[0].main and not app.desk.current.main.query_one(SessionsRow).display
        assert app.is_running, "closing one session leaves pideck running"


async def test_open_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "/open ./nowhere")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("does not exist" in n.message for n in app.toasts.center.entries),
                         what="the refusal")
        assert len(app.desk.slots) == 1 and isinstance(app.focused, PromptEditor)


async def test_alt_enter_in_the_resume_picker_opens_the_session_beside_this_one(tmp_path: Path) -> None:
    from tests.pi_harness import copy_session
    from widgets.screens.session_picker import SessionPicker

    sessions, work = tmp_path / "sessions", tmp_path / "work"
    work.mkdir()
    saved = copy_session("plain.jsonl", sessions, work)
    fake = Fake(tmp_path, "--session-dir", str(sessions))
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "/resume")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker), what="the picker")
        await pilot.press("tab")  # every folder's sessions: this one was started in another
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SessionPicker) and
                                  app.screen.sessions else None, what="the picker with the saved session")
        assert picker.shown[0].value.path == saved
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(app.desk.slots) == 2 and app.desk.current is app.desk.slots[1], what="a second session")
        argv = app.desk.slots[1].config.argv
        assert argv[argv.index("--session") + 1] == str(saved) and app.desk.slots[1].config.cwd == work.resolve()
        assert not fake.commands("switch_session"), "the first session stays on its own"


class RowApp(App[None]):
    """The sessions row alone, with a session in each state."""

    def compose(self) -> ComposeResult:
        yield SessionsRow(id="sessions-row")

    def on_mount(self) -> None:
        names = ["api", "tests", "box:infra", "docs", "parser", "web", "notes"]
        marks = [Mark.WORKING, Mark.NEEDS_YOU, Mark.DONE, Mark.FAILED, Mark.EXITED, Mark.STARTING, Mark.IDLE]
        self.query_one(SessionsRow).show_lines([
            SessionLine(number=n + 1, name=name, mark=mark, model="m", folder="/", host=None, cost="—", idle_for=None,
                        current=n == 0)
            for n, (name, mark) in enumerate(zip(names, marks))
        ])  # fmt: skip


def test_the_sessions_row_in_each_state(snap_compare: Any) -> None:
    assert snap_compare(RowApp(), terminal_size=(110, 3))


async def test_a_long_session_not_shown_keeps_only_its_newest_messages_mounted(tmp_path: Path) -> None:
    import json

    from app.desk.desk import HIDDEN_VIEWS

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    messages = []
    for turn in range(60):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"Question {turn}"}], "timestamp": 1})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Answer {turn}"}], "timestamp": 2,
                         "api": "x", "provider": "p", "model": "m", "stopReason": "stop"})
    (tmp_path / "messages.json").write_text(json.dumps(messages))
    first, second = Fake(tmp_path / "one", "--messages", str(tmp_path / "messages.json")), Fake(tmp_path / "two")
    async with first.run() as pilot:
        app = pilot.app
        long = app.desk.slots[0].main.transcript
        await wait_until(pilot, lambda: len(long.views) == 120, what="the 120 messages mounted")
        await open_second(pilot, second)
        await wait_until(pilot, lambda: len(long.views) == HIDDEN_VIEWS and long.hidden_before == 120 - HIDDEN_VIEWS,
                         what="the session not shown trimmed to its newest messages")
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: "Answer 59" in drawn_text(app.desk.current.main), what="its newest shown again")
        assert "earlier messages not shown" in drawn_text(app.desk.current.main)


async def test_a_session_shown_again_keeps_its_footer_keys(tmp_path: Path) -> None:
    """Showing a screen again told its Footer the bindings afresh, and it mounted and styled
    every key anew (0.1 s a switch); the same bindings keep the same keys."""
    from widgets.panes.key_footer import KeyFooter

    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        footer = app.desk.slots[0].main.query_one(KeyFooter)
        await open_second(pilot, second)
        await pilot.press("alt+1")
        await pilot.pause()
        keys = list(footer.children)
        assert keys, "the footer shows keys"
        for key in ("alt+2", "alt+1", "alt+2", "alt+1"):
            await pilot.press(key)
            await pilot.pause()
        assert app.screen is app.desk.slots[0].main
        assert list(footer.children) == keys, "the same keys, not composed again"


async def test_a_theme_chosen_in_another_session_restyles_this_one_when_shown(tmp_path: Path) -> None:
    """The switch's restyle of every widget is skipped: a theme chosen while a session is not
    shown still reaches it."""
    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        one = app.desk.slots[0].main
        await open_second(pilot, second)
        before = one.styles.background
        assert app.themes.switch("light")
        await wait_until(pilot, lambda: app.desk.slots[1].main.styles.background != before, what="session 2 restyled")
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: one.styles.background == app.desk.slots[1].main.styles.background,
                         what="session 1 in the new theme once shown")


async def test_keys_in_one_burst_go_to_the_session_shown_when_each_was_pressed(tmp_path: Path) -> None:
    """`abc`, Alt+2, `def`, Alt+1, `g` in one read of the terminal: the letters after each
    Alt+N belong to the session it shows (they all went to the first prompt)."""
    from textual import events

    first, second = two_fakes(tmp_path)
    async with first.run() as pilot:
        app = pilot.app
        await open_second(pilot, second)
        await pilot.press("alt+1")
        await pilot.pause()
        for key, character in [("a", "a"), ("b", "b"), ("c", "c"), ("alt+2", None), ("d", "d"), ("e", "e"),
                               ("f", "f"), ("alt+1", None), ("g", "g")]:
            event = events.Key(key, character)  # queued together, before the app reads any
            event.set_sender(app)
            app.post_message(event)
        one, two = app.desk.slots[0].main.editor, app.desk.slots[1].main.editor
        await wait_until(pilot, lambda: len(one.text) + len(two.text) == 7, what="every letter typed")
        assert (one.text, two.text) == ("abcg", "def")
        assert app.desk.current is app.desk.slots[0]


# keys in one read of the terminal; the messages each session gets, (text, streamingBehavior)
# while its pi works (the first to an idle session is a prompt)
BURSTS = {
    "enter, switch, enter, back": ([*"one", "enter", "alt+2", *"two", "enter", "alt+1"],
                                   [("one", "steer")], [("two", "steer")]),
    "switch first": (["alt+2", *"two", "enter", "alt+1", *"one", "enter"], [("one", "steer")], [("two", "steer")]),
    "follow-ups": ([*"one", "alt+enter", "alt+2", *"two", "alt+enter", "alt+1", *"three", "enter"],
                   [("one", "followUp"), ("three", "steer")], [("two", "followUp")]),
    "back and forth": ([*"a", "enter", "alt+2", *"b", "enter", "alt+1", *"c", "alt+enter", "alt+2", *"d", "enter"],
                       [("a", "steer"), ("c", "followUp")], [("b", "steer"), ("d", "steer")]),
}


@pytest.mark.parametrize("second_busy", [False, True], ids=["second idle", "second busy"])
@pytest.mark.parametrize("name", list(BURSTS))
async def test_each_enter_of_a_burst_sends_in_the_session_shown_when_it_was_pressed(
        tmp_path: Path, name: str, second_busy: bool) -> None:
    """An Enter after Alt+N in one burst was read by the prompt it left (empty: nothing sent),
    and the text typed before it stayed in the other session's prompt."""
    keys, to_first, to_second = BURSTS[name]
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    first, second = (Fake(tmp_path / name, "--stop-after", "3") for name in ("one", "two"))  # runs stream on
    async with first.run() as pilot:
        app = pilot.app
        await type_text(pilot, "Write a long answer slowly.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.desk.current.pi.model.running, what="session 1 streaming")
        await open_second(pilot, second)
        if second_busy:
            await type_text(pilot, "Write a long answer slowly.")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.desk.current.pi.model.running, what="session 2 streaming")
        else:
            to_second = [(to_second[0][0], None), *to_second[1:]]  # a prompt, then steers and follow-ups of its run
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: app.desk.current is app.desk.slots[0] and isinstance(app.focused, PromptEditor),
                         what="session 1 shown")
        burst(app, *keys)

        def sent(fake: Fake, before: int) -> list[tuple[str, str | None]]:
            return [(c["message"], c.get("streamingBehavior")) for c in fake.commands("prompt")[before:]]

        await wait_until(pilot, lambda: len(sent(first, 1)) == len(to_first) and len(sent(second, second_busy)) == len(to_second),
                         what="every message sent")
        assert (sent(first, 1), sent(second, second_busy)) == (to_first, to_second)
        assert not app.desk.slots[0].main.editor.text and not app.desk.slots[1].main.editor.text, "no text left behind"


async def test_a_message_sent_while_pi_restarts_waits_and_goes_once_pi_is_back(tmp_path: Path) -> None:
    """Enter during a restart (pi spawned, its session not loaded yet): the message waits."""
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        app.desk.current.pi.model.restarting(True)
        await type_text(pilot, "hello during the restart")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.desk.current.main.waiting_texts == ["hello during the restart"], what="the message waiting")
        assert not fake.commands("prompt")
        app.desk.current.pi.model.restarting(False)
        app.desk.current.in_background(app.desk.current.pi.apply_changes(), "flush")  # (as the restart does, in the app)
        prompts = await wait_until(pilot, lambda: fake.commands("prompt"), what="sent once pi is back")
        assert prompts[0]["message"] == "hello during the restart" and not app.desk.current.main.waiting_texts
        await quiesce(pilot)


async def test_restored_drafts_go_back_into_each_prompt_and_are_read_at_quit(tmp_path: Path) -> None:
    """--restore's drafts: the first session's in its prompt at once, another's once it is
    shown (kept meanwhile), a large one as a marker; every prompt's draft is read at quit,
    after the screens have gone too. What --restore left out is said in a toast."""
    first, second = two_fakes(tmp_path)
    large = "\n".join(f"pasted line {n}" for n in range(40))
    app = PideckApp(first.config(), restore=[second.config()], drafts=["half a thought", large],
                    notes=["--restore leaves out gone: /x: does not exist"])
    async with app.run_test() as pilot:
        await ready(pilot, first)
        await wait_until(pilot, lambda: app.desk.slots[0].main.editor.text == "half a thought", what="the first draft back")
        assert "--restore leaves out gone: /x: does not exist" in notes(app)
        await wait_until(pilot, lambda: len(app.desk.slots) == 2, what="the second session opened")
        assert [draft for *_, draft in app.desk.sessions_at_exit()] == ["half a thought", large], "kept while not shown"
        await pilot.press("alt+2")
        editor = app.desk.slots[1].main.editor
        await wait_until(pilot, lambda: editor.text.startswith("[paste #"), what="the large draft back, as a marker")
        assert editor.expanded_text == large
        await type_text(pilot, " and more")
        await pilot.press("alt+1")
        await type_text(pilot, ", still")
    assert [draft for *_, draft in app.desk.sessions_at_exit()] == ["half a thought, still", large + " and more"]
