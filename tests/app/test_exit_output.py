"""What quitting leaves in the terminal, as pi's fullscreen mode does: the conversation as
text (nothing from the model read as markup or passed through as control sequences),
then the command that resumes the session; pi's `fullscreenExitOutput: "resume-hint"`
keeps only the command."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import shutil
from pathlib import Path

import pytest
from tests.fake_pi import SESSION_ID
from tests.pi_harness import ROOT, Fake, TmuxPideck

from app.cli.pideck import parse_args
from app.cli.exit_output import print_exit_output, print_other_sessions
from app.cli.resume_commands import pideck_program, resume_command, shell_join
from protocol.wire.messages import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from protocol.wire.events import BashExecutionUpdate
from protocol.wire.responses import BashResult, SessionState
from protocol.state.session_model import SessionModel


def session(tmp_path: Path) -> tuple[SessionModel, Path]:
    model = SessionModel()
    model.load_messages([
        UserMessage(content="Is [bold]this[/bold] literal?"),
        AssistantMessage(content=[TextContent(text="## Plan\nRun **make**.\x1b]52;c;aGk=\x07"),
                                  ToolCall(id="c1", name="bash", arguments={"command": "make all"})], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="bash",
                          content=[TextContent(text="\n".join(f"line {n}" for n in range(10)))]),
        BashExecutionMessage(command="git status", output="clean\n", exit_code=1),
        AssistantMessage(content=[TextContent(text="Partial")], stop_reason="error", error_message="overloaded"),
    ])
    file = tmp_path / "session.jsonl"
    file.write_text("{}\n")
    model.state = SessionState(session_file=str(file), session_id=SESSION_ID)
    return model, file


def printed(model: SessionModel, argv: list[str], cwd: Path) -> str:
    out = io.StringIO()
    config = Fake(cwd).config({"PI_CODING_AGENT_DIR": str(cwd / "agent")})
    print_exit_output(model, parse_args(argv), config, out)
    return out.getvalue()


def test_the_conversation_then_how_to_resume_it(tmp_path: Path) -> None:
    model, _ = session(tmp_path)
    text = printed(model, ["--cwd", str(tmp_path), "--", "--provider", "x", "-c", "--session", "old", "--session-dir", "d"], tmp_path)
    assert "\x1b" not in text and "aGk=" not in text, "no control sequence reaches the terminal"
    lines = [line.rstrip() for line in text.splitlines()]
    assert "❯ you" in lines and "  Is [bold]this[/bold] literal?" in lines, "the text as typed, not markup"
    assert "  Plan" in lines and "  Run make." in lines, "markdown rendered"
    assert "  ✓ $ make all  exit 0" in lines and "  … 7 more lines" in lines and "  line 9" in lines, "a call as the transcript titles it"
    assert not any("line 6" in line for line in lines), "a tool's output ends in its last lines"
    assert "$ git status" in lines and "  exit code 1" in lines
    assert "  ✗ error: overloaded" in lines
    assert lines[-2:] == ["To resume this session:",
                          f"pideck --cwd {tmp_path} -- --provider x --session-dir d --session {SESSION_ID}"], \
        "pi's flags that chose a session give way to --session"


def test_resume_hint_only_and_no_hint_for_a_session_not_saved(tmp_path: Path) -> None:
    model, file = session(tmp_path)
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"fullscreenExitOutput": "resume-hint"}))
    assert printed(model, ["--demo"], tmp_path).splitlines() == [
        "To resume this session:", f"pideck --demo -- --session {SESSION_ID}"]
    file.unlink()  # the demo's sessions go with its scratch directory, and --no-session saves none
    assert printed(model, [], tmp_path) == ""
    assert resume_command(parse_args(["--", "--fork=abc"]), None) is None


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_quitting_in_a_real_terminal_leaves_the_conversation_and_the_resume_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As after `make demo`, the pideck run is not on PATH: the command names its path."""
    monkeypatch.setenv("PATH", os.pathsep.join(folder for folder in os.environ["PATH"].split(os.pathsep)
                                                if not (Path(folder) / "pideck").exists()))
    file = tmp_path / "saved.jsonl"
    file.write_text("{}\n")
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "What is JSONL?"}], "timestamp": 1795952825000},
        {"role": "assistant", "content": [{"type": "text", "text": "One **JSON** value per line."}], "stopReason": "stop",
         "api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "timestamp": 1795952826000},
    ]))
    fake = Fake(tmp_path, "--messages", str(messages), "--session-file", str(file))
    with TmuxPideck(fake, typed=True) as term:
        term.wait_started()
        term.wait(lambda: "One JSON value per line." in term.screen(), "the session shown")
        term.keys("C-c")
        time.sleep(0.3)
        term.keys("C-c")
        term.wait(lambda: "To resume this session:" in term.screen(), "the resume hint after pideck quit")
        screen = term._tmux("capture-pane", "-p", "-J", "-t", "t").stdout  # lines the terminal wrapped, joined
        assert re.search(r"❯ you\s+What is JSONL\?\s+● pi\s+One JSON value per line\.", screen)
        pideck = re.escape(str(ROOT / ".venv" / "bin" / "pideck"))
        assert re.search(rf"\n{pideck} --pi .+ -- --session {SESSION_ID}\n", screen), "on a line of its own"


def test_the_resume_command_names_the_pideck_the_user_can_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_folder = tmp_path / "my bin"
    bin_folder.mkdir()
    script = bin_folder / "pideck"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(sys, "argv", [str(script), "--demo"])
    model, _ = session(tmp_path)
    assert resume_command(parse_args(["--demo"]), model.state) == f"'{script}' --demo -- --session {SESSION_ID}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["my bin/pideck"])  # `make demo` runs .venv/bin/pideck so
    assert pideck_program() == str(script)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "app" / "__main__.py")])  # python -m app: a page of pideck serve
    monkeypatch.setattr(sys, "executable", str(bin_folder / "python"))
    assert pideck_program() == str(script)
    monkeypatch.setenv("PATH", f"/usr/bin:{bin_folder}")
    assert pideck_program() == "pideck", "the pideck on PATH"
    monkeypatch.setattr(sys, "argv", ["pytest"])
    assert pideck_program() == "pideck", "not run as a script: its name"


def test_a_command_run_with_bang_prints_its_output_once(tmp_path: Path) -> None:
    """A `!command` run in this session holds its output twice (the streamed block and the
    message pi answered with): quitting prints it once, its last lines like a tool call's."""
    model, _ = session(tmp_path)
    for request, command, output in (("b1", "echo one-line", "one-line\n"),
                                     ("b2", "seq 1 30", "".join(f"{n}\n" for n in range(1, 31)))):
        model.begin_bash(request, command)
        model.apply(BashExecutionUpdate(id=request, delta=output))
        model.end_bash(request, BashResult(output=output, exit_code=0))
    lines = [line.strip() for line in printed(model, [], tmp_path).splitlines()]
    assert lines.count("one-line") == 1
    at = lines.index("$ seq 1 30")
    assert lines[at + 1 : at + 5] == ["… 27 more lines", "28", "29", "30"]
    assert sum(line in {str(n) for n in range(1, 31)} for line in lines) == 3


HOSTILE = "\x1b]52;c;aGk=\x07\x1b]0;title\x07\x1b[2J\x1bP1$qm\x1b\\\x1bc\x9b2J\x90dcs\x9c\u202e\r\x08"


class Terminal(io.StringIO):
    """Output Rich takes for a terminal: it styles it, and writes hyperlinks."""

    def isatty(self) -> bool:
        return True


def test_nothing_printed_at_exit_acts_on_the_terminal_and_the_command_rebuilds_the_folder(tmp_path: Path) -> None:
    """The conversation, the resume command and the other sessions' names, with control
    sequences in every place they can come from: only Rich's own styles and links reach the
    terminal, and the command, pasted into bash, opens the folder of the hostile name."""
    folder = tmp_path / f"d{HOSTILE}"
    folder.mkdir()
    model = SessionModel()
    model.load_messages([
        UserMessage(content=f"user {HOSTILE}"),
        AssistantMessage(content=[TextContent(text=f"text {HOSTILE} [link](http://x/{HOSTILE}) `{HOSTILE}`\n```\n{HOSTILE}\n```"),
                                  ToolCall(id="c1", name="bash", arguments={"command": f"make {HOSTILE}"}),
                                  ToolCall(id="c2", name="edit", arguments={"path": f"/p/{HOSTILE}", "oldText": HOSTILE}),
                                  ToolCall(id="c3", name=f"tool{HOSTILE}", arguments={"x": HOSTILE})], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[TextContent(text=f"out {HOSTILE}")]),
        BashExecutionMessage(command=f"cmd {HOSTILE}", output=f"o {HOSTILE}", exit_code=1),
        AssistantMessage(content=[TextContent(text="P")], stop_reason="error", error_message=f"err {HOSTILE}"),
    ])
    file = tmp_path / "session.jsonl"
    file.write_text("{}\n")
    model.state = SessionState(session_file=str(file), session_id=SESSION_ID, session_name=f"name {HOSTILE}")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"terminal": {"hyperlinks": True}}))
    out = Terminal()
    config = Fake(tmp_path).config({"PI_CODING_AGENT_DIR": str(tmp_path / "agent")})
    print_exit_output(model, parse_args(["--cwd", str(folder), "--", "--model", f"m{HOSTILE}"]), config, out)
    print_other_sessions([(f"two {HOSTILE}", shell_join(["pideck", "--cwd", str(folder)])), (f"three{HOSTILE}", None)], out)
    text = out.getvalue()
    assert "\x1b[1;35m● pi" in text, "styled: Rich took it for a terminal"
    rest = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;[^\x00-\x1f\x7f-\x9f]*\x1b\\", "", text)  # Rich's styles and links
    assert all(line.isprintable() for line in rest.split("\n")), [line for line in rest.split("\n") if not line.isprintable()]
    assert "\u202e" not in rest and "aGk=" not in rest.split("To resume this session:")[0], "the conversation is cleaned"
    lines = rest.splitlines()
    command = lines[lines.index("To resume this session:") + 1]
    others = lines[lines.index("The other sessions:") + 1 :]
    assert others[0].startswith("two ␛]52;c;aGk=␇␛]0;title␇␛[2J") and others[1].startswith("three␛]52"), others
    words = command.split(" -- ")[0]  # pideck --cwd FOLDER, as the user pastes it into bash
    shown = subprocess.run(["bash", "-c", f"set -- {words}; printf '%s' \"$3\""], capture_output=True, timeout=10)
    assert shown.stdout == str(folder).encode(), (command, shown)
    pi_args = subprocess.run(["bash", "-c", f"set -- {command.split(' -- ', 1)[1]}; printf '%s' \"$2\""],
                             capture_output=True, timeout=10)
    assert pi_args.stdout == f"m{HOSTILE}".encode()
