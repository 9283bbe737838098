"""The engine draws exactly what Textual would: each scenario runs twice in tmux, in the same
folder, with the engine on and with PIDECK_ENGINE=off (Textual's own compositor, timer, display and parser),
every byte pideck wrote is recorded, and both recordings are read into an emulator of their
own (pyte). The screens they leave must be the same cell for cell, colours and attributes
included, but for the clock and the durations pideck measures itself (masked in both)."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyte
import pytest
from tests.load import load
from tests.pi_harness import Fake, TmuxPideck, own_agent_dir

pytestmark = [pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("script") is None,
                                 reason="tmux or script is not installed"), pytest.mark.engine]

WIDTH, HEIGHT = 120, 36
SETTLED = 1.0  # seconds without a byte written (on an idle machine, `load` times that on a busy one): the screen is drawn
# what differs between two runs by nature: the clock, and how long a tool or a run took
_MEASURED = re.compile(r"\d\d:\d\d(:\d\d)?|\d+(\.\d+)?\s?(ms|s)\b|\d+m\d+s")


@dataclass(frozen=True)
class Scenario:
    stream: str
    steps: Callable[[TmuxPideck], None]
    rate: str | None = None  # the fake's pace: N records every MS milliseconds
    theme: str | None = None


def _ask(term: TmuxPideck, until: str) -> None:
    term.send("Tell me about this project.")
    term.wait(lambda: until in term.screen(), repr(until), timeout=60)


def flood(term: TmuxPideck) -> None:
    _ask(term, "t2999")


def paced(term: TmuxPideck) -> None:
    _ask(term, "Emoji survive")


def tools(term: TmuxPideck) -> None:
    _ask(term, "bash printed three lines")
    term.keys("C-o")
    term.wait(lambda: "line 3" in term.screen(), "the tool's output in full")


def scrolls(term: TmuxPideck) -> None:
    _ask(term, "t2999")
    for key in ("PageUp", "PageUp", "PageUp", "PageDown", "C-Home", "PageDown"):
        before = term.screen()
        term.keys(key)
        term.wait(lambda: term.screen() != before, f"{key} drawn")  # (before the next key: a user's pace)


def _under_way(term: TmuxPideck) -> None:
    """The reply's first words on the screen: the first frame of it may come once `t1` has
    scrolled away (a loaded machine's frames are few), so any of its words."""
    term.send("Tell me about this project.")
    term.wait(lambda: _WORD.search(term.screen()), "the reply under way", timeout=60)


_WORD = re.compile(r"\bt\d+\b")  # a word of long_3000.jsonl's reply


def resize_while_streaming(term: TmuxPideck) -> None:
    _under_way(term)
    term._tmux("resize-window", "-t", "t", "-x", "100", "-y", "30")
    term.wait(lambda: "t2999" in term.screen(), "the end of the reply", timeout=60)
    term._tmux("resize-window", "-t", "t", "-x", str(WIDTH), "-y", str(HEIGHT))


def palette_over_a_stream(term: TmuxPideck) -> None:
    _under_way(term)
    term.keys("F1")
    term.wait(lambda: "Search for commands" in term.screen(), "the palette")
    term.keys("-l", "model")
    term.wait(lambda: "ready" in _status(term), "the end of the reply", timeout=60)
    term.keys("Escape")  # (its cursor blinks: the screen it leaves is compared)
    term.wait(lambda: "Search for commands" not in term.screen(), "the palette closed")


def _status(term: TmuxPideck) -> str:
    return term.screen().splitlines()[-2] if term.screen().strip() else ""


def session_switch(term: TmuxPideck) -> None:
    _ask(term, "Emoji survive")
    term.send("/open")
    term.wait(lambda: "Session 2 opened" in term.screen() and "Type a prompt" in term.screen(), "a second session")
    term.keys("C-PPage")  # (Alt+1 on Textual's own parser is a character: macOS's Option+1, "¡")
    term.wait(lambda: "Emoji survive" in term.screen(), "the first session again")
    _gone(term, "Session 2 opened", "its toast")


def _gone(term: TmuxPideck, text: str, what: str, seconds: float = 2.0) -> None:
    """Wait until `text` has not been on the screen for `seconds` (a toast drawn again on the
    screen a switch shows is not gone)."""
    seen = time.monotonic()

    def gone() -> bool:
        nonlocal seen
        if text in term.screen():
            seen = time.monotonic()
        return time.monotonic() - seen >= seconds

    term.wait(gone, f"{what} gone for {seconds} s", timeout=30)


SCENARIOS = {
    "flood": Scenario("long_3000.jsonl", flood),
    "paced reply": Scenario("markdown.jsonl", paced, rate="3/15"),
    "tool output": Scenario("thinking_tools.jsonl", tools),
    "scrolls": Scenario("long_3000.jsonl", scrolls),
    "resize while streaming": Scenario("long_3000.jsonl", resize_while_streaming, rate="40/10"),
    "palette over a stream": Scenario("long_3000.jsonl", palette_over_a_stream, rate="40/10"),
    "session switch": Scenario("markdown.jsonl", session_switch),
    "dark theme": Scenario("thinking_tools.jsonl", tools, theme="dark"),
}


def recorded(folder: Path, scenario: Scenario, engine: str) -> bytes:
    """Every byte pideck wrote through the scenario, with the engine `engine`."""
    folder.mkdir()
    fake = Fake(folder, *(("--rate", scenario.rate) if scenario.rate else ()), stream=scenario.stream)
    if scenario.theme:
        agent = own_agent_dir(fake.dir)
        agent.mkdir(parents=True, exist_ok=True)
        (agent / "settings.json").write_text(json.dumps({"theme": scenario.theme}))
    record = folder / "typescript"
    with TmuxPideck(fake, wrapper=("env", f"PIDECK_ENGINE={engine}"), record=record) as term:
        term.wait_started()
        scenario.steps(term)
        last = (-1, time.monotonic())

        def settled() -> bool:
            nonlocal last
            size = record.stat().st_size if record.exists() else 0
            if size != last[0]:
                last = (size, time.monotonic())
            return time.monotonic() - last[1] >= SETTLED * load()

        term.wait(settled, f"{SETTLED} s without output", timeout=60)
    data = record.read_bytes()
    return data[data.index(b"\n") + 1:].split(b"\nScript done", 1)[0]  # (script's own first and last lines)


def screen_of(data: bytes) -> pyte.Screen:
    screen = pyte.Screen(WIDTH, HEIGHT)
    pyte.ByteStream(screen).feed(data)
    return screen


def cells(screen: pyte.Screen) -> list[list[tuple[str, ...]]]:
    return [[(c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse, c.strikethrough)
             for c in (screen.buffer[y][x] for x in range(screen.columns))] for y in range(screen.lines)]


def masked(rows: list[list[tuple[str, ...]]], texts: list[str]) -> list[list[tuple[str, ...]]]:
    """`rows` with the cells of what is measured (in any of `texts`' rows) blanked."""
    out = [list(row) for row in rows]
    for text in texts:
        for y, line in enumerate(text.splitlines()[:len(out)]):
            for match in _MEASURED.finditer(line):
                for x in range(match.start(), min(match.end(), len(out[y]))):
                    out[y][x] = ("#",)
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_engine_leaves_the_screen_textual_would(tmp_path: Path, name: str) -> None:
    scenario = SCENARIOS[name]
    on = recorded(tmp_path / "run", scenario, "on")
    shutil.rmtree(tmp_path / "run")  # (the same folder, shown the same way)
    off = recorded(tmp_path / "run", scenario, "off")
    engine, textual = screen_of(on), screen_of(off)
    texts = ["\n".join(engine.display), "\n".join(textual.display)]
    ours, theirs = masked(cells(engine), texts), masked(cells(textual), texts)
    differ = [(y, x) for y in range(HEIGHT) for x in range(WIDTH) if ours[y][x] != theirs[y][x]]
    if differ:
        y, x = differ[0]
        pytest.fail(f"{len(differ)} cells differ, first at row {y} column {x}: {ours[y][x]} where Textual's "
                    f"has {theirs[y][x]}\nengine on:\n{texts[0]}\nengine off:\n{texts[1]}")
    assert any(line.strip() for line in engine.display), "something was drawn"
