"""The colours and erase sequences pideck sends follow the terminal, in a real one (tmux):
a Linux console gets its 16 colours even where COLORTERM says 24-bit, a VT100, a dumb
terminal and NO_COLOR no colour at all, and a VT100 no ECH (a VT220's). Read from what
pideck wrote while it drew a reply with markdown and a tool's coloured output, in pi's dark
theme."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck, derive_stream, own_agent_dir

from widgets.engine import ON as ENGINE_ON

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_ECH = re.compile(r"\x1b\[\d*X")


def colors(output: str) -> set[str]:
    """Every colour an SGR sequence in `output` sets: `38;2`/`48;2` (24-bit), `38;5`/`48;5`
    (256), or the 16's own codes."""
    found: set[str] = set()
    for match in _SGR.finditer(output):
        codes = match.group(1).replace(":", ";").split(";")
        index = 0
        while index < len(codes):
            code = codes[index]
            if code in ("38", "48", "58"):
                kind = codes[index + 1] if index + 1 < len(codes) else ""
                found.add(f"{code};{kind}")
                index += 5 if kind == "2" else 3
                continue
            if code.isdigit() and (30 <= int(code) <= 37 or 40 <= int(code) <= 47 or 90 <= int(code) <= 107):
                found.add("16")
            index += 1
    return found


def drawn(tmp_path: Path, env: dict[str, str]) -> str:
    stream = derive_stream(tmp_path / "tools.jsonl", "thinking_tools.jsonl",
                           {"line 2\n": "\x1b[31mline\x1b[39m 2\n"})  # a command's own colour
    output = tmp_path / "terminal.out"
    fake = Fake(tmp_path, stream=stream)
    agent = own_agent_dir(fake.dir)
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "settings.json").write_text(json.dumps({"theme": "dark"}))  # colours of its own, not the terminal's 16
    # (through env: tmux gives its panes a TERM of its own)
    with TmuxPideck(fake, wrapper=("env", *(f"{key}={value}" for key, value in env.items()))) as term:
        term.pipe_output(output)
        term.wait_started()
        term.send("What is in this project? Use bash and read.")
        term.wait(lambda: "bash printed three lines" in term.screen(), "the reply")
        term.keys("C-o")  # the tool's output in full
        term.wait(lambda: "line 3" in term.screen(), "the tool's output")
        term._tmux("resize-window", "-t", "t", "-x", "110")  # everything drawn again
        term.wait(lambda: output.stat().st_size > 0 and "line 3" in term.screen(), "the frame after the resize")
    return output.read_bytes().decode("utf-8", "replace")


def test_an_ordinary_terminal_gets_24_bit_colours(tmp_path: Path) -> None:
    assert "38;2" in colors(drawn(tmp_path, {"TERM": "xterm-256color", "COLORTERM": "truecolor"}))


def test_the_linux_console_gets_its_16_colours(tmp_path: Path) -> None:
    found = colors(drawn(tmp_path, {"TERM": "linux", "COLORTERM": "truecolor"}))
    assert found == {"16"}, found


@pytest.mark.parametrize("env", [{"TERM": "vt100"}, {"TERM": "dumb"}, {"TERM": "xterm-256color", "NO_COLOR": "1"}],
                         ids=["vt100", "dumb", "NO_COLOR"])
def test_a_terminal_without_colours_gets_none(tmp_path: Path, env: dict[str, str]) -> None:
    output = drawn(tmp_path, env)
    assert not colors(output), colors(output)
    assert "\x1b[1m" in output or ";1m" in output or "\x1b[1;" in output, "bold is still sent"
    if env["TERM"] == "xterm-256color":
        assert _ECH.search(output) or not ENGINE_ON, "blanks in the default colours erased (ECH)"
    else:
        assert not _ECH.search(output), f"ECH sent to {env['TERM']}"


def test_without_colours_a_list_s_cursor_is_underlined(tmp_path: Path) -> None:
    """Its cursor row is told apart by its colours alone elsewhere (Textual's reverse swaps them)."""
    with TmuxPideck(Fake(tmp_path), wrapper=("env", "NO_COLOR=1")) as term:
        term.wait_started()
        term.keys("-l", "/s")
        term.wait(lambda: "/session" in term.screen(), "the completion list")
        rows = term._tmux("capture-pane", "-p", "-e", "-t", "t").stdout.splitlines()
        listed = [row for row in rows if re.search(r"/(steering-mode|scoped-models|share|session)\b", row)]
        underlined = [row for row in listed if re.search(r"\x1b\[[0-9;]*\b4[;m]", row.split("/", 1)[0] + "/")]
        assert len(listed) >= 2 and len(underlined) == 1, listed
