"""Named scripted replies for the tests, the benchmarks and `pideck --demo`.

`demo_responder` answers from the conversation in the request body alone: a new
user prompt gets reasoning, a short intro and tool calls that really run in pi;
tool results get a final markdown summary of what those tools returned.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.scripted_model.server import Reply, ToolCallSpec

MARKDOWN = """\
# Release notes

Some **bold** text, some *emphasis* and `inline code`.

## Changes

- faster startup
- a calmer status bar
  - nested item
1. first
2. second

```python
def greet(name: str) -> str:
    return f"hello {name}"
```

> A quote to finish.
"""

STEPS_COMMAND = "for i in 1 2 3; do echo step $i; sleep 0.3; done"


# --- replies for tests and benchmarks --------------------------------------------------------


def markdown() -> Reply:
    """Headings, lists, a code fence and a quote."""
    return Reply(text=MARKDOWN)


def thinking(text: str = "The answer is 42.") -> Reply:
    return Reply(reasoning="Let me think about this step by step. The question is simple.", text=text)


def tool_call(command: str = "echo hello") -> Reply:
    """One bash tool call."""
    return Reply(text="Running it.", tool_calls=(ToolCallSpec("bash", {"command": command}),))


def parallel_tool_calls(path: str = "README.md", command: str = "ls -la") -> Reply:
    """A bash and a read call in the same assistant message."""
    return Reply(
        text="Looking at two things at once.",
        tool_calls=(ToolCallSpec("bash", {"command": command}), ToolCallSpec("read", {"path": path})),
    )


def slow(text: str = "This answer arrives slowly, a few characters at a time.", delay: float = 0.05) -> Reply:
    return Reply(text=text, chunk_chars=4, delay=delay)


def long_stream(count: int = 3000) -> Reply:
    """`count` exact text deltas; a blank line after every 50th."""
    return Reply(deltas=tuple(f"word{i} " + ("\n\n" if i % 50 == 49 else "") for i in range(count)))


def unauthorized() -> Reply:
    return Reply(status=401, error_message="invalid API key (scripted 401)")


def overloaded() -> Reply:
    return Reply(status=529, error_message="the model is overloaded (scripted 529)")


# --- the demo responder ---------------------------------------------------------------------

_INTROS = (
    "## Looking around\n\nYou asked: *\u201c{prompt}\u201d*. Before answering I'll get my bearings:\n\n",
    "## First, some context\n\nGood question: *\u201c{prompt}\u201d*. Let me check the workspace before I answer:\n\n",
    "## On it\n\nAbout *\u201c{prompt}\u201d*: here's my plan, all running in parallel:\n\n",
)
_CLOSINGS = (
    "Ask me anything else and I'll run another round.",
    "That's all for this round. Try another prompt to see it again with different words.",
    "Done. Every tool above really ran inside pi; only the model is scripted.",
)


def demo_responder(body: dict[str, Any], scratch: Path | None = None) -> Reply:
    """The demo model: tool calls for a fresh prompt, a summary once tool results arrive.
    With `scratch` (a directory of the demo's own, never the user's), it also writes a
    file there and edits it, so the edit's diff shows."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    round_index = max(0, sum(1 for m in messages if m.get("role") == "user") - 1)
    prompt = _one_line(_last_user_text(messages))
    if messages and messages[-1].get("role") == "tool":
        return _summary(messages, prompt, round_index)
    return _plan(body, prompt, round_index, scratch)


DEMO_FILE = "greeter.py"
DEMO_CONTENT = 'def greet(name):\n    return "hello " + name\n\n\nif __name__ == "__main__":\n    print(greet("world"))\n'
DEMO_EDITS = [
    {"oldText": 'def greet(name):\n    return "hello " + name', "newText": 'def greet(name: str) -> str:\n    return f"Hello, {name}!"'},
    {"oldText": 'print(greet("world"))', "newText": 'print(greet("pideck"))'},
]


def _plan(body: dict[str, Any], prompt: str, round_index: int, scratch: Path | None = None) -> Reply:
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    cwd = _cwd(body.get("messages") or [])
    readme = _readme(cwd)
    calls: list[ToolCallSpec] = []
    steps: list[str] = []
    if "bash" in tools:
        calls.append(ToolCallSpec("bash", {"command": "ls -la"}))
        steps.append(f"- list the files in `{cwd or 'the working directory'}`")
    if "read" in tools and readme:
        calls.append(ToolCallSpec("read", {"path": readme}))
        steps.append(f"- read `{readme}`")
    if "bash" in tools:
        calls.append(ToolCallSpec("bash", {"command": STEPS_COMMAND}))
        steps.append("- run a short loop, so you can watch its output arrive")
    if scratch is not None and {"write", "edit"} <= tools:  # pi runs a file's writes and edits in order
        path = str(scratch / DEMO_FILE)
        calls.append(ToolCallSpec("write", {"path": path, "content": DEMO_CONTENT}))
        calls.append(ToolCallSpec("edit", {"path": path, "edits": DEMO_EDITS}))
        steps.append(f"- write `{DEMO_FILE}` in a scratch folder of the demo's own, then edit it, so you can see the diff")
    reasoning = (
        f"The user wrote \u201c{prompt}\u201d. I don't know this workspace yet, so I should look "
        f"before answering: {len(calls)} quick tool calls, run in parallel, then a summary."
    )
    if not calls:
        text = (
            f"## Hello\n\nYou asked: *\u201c{_escape(prompt)}\u201d*. I have no tools enabled in this session, "
            f"so this is all I can say: the scripted demo model is working.\n"
        )
        return Reply(reasoning=reasoning, text=text, chunk_chars=10, delay=0.02)
    text = _INTROS[round_index % len(_INTROS)].format(prompt=_escape(prompt)) + "\n".join(steps) + "\n"
    # ids as some OpenAI-compatible servers give them: the same ones on every turn
    calls = [replace(call, id=f"call_{index}") for index, call in enumerate(calls)]
    return Reply(reasoning=reasoning, text=text, tool_calls=tuple(calls), chunk_chars=10, delay=0.02)


def _summary(messages: list[dict[str, Any]], prompt: str, round_index: int) -> Reply:
    rows: list[str] = []
    facts: list[str] = []
    for name, args, output in _tool_results(messages):
        lines = [line for line in output.splitlines() if line.strip()]
        what = args.get("command") or args.get("path") or ""
        rows.append(f"| {name} | `{_cell(what)}` | {_size(name, output)} |")
        if name == "bash" and what == "ls -la":
            entries = [line for line in lines if not line.startswith("total")]
            facts.append(f"- **Files:** {len(entries)} entries, including `.` and `..`.")
        elif name == "read":
            first = lines[0].lstrip("# ").strip() if lines else "(empty)"
            facts.append(f"- **{_escape(what)}** starts with \u201c{_escape(_one_line(first))}\u201d.")
        elif name == "bash" and what == STEPS_COMMAND:
            facts.append(f"- **Live output:** the loop printed {', '.join(f'`{line}`' for line in lines)}.")
        elif name in ("write", "edit"):
            done = "wrote" if name == "write" else "edited"
            facts.append(f"- **{name}:** {done} `{_cell(Path(what).name)}` in the demo's scratch folder ({_escape(_one_line(output))}).")
        else:
            facts.append(f"- **{name}** returned {len(lines)} lines.")
    text = (
        f"## Summary\n\nHere is what I found while thinking about *\u201c{_escape(prompt)}\u201d*:\n\n"
        + "\n".join(facts)
        + "\n\nTo do the same from Python:\n\n```python\nfrom pathlib import Path\n\n"
        "entries = sorted(p.name for p in Path(\".\").iterdir())\n"
        "print(f\"{len(entries)} entries:\", \", \".join(entries[:5]))\n```\n\n"
        "| Tool | Call | Output |\n|------|------|--------|\n"
        + "\n".join(rows)
        + f"\n\n{_CLOSINGS[round_index % len(_CLOSINGS)]}\n"
    )
    reasoning = "All the tools have finished. I'll summarise their output in a short table."
    return Reply(reasoning=reasoning, text=text, chunk_chars=16, delay=0.02)


_SHOWING = re.compile(r"\[Showing lines (\d+)-(\d+) of (\d+)\b[^\]\n]*\]\s*$")  # pi's read, cut short


def _size(name: str, output: str) -> str:
    """How long a tool's output is, as the table says it: every line of it, and for a read
    that pi cut short, the file's length and the lines read (pi's closing notice)."""
    showing = _SHOWING.search(output) if name == "read" else None
    if showing is not None:
        first, last, total = showing.groups()
        return f"{total} lines (read {first}\u2013{last})"
    count = len(output.splitlines())
    return f"{count} line{'s' if count != 1 else ''}"


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, arguments, output text) for the tool results that end the conversation."""
    results: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.insert(0, message)
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            calls[call.get("id", "")] = (function.get("name", "tool"), _json_object(function.get("arguments")))
    found = []
    for result in results:
        name, args = calls.get(result.get("tool_call_id", ""), ("tool", {}))
        found.append((name, args, _text(result.get("content"))))
    return found


def _json_object(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"]
        return "\n".join(part.get("text", "") for part in parts)
    return ""


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _text(message.get("content"))
    return ""


def _one_line(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "\u2026"
    return line or "your message"


def _escape(text: str) -> str:
    """`text` with markdown punctuation escaped, to quote it inside markdown."""
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", text)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def _cwd(messages: list[dict[str, Any]]) -> str:
    """The working directory pi states in its system prompt."""
    for message in messages:
        if message.get("role") in ("system", "developer"):
            found = re.search(r"<cwd>\s*(.*?)\s*</cwd>", _text(message.get("content")), re.S)
            if found:
                return found.group(1)
    return ""


def _readme(cwd: str) -> str | None:
    if not cwd:
        return None
    for name in ("README.md", "README.rst", "README.txt", "README"):
        if (Path(cwd) / name).is_file():
            return name
    return None


# --- a session that changes files (the Changes view) ------------------------------------------

CHANGES_GREETER = 'def greet(name):\n    return "hello " + name\n\n\ndef main():\n    print(greet("world"))\n'


def file_changes() -> list[Reply]:
    """Replies for one prompt that make pi write and edit files in its working directory:
    write greeter.py, edit it (two replacements), write notes.txt twice, a failed edit
    (text not found), edit ./greeter.py again; then a closing answer."""
    return [
        Reply(tool_calls=(ToolCallSpec("write", {"path": "greeter.py", "content": CHANGES_GREETER}, id="call_write_greeter"),)),
        Reply(tool_calls=(ToolCallSpec("edit", {"path": "greeter.py", "edits": [
            {"oldText": 'return "hello " + name', "newText": 'return f"Hello, {name}!"'},
            {"oldText": 'print(greet("world"))', "newText": 'print(greet("pideck"))'},
        ]}, id="call_edit_greeter"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": "notes.txt", "content": "one\ntwo\nthree\n"}, id="call_write_notes"),)),
        Reply(tool_calls=(ToolCallSpec("write", {"path": "notes.txt", "content": "one\n2\nthree\nfour"}, id="call_rewrite_notes"),)),
        Reply(tool_calls=(ToolCallSpec("edit", {"path": "notes.txt", "edits": [
            {"oldText": "not in the file", "newText": "x"},
        ]}, id="call_edit_missing"),)),
        Reply(tool_calls=(ToolCallSpec("edit", {"path": "./greeter.py", "edits": [
            {"oldText": "def main():\n", "newText": "def main() -> None:\n"},
        ]}, id="call_edit_main"),)),
        Reply(text="Wrote and edited greeter.py and notes.txt."),
    ]


# --- every built-in tool once, on a scratch project (tool calls drawn by kind) ---------------

TOUR_LONG_LINES = 120  # long.py: two edits this far apart make pi's diff skip lines ("...")
TOUR_BIG_WRITE_LINES = 10_000
TOUR_ANSI = (  # colours to keep, and a clipboard write, a link, cursor moves and a bidi override to strip
    r"printf '\033[31mred\033[0m \033[1;32mbold green\033[0m \033[38;5;208morange\033[0m\n"
    r"\033]52;c;aGVsbG8=\007\033]8;;http://example.com\033\\link\033]8;;\033\\ \033[2J\033[5;5H"
    r"\342\200\256reversed\n'"
)


def write_tour_project(directory: Path) -> None:
    """The files the tour's tools work on: a long Python file and a binary one."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [f"def step_{n}(value):\n    return value + {n}\n" for n in range(TOUR_LONG_LINES // 2)]
    (directory / "long.py").write_text("".join(lines))
    (directory / "data.bin").write_bytes(bytes(range(256)) * 4)


def tool_tour(directory: str) -> list[Reply]:
    """Replies for one prompt that run each built-in tool on `directory` (a path relative to
    pi's cwd, made by `write_tour_project`): an edit with two distant changes, a failed edit,
    a short and a 10,000-line write, a read with offset and limit, a binary read, bash with
    ANSI colours and injected controls, grep, find and ls; then a closing answer."""
    path = f"{directory}/long.py"
    big = "".join(f"value_{n} = {n}  # line {n + 1}\n" for n in range(TOUR_BIG_WRITE_LINES))
    calls = [
        ToolCallSpec("edit", {"path": path, "edits": [
            {"oldText": "def step_2(value):", "newText": "def step_two(value):"},
            {"oldText": "    return value + 50\n", "newText": "    # the fiftieth step\n    return value + 50\n"},
        ]}, id="tour_edit"),
        ToolCallSpec("edit", {"path": path, "edits": [{"oldText": "no such text", "newText": "x"}]}, id="tour_edit_missing"),
        ToolCallSpec("write", {"path": f"{directory}/hello.py", "content": 'def hello():\n    print("hello")\n'}, id="tour_write"),
        ToolCallSpec("write", {"path": f"{directory}/big.py", "content": big}, id="tour_write_big", chunks=20),
        ToolCallSpec("read", {"path": path, "offset": 11, "limit": 6}, id="tour_read"),
        ToolCallSpec("read", {"path": f"{directory}/data.bin"}, id="tour_read_binary"),
        ToolCallSpec("bash", {"command": TOUR_ANSI}, id="tour_bash"),
        ToolCallSpec("grep", {"pattern": "return value \\+ 1", "path": directory}, id="tour_grep"),
        ToolCallSpec("find", {"pattern": "*.py", "path": directory}, id="tour_find"),
        ToolCallSpec("ls", {"path": directory}, id="tour_ls"),
    ]  # fmt: skip
    return [*(Reply(tool_calls=(call,)) for call in calls), Reply(text="Every tool ran once.")]
