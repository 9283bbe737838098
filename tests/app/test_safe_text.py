"""widgets.text.safe: terminal control sequences stripped, markup kept literal."""

from __future__ import annotations

import html
import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, derive_stream, notes, send, start_run, transcript_text, ui, wait_until
from rich.console import Console
from tests.screen_app import ScreenApp
from textual.app import App

from protocol.files.session_files import SessionSummary
from widgets.screens.dialogs import EditorDialog, SelectDialog
from widgets.prompt.editor import PromptEditor
from widgets.text.safe import clean, safe
from widgets.screens.session_picker import SessionPicker


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\x1b[31mred\x1b[0mb", "aredb"),  # CSI SGR
        ("a\x1b[2J\x1b[1;1Hb", "ab"),  # CSI clear screen, cursor move
        ("a\x1b[?1049hb", "ab"),  # CSI private mode (alternate screen)
        ("a\x9b31mb", "ab"),  # 8-bit CSI
        ("a\x1b]52;c;aGVsbG8=\x07b", "ab"),  # OSC 52 clipboard, BEL-terminated
        ("a\x1b]0;pwned\x1b\\b", "ab"),  # OSC 0 title, ST-terminated
        ("a\x1b]2;pwned\x07b", "ab"),  # OSC 2 title
        ("a\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 hyperlink
        ("a\x9d0;pwned\x9cb", "ab"),  # 8-bit OSC and ST
        ("a\x1bP1$r0m\x1b\\b", "ab"),  # DCS
        ("a\x1bXsos\x1b\\b", "ab"),  # SOS
        ("a\x1b^pm\x1b\\b", "ab"),  # PM
        ("a\x1b_apc\x1b\\b", "ab"),  # APC
        ("a\x90dcs\x9cb", "ab"),  # 8-bit DCS
        ("a\x1b7\x1b8\x1bcb", "ab"),  # single-char ESC sequences
        ("a\x1b(Bb", "ab"),  # charset designation (ESC with intermediate)
        ("ab\x1b", "ab"),  # lone trailing ESC
        ("a\x85\x8e\x9fb", "ab"),  # C1 controls
        ("a\x00\x01\x07\x0b\x0c\x1a\x7fb", "ab"),  # C0 controls and DEL
        ("a\x08\x08b", "ab"),  # backspace
        ("one\r\ntwo", "one\ntwo"),  # CRLF is a newline
        ("50%\r100%", "50%100%"),  # lone CR dropped
        ("a\u2028b\u2029c", "a\nb\nc"),  # line/paragraph separators become newlines
        ("user\u202egnp.exe", "usergnp.exe"),  # right-to-left override: shows as "userexe.png"
        ("a\u202a\u202b\u202c\u202db", "ab"),  # embeddings, left-to-right override, pop
        ("a\u2066\u2067\u2068\u2069b", "ab"),  # isolates
        ("a\u200e\u200f\u061cb", "ab"),  # LRM, RLM, ALM
    ],
)
def test_clean_strips_control_sequences(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_unterminated_string_sequence_loses_only_its_introducer() -> None:
    assert clean("\x1b]0;title then more text") == "0;title then more text"


def test_normal_text_is_untouched() -> None:
    text = "tabs\tand\nlines, émoji 🎉👩‍💻, CJK 漢字かな한글, RTL שלום, math ∑∫ [bold]x[/]"
    assert clean(text) == text


def test_safe_keeps_markup_literal() -> None:
    text = safe("[bold]x[/] [@click=app.quit]y[/]", style="italic")
    assert text.plain == "[bold]x[/] [@click=app.quit]y[/]"
    assert text.spans == []
    assert str(text.style) == "italic"


def test_safe_renders_brackets_and_no_escape_codes() -> None:
    console = Console(width=40, force_terminal=True, color_system="truecolor")
    with console.capture() as capture:
        console.print(safe("[bold]x[/] \x1b]0;pwned\x07\x1b[31mred"))
    output = capture.get()
    assert "[bold]x[/] red" in output
    assert "pwned" not in output
    assert "\x1b[1m" not in output  # no bold was applied


def test_large_input_is_cleaned_quickly() -> None:
    chunk = "line 漢字 🎉 \x1b[31mred\x1b[0m \x1b]52;c;aGVsbG8=\x07 end\r\n"
    text = chunk * (5_000_000 // len(chunk))
    started = time.perf_counter()
    result = clean(text)
    elapsed = time.perf_counter() - started
    assert result == "line 漢字 🎉 red  end\n" * (5_000_000 // len(chunk))
    assert elapsed < 5


# --- every way foreign text reaches the screen ----------------------------------------------------

RLO = "\u202e"  # shows what follows right to left: "gnp.exe" reads "exe.png"
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def screen_text(app: App[Any]) -> str:
    """The characters the app's current screen shows (a screenshot's text, tags left out)."""
    return html.unescape(re.sub(r"<[^>]*>", "", app.export_screenshot().split("<g class", 1)[-1])).replace("\xa0", " ")


def bidi_on_screen(app: App[Any]) -> list[str]:
    """The bidi controls on the app's current screen, each with what is around it."""
    text = screen_text(app)
    return [text[max(0, m.start() - 30) : m.end() + 30] for m in BIDI.finditer(text)]


async def test_model_tool_and_extension_text_shows_no_bidi_control(tmp_path: Path) -> None:
    stream = derive_stream(
        tmp_path / "bidi.jsonl", "thinking_tools.jsonl",
        replace={"The project ": f"The {RLO}gnp.exe project ", "line 2": f"line {RLO}2", "The user wants": f"{RLO}The user"},
    )  # fmt: skip
    fake = Fake(tmp_path, stream=stream)
    async with fake.run() as pilot:
        app = pilot.app
        fake.inject(
            ui("notify", message=f"toast {RLO}gnp.exe", notifyType="warning"),
            ui("setStatus", statusKey="ext", statusText=f"status {RLO}gnp.exe"),
            ui("setWidget", widgetKey="w1", widgetLines=[f"widget {RLO}gnp.exe"], widgetPlacement="aboveEditor"),
            ui("setTitle", title=f"title {RLO}gnp.exe"),
            ui("set_editor_text", text=f"editor {RLO}gnp.exe"),
        )
        await wait_until(pilot, lambda: "editor" in app.query_one(PromptEditor).text, what="the extension's text")
        assert app.query_one(PromptEditor).text == "editor gnp.exe"
        app.query_one(PromptEditor).load("")
        await start_run(pilot, fake, "Go.", running=False)
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "project" in transcript_text(app), what="the answer")
        await pilot.pause()
        shown = screen_text(app)
        assert "The gnp.exe project" in shown and "status gnp.exe" in shown and "widget gnp.exe" in shown
        assert not bidi_on_screen(app)
        assert app.title == "title gnp.exe"
        assert [str(n.message) for n in app._notifications if "toast" in str(n.message)] == ["toast gnp.exe"]

        fake.inject(ui("select", "s1", title=f"Pick {RLO}gnp.exe", options=[f"one {RLO}gnp.exe", "two"]))
        await wait_until(pilot, lambda: isinstance(app.screen, SelectDialog), what="the select dialog")
        await pilot.pause()
        assert "Pick" in screen_text(app) and not bidi_on_screen(app)
        await pilot.press("escape")
        fake.inject(ui("editor", "e1", title=f"Edit {RLO}gnp.exe", prefill=f"prefill {RLO}gnp.exe"))
        await wait_until(pilot, lambda: isinstance(app.screen, EditorDialog), what="the editor dialog")
        await pilot.pause()
        assert "prefill" in screen_text(app) and not bidi_on_screen(app)


async def test_the_resume_list_shows_no_bidi_control() -> None:
    summary = SessionSummary(
        path=Path("/s/a.jsonl"), id="id-a", cwd=f"/home/{RLO}ada", modified=datetime(2025, 3, 1, tzinfo=UTC),
        size=2048, name=f"name {RLO}gnp.exe", first_message=f"first {RLO}gnp.exe",
    )  # fmt: skip
    app = ScreenApp(SessionPicker(lambda everywhere: [summary], where="/s"))
    async with app.run_test(size=(100, 26)) as pilot:
        await wait_until(pilot, lambda: app.first.shown, what="the list")
        await pilot.pause()
        assert "gnp.exe" in screen_text(app) and not bidi_on_screen(app)
        await pilot.press("tab")  # every folder: the cwd is shown
        await pilot.pause()
        assert "ada" in screen_text(app) and not bidi_on_screen(app)


async def test_a_toast_quoting_pi_shows_no_terminal_control(tmp_path: Path) -> None:
    path = "/tmp/out\x1b]52;c;aGk=\x07\x1b[31m\u202e.html"  # a clipboard write, a colour, a bidi override
    fake = Fake(tmp_path, "--answer", "export_html=" + json.dumps({"path": path}))
    async with fake.run() as pilot:
        app = pilot.app
        await send(pilot, "/export")
        toast = await wait_until(pilot, lambda: [n for n in notes(app) if "Exported to" in n], what="the /export toast")
        assert toast == ["Exported to /tmp/out.html"]
