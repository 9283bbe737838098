"""PideckApp driven by Pilot against the fake pi child (tests/fake_pi.py); no real pi."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from rich.text import Text
from textual.widgets import Static
from tests.pi_harness import (
    SIZE,
    Fake,
    TmuxPideck,
    derive_stream,
    press_alone,
    question,
    quiesce,
    ready,
    start_run,
    transcript_text,
    type_text,
    ui,
    wait_until,
)

from widgets.engine.keys import install_alt_keys
from widgets.transcript.message_views import MessageView, ToolCallBlock
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatusLine, ToolLog
from widgets.transcript.transcript import Transcript

# --- sending -----------------------------------------------------------------------------------


async def test_esc_clears_queue_then_aborts_and_restores_texts(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake)
        await wait_until(pilot, lambda: app.desk.current.pi.model.steering and app.desk.current.pi.model.follow_up, what="queue")
        await pilot.press("escape")
        await wait_until(pilot, lambda: "abort" in fake.kinds(), what="abort")
        kinds = fake.kinds()
        assert kinds.index("clear_queue") < kinds.index("abort")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running, what="run to end")
        text = app.query_one(PromptEditor).text
        assert "Actually, be brief." in text and "Then summarize." in text
        await wait_until(pilot, lambda: "aborted" in transcript_text(app).lower(), what="aborted mark")


async def test_a_message_has_a_footer_widget_only_once_there_is_something_to_say(tmp_path: Path) -> None:
    """Most messages end with nothing to say: no footer is mounted for them (a widget fewer
    each to mount and lay out). An aborted reply gets one at its end, after its blocks."""
    fake = Fake(tmp_path, "--stop-after", "10", "--queue-on-prompt", stream="steer_abort.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake)
        await wait_until(pilot, lambda: app.desk.current.pi.model.steering, what="queue")
        views = list(app.query(MessageView))
        assert views and not any(view.query(".message-footer") for view in views)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "aborted" in transcript_text(app).lower(),
                         what="aborted mark")
        ended = [view for view in app.query(MessageView) if view.query(".message-footer")]
        assert len(ended) == 1 and ended[0].item.role == "assistant"
        footer = ended[0].children[-1]
        assert footer.has_class("message-footer") and "aborted" in str(footer.render()).lower()
        assert all(not view.query(".message-footer") for view in app.query(MessageView) if view is not ended[0])


async def test_enter_idle_sends_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "hello there")
        await pilot.press("enter")
        prompts = await wait_until(pilot, lambda: fake.commands("prompt"), what="prompt")
        assert prompts[0]["message"] == "hello there"
        assert "streamingBehavior" not in prompts[0]
        assert app.query_one(PromptEditor).text == ""


async def test_enter_running_steers_and_alt_enter_follows_up(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake)
        await type_text(pilot, "steer this")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake.commands("prompt")) == 2, what="steer prompt")
        assert fake.commands("prompt")[1] == {
            "id": fake.commands("prompt")[1]["id"], "type": "prompt", "message": "steer this",
            "streamingBehavior": "steer",
        }
        await type_text(pilot, "later please")
        await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(fake.commands("prompt")) == 3, what="follow-up prompt")
        assert fake.commands("prompt")[2]["message"] == "later please"
        assert fake.commands("prompt")[2]["streamingBehavior"] == "followUp"
        await wait_until(pilot, lambda: app.desk.current.pi.model.follow_up == ["later please"], what="queue pane")
        assert app.desk.current.pi.model.steering == ["steer this"]
        assert "abort" not in fake.kinds()


async def test_start_up_says_starting_and_sends_early_prompts_once_pi_is_ready(tmp_path: Path) -> None:
    """Messages sent while pi starts wait, and go in order once it is ready: an Enter
    pressed before was lost (the text stayed in the prompt)."""
    fake = Fake(tmp_path, "--hold-state")  # pi does not answer get_state until released
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: "get_state" in fake.kinds(), what="pideck asked for pi's state")
        await wait_until(pilot, lambda: "starting pi… " in (shown := str(status.render())) and "starting pi… 0s" not in shown,
                         what="seconds counted")  # 1s, or more when the machine held this process back for a while
        assert "ready" not in str(status.render())
        await type_text(pilot, "hello early")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("goes to pi once" in str(n.message) for n in app._notifications),
                         what="a note that it waits for pi")
        await type_text(pilot, "and then")
        await pilot.press("enter")
        await type_text(pilot, "a draft")
        assert app.query_one(PromptEditor).text == "a draft" and not fake.commands("prompt")
        fake.inject("#fake:release-state")
        prompts = await wait_until(pilot, lambda: len(fake.commands("prompt")) == 2 and fake.commands("prompt"),
                                   what="both messages, sent now")
        assert [(p["message"], p.get("streamingBehavior")) for p in prompts] == [("hello early", None), ("and then", "steer")]
        assert app.query_one(PromptEditor).text == "a draft"
        await quiesce(pilot)


async def test_a_message_waiting_for_a_pi_that_could_not_start_comes_back_to_the_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--hold-state")
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "get_state" in fake.kinds(), what="pideck asked for pi's state")
        await type_text(pilot, "hello early")
        await pilot.press("enter")
        await type_text(pilot, "a draft")
        assert app.desk.current.main.waiting_texts == ["hello early"]
        fake.inject("#fake:close-stdout")
        await wait_until(pilot, lambda: app.desk.current.pi.model.life.startup_error is not None, what="pi could not start")
        await wait_until(pilot, lambda: app.desk.current.main.editor.text == "hello early\n\na draft", what="the message given back")
        assert not app.desk.current.main.waiting_texts


async def test_ctrl_c_quits_while_pi_is_starting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.pideck_app.QUIT_WINDOW", 60.0)  # the presses are twice, however long a loaded machine takes between them
    fake = Fake(tmp_path, "--hold-state")
    app = fake.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "get_state" in fake.kinds(), what="pideck asked for pi's state")
        await pilot.press("ctrl+c", "ctrl+c")
        await wait_until(pilot, lambda: app._exit, what="quit")
    assert app.return_code == 0 and not app.desk.current.pi.ready


async def test_ctrl_j_newline_and_history(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        editor = app.query_one(PromptEditor)
        await pilot.press("a", "ctrl+j", "b")
        assert editor.text == "a\nb"
        assert not fake.commands("prompt")
        editor.load("")
        for text in ("first", "second"):
            await type_text(pilot, text)
            await pilot.press("enter")
            await wait_until(pilot, lambda t=text: any(p["message"] == t for p in fake.commands("prompt")))
            await wait_until(pilot, lambda: not app.desk.current.pi.model.running)
        await type_text(pilot, "draft")
        await pilot.press("up")
        assert editor.text == "second"
        await pilot.press("up")
        assert editor.text == "first"
        await pilot.press("down")
        assert editor.text == "second"
        await pilot.press("down")
        assert editor.text == "draft"


async def test_ctrl_c_clears_then_quits_and_ctrl_d(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    exits: list[Any] = []
    async with fake.run() as pilot:
        app = pilot.app
        app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
        editor = app.query_one(PromptEditor)
        await type_text(pilot, "some text")
        await pilot.press("ctrl+d")
        assert not exits and editor.text == "some text"
        await pilot.press("ctrl+c")
        assert editor.text == "" and not exits
        await pilot.press("ctrl+c")
        assert not exits  # the first ctrl+c on an empty editor only warns
        await pilot.press("ctrl+c")
        assert len(exits) == 1
        await pilot.press("ctrl+d")
        assert len(exits) == 2


async def test_ctrl_c_that_clears_text_is_not_the_first_of_two_that_quit(tmp_path: Path) -> None:
    async with Fake(tmp_path).run() as pilot:
        app = pilot.app
        exits: list[Any] = []
        app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
        editor = app.query_one(PromptEditor)
        await pilot.press("ctrl+c")  # warns; then text comes back (Esc gives the queue back), and is cleared
        editor.load("steer")
        await pilot.press("ctrl+c")
        assert editor.text == ""
        await pilot.press("ctrl+c")
        assert not exits, "the press that cleared the editor counted as the first of two"
        await pilot.press("ctrl+c")
        assert len(exits) == 1


async def test_bash_and_bash_excluded(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "!ls")
        await pilot.press("enter")
        first = await wait_until(pilot, lambda: fake.commands("bash"), what="bash")
        assert first[0]["command"] == "ls" and not first[0].get("excludeFromContext")
        await type_text(pilot, "!!ls -la")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake.commands("bash")) == 2, what="second bash")
        second = fake.commands("bash")[1]
        assert second["command"] == "ls -la" and second["excludeFromContext"] is True
        await wait_until(pilot, lambda: "fake output of ls -la" in transcript_text(app), what="bash output")
        assert not fake.commands("prompt")


async def test_a_bang_commands_output_keeps_its_colours(tmp_path: Path) -> None:
    """As the bash tool's: SGR colours become styles, every other control is removed."""
    fake = Fake(tmp_path, "--bash-output", "\x1b[31mred\x1b[0m plain\x1b]52;c;aGk=\x07\n")
    async with fake.run() as pilot:
        app = pilot.app
        await type_text(pilot, "!git status")
        await pilot.press("enter")
        view = await wait_until(pilot, lambda: app.query(".role-bashExecution .plain").first(Static)
                                if app.query(".role-bashExecution .plain") else None, what="the output")
        await wait_until(pilot, lambda: "red plain" in str(view.content), what="the whole output")
        text = view.content
        assert isinstance(text, Text) and text.plain.rstrip("\n") == "red plain"
        red = [span for span in text.spans if isinstance(span.style, Style) and span.style.color is not None]
        assert [(text.plain[span.start : span.end], span.style.color.number) for span in red] == [("red", 1)]


# --- toggles, panes, extension UI ---------------------------------------------------------------


async def test_toggles_and_side_panes(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream="thinking_tools.jsonl")
    async with fake.run() as pilot:
        app = pilot.app
        await start_run(pilot, fake, "list files", running=False)
        await wait_until(pilot, lambda: len(app.query(ToolCallBlock)) == 2 and not app.desk.current.pi.model.running)
        transcript = app.query_one(Transcript)
        await pilot.press("ctrl+t")
        assert transcript.has_class("-thinking-collapsed")
        await pilot.press("ctrl+t")
        assert not transcript.has_class("-thinking-collapsed")
        await pilot.press("ctrl+o")
        assert all(block.expanded for block in app.query(ToolCallBlock))
        await pilot.press("ctrl+o")
        assert not any(block.expanded for block in app.query(ToolCallBlock))
        side = app.query_one("#side")
        assert side.display
        await pilot.press("f2")
        assert not side.display
        await pilot.press("f2")
        assert side.display
        assert app.query_one(ToolLog).option_count == 2


async def test_side_panes_make_room_when_the_terminal_narrows_unless_f2_chose(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=(120, 30)) as pilot:
        app = pilot.app
        side = app.query_one("#side")
        assert side.display
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not side.display, what="the panes to hide at 80 columns")
        assert app.query_one(Transcript).size.width > 70, "the conversation keeps the width"
        await pilot.resize_terminal(120, 30)
        await wait_until(pilot, lambda: side.display, what="the panes back at 120 columns")
        await pilot.press("f2")  # the user hides them: a wider terminal does not bring them back
        assert not side.display
        await pilot.resize_terminal(140, 30)
        await pilot.pause(0.1)
        assert not side.display
        await pilot.press("f2")
        await pilot.resize_terminal(80, 24)  # shown by choice, even when narrow
        await pilot.pause(0.1)
        assert side.display


async def test_notify_status_widgets_and_editor_text(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(
            ui("notify", message="hello [bold]toast[/]", notifyType="warning"),
            ui("setStatus", statusKey="ext", statusText="status from ext"),
            ui("setWidget", widgetKey="w1", widgetLines=["above line 1", "above line 2"], widgetPlacement="aboveEditor"),
            ui("setWidget", widgetKey="w2", widgetLines=["below line"], widgetPlacement="belowEditor"),
            ui("set_editor_text", text="prefilled by ext"),
        )
        await wait_until(pilot, lambda: app.query_one(PromptEditor).text == "prefilled by ext", what="editor text")
        await wait_until(pilot, lambda: any("toast" in str(n.message) for n in app._notifications), what="toast")
        toast = next(n for n in app._notifications if "toast" in str(n.message))
        assert toast.message == "hello [bold]toast[/]" and toast.severity == "warning"
        assert "status from ext" in str(app.query_one(StatusLine).render())
        above = " ".join(str(w.render()) for w in app.query("#widgets-above Static"))
        below = " ".join(str(w.render()) for w in app.query("#widgets-below Static"))
        assert "above line 1" in above and "above line 2" in above
        assert "below line" in below and "above" not in below


async def test_dialog_answer_and_two_pending_dialogs(tmp_path: Path) -> None:
    from widgets.screens.dialogs import ConfirmDialog, InputDialog, SelectDialog
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(ui("select", "sel-1", title="Pick one", options=["Allow", "Block"]))
        await question(pilot, SelectDialog)
        await pilot.press("down")
        await press_alone(pilot, "enter")
        answers = await wait_until(pilot, lambda: fake.commands("extension_ui_response"), what="response")
        assert answers == [{"type": "extension_ui_response", "id": "sel-1", "value": "Block"}]
        fake.inject(
            ui("confirm", "conf-2", title="Really?", message="Sure?"),
            ui("input", "inp-3", title="Your name", placeholder="type"),
        )
        await question(pilot, ConfirmDialog)
        await pilot.press("y")
        await question(pilot, InputDialog)
        await pilot.press("A", "d", "a")
        await press_alone(pilot, "enter")
        await wait_until(pilot, lambda: len(fake.commands("extension_ui_response")) == 3, what="three responses")
        answers = fake.commands("extension_ui_response")
        assert answers[1] == {"type": "extension_ui_response", "id": "conf-2", "confirmed": True}
        assert answers[2] == {"type": "extension_ui_response", "id": "inp-3", "value": "Ada"}
        assert not isinstance(app.screen, (SelectDialog, ConfirmDialog, InputDialog))


async def test_markup_and_escape_sequences_render_literally(tmp_path: Path) -> None:
    markup = "[bold]x[/] [link=http://e]y[/] [@click=app.quit]z[/] "
    nasty = "\x1b[31mRED\x1b[0m \x1b]52;c;aGVsbG8=\x07clip \x1b]0;evil title\x07done\n"
    stream = derive_stream(
        tmp_path / "nasty.jsonl", "thinking_tools.jsonl",
        replace={"The project ": markup, "line 1\nline 2\nline 3\n": nasty},
    )
    fake = Fake(tmp_path, stream=stream)
    exits: list[Any] = []
    async with fake.run() as pilot:
        app = pilot.app
        original_exit = app.exit
        app.exit = lambda *a, **k: exits.append(a)  # type: ignore[method-assign]
        await start_run(pilot, fake, "go", running=False)
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "done" in transcript_text(app), what="run")
        text = transcript_text(app)
        assert "[bold]x[/]" in text and "[link=http://e]y[/]" in text and "[@click=app.quit]z[/]" in text
        assert "RED clip done" in text
        assert "\x1b" not in text and "aGVsbG8" not in text and "evil title" not in text
        tool_log = app.query_one(ToolLog)  # (refreshed after the transcript, in the same step)
        await wait_until(pilot, lambda: tool_log.option_count >= 2, what="the tool log's rows")
        rows = [str(tool_log.get_option_at_index(i).prompt) for i in range(2)]
        assert all("\x1b" not in row for row in rows)
        # clicking around the rendered text must not run the [@click] action
        await pilot.click(Transcript)
        await pilot.pause()
        assert not exits and app.is_running
        app.exit = original_exit  # type: ignore[method-assign]


async def test_non_json_line_warns_and_app_survives(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject("this is not json {", ui("setStatus", statusKey="after", statusText="still alive"))
        await wait_until(pilot, lambda: "still alive" in str(app.query_one(StatusLine).render()), what="later record")
        await wait_until(pilot, lambda: any("could not read" in str(n.message) for n in app._notifications),
                         what="warning toast")
        assert "unreadable" in str(app.query_one(StatusLine).render())
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: fake.commands("prompt"), what="prompt after garbage")


# --- Alt+Enter as ESC CR --------------------------------------------------------------------------


def test_xterm_parser_reads_esc_cr_as_alt_enter() -> None:
    from textual import events
    from textual._xterm_parser import XTermParser

    install_alt_keys()
    parser = XTermParser()
    produced = [*parser.feed("\x1b\r"), *parser.feed("")]
    keys = [event.key for event in produced if isinstance(event, events.Key)]
    assert keys == ["alt+enter"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_real_terminal_alt_enter_queues_follow_up(tmp_path: Path) -> None:
    """With the engine on and off: Textual's own key table read ESC CR as Enter, a steer
    (widgets/engine/alt_keys.py)."""
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    with TmuxPideck(fake) as term:
        term.wait_started()
        term._tmux("resize-window", "-t", "t", "-x", "90")  # (the side panes hide below 100 columns)
        term.send("start the run")
        term.wait(lambda: fake.commands("prompt"), "prompt")
        term.wait(lambda: "working" in term.screen(), "run to show")
        term.keys("-l", "queued later")
        term.wait(lambda: "queued later" in term.screen(), "the text typed")
        term.keys("-H", "1b", "0d")  # ESC CR = Alt+Enter
        term.wait(lambda: len(fake.commands("prompt")) == 2, "the follow-up")
        assert fake.commands("prompt")[1]["message"] == "queued later"
        assert fake.commands("prompt")[1]["streamingBehavior"] == "followUp"
        term.wait(lambda: "│ queued later" not in term.screen() and "Follow-up: queued later" in term.screen(),
                  "the editor emptied, the follow-up above it (the side panes are hidden at this width)")
        assert "abort" not in fake.kinds() and "clear_queue" not in fake.kinds()
