"""A theme with a background of its own paints every cell of the screen with it, in a real
terminal: nothing lets the terminal's own background show through as a stripe (a command's
`ESC[49m`, a role the theme leaves to the terminal). Read from tmux row by row, each cell's
background as the terminal has it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck, derive_stream, own_agent_dir

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def backgrounds(row: str) -> list[str]:
    """Each cell's background in one row tmux captured with its escapes (`-e`): "default"
    where the terminal's own shows."""
    cells: list[str] = []
    background, at = "default", 0
    for match in [*_SGR.finditer(row), None]:
        end = match.start() if match is not None else len(row)
        cells += [background] * len(row[at:end])
        if match is None:
            break
        codes = match.group(1).replace(":", ";").split(";")
        index = 0
        while index < len(codes):
            code = codes[index]
            if code in ("", "0", "49"):
                background = "default"
            elif code in ("38", "48"):
                width = 5 if codes[index + 1 : index + 2] == ["2"] else 3
                if code == "48":
                    background = ";".join(codes[index : index + width])
                index += width - 1
            elif code.isdigit() and (40 <= int(code) <= 47 or 100 <= int(code) <= 107):
                background = code
            index += 1
        at = match.end()
    return cells


def test_the_dark_theme_paints_every_cell(tmp_path: Path) -> None:
    stream = derive_stream(tmp_path / "tools.jsonl", "thinking_tools.jsonl",
                           {"line 2\n": "\x1b[44mline\x1b[49m 2\n"})  # a command that ends its colour with 49
    fake = Fake(tmp_path, stream=stream)
    agent = own_agent_dir(fake.dir)
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text(json.dumps({"theme": "dark"}))
    with TmuxPideck(fake) as term:
        term.wait_started()
        term.send("What is in this project? Use bash and read.")
        term.wait(lambda: "bash printed three lines" in term.screen(), "the reply")
        term.keys("C-o")  # the tool's output in full
        term.wait(lambda: "line 3" in term.screen(), "the tool's output")
        rows = [term._tmux("capture-pane", "-p", "-e", "-N", "-t", "t", "-S", str(r), "-E", str(r)).stdout.rstrip("\n")
                for r in range(36)]
        plain = term.screen().splitlines()
    painted = {(r, c): bg for r, row in enumerate(rows) for c, bg in enumerate(backgrounds(row))}
    holes = sorted(at for at, bg in painted.items() if bg == "default")
    assert not holes, f"{len(holes)} cells show the terminal's background, first at (row, column) {holes[:5]}"
    r = next(r for r, line in enumerate(plain) if "line 2" in line)
    c = plain[r].index("line 2")
    assert painted[(r, c + 4)] == painted[(r, c - 1)], "after ESC[49m, the tool block's own background"


@pytest.mark.parametrize("quiet", [False, True], ids=["welcome", "quiet start-up"])
@pytest.mark.parametrize("sent", [False, True], ids=["at start", "after a short reply"])
def test_the_dark_theme_paints_the_rows_above_the_first_message(tmp_path: Path, sent: bool, quiet: bool) -> None:
    """A short transcript sits at the bottom of its pane: the blank rows above it were left
    in the terminal's background (stripes above the first message)."""
    fake = Fake(tmp_path, stream="markdown.jsonl")
    agent = own_agent_dir(fake.dir)
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text(json.dumps({"theme": "dark", "quietStartup": quiet}))
    with TmuxPideck(fake) as term:
        term.wait_started()
        if sent:
            term.send("Hi.")
            term.wait(lambda: "ready" in term.screen().splitlines()[-2] and fake.commands("prompt"), "the reply")
        rows = [term._tmux("capture-pane", "-p", "-e", "-N", "-t", "t", "-S", str(r), "-E", str(r)).stdout.rstrip("\n")
                for r in range(36)]
    painted = {(r, c): bg for r, row in enumerate(rows) for c, bg in enumerate(backgrounds(row))}
    holes = sorted(at for at, bg in painted.items() if bg == "default")
    assert not holes, f"{len(holes)} cells show the terminal's background, first at (row, column) {holes[:5]}"
