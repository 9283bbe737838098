"""The scripted replies as a client sees them on the wire, and the demo responder's choices."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from typing import Any

import pytest

from app.scripted_model import scenarios
from app.scripted_model.server import Reply, ScriptedModel

TOOLS = [{"type": "function", "function": {"name": name}} for name in ("read", "bash", "edit", "write")]


@pytest.fixture(scope="module")
def model():
    with ScriptedModel() as server:
        yield server


def post(model: ScriptedModel, reply: Reply) -> tuple[int, list[Any]]:
    """Queue `reply`, request a completion, return the status and the decoded SSE data items."""
    model.queue(reply)
    connection = http.client.HTTPConnection("127.0.0.1", model.port, timeout=10)
    body = json.dumps({"model": "scripted-demo", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    raw = response.read().decode()
    connection.close()
    if response.status != 200:
        return response.status, [json.loads(raw)]
    items = [line[len("data: ") :] for line in raw.split("\n\n") if line.startswith("data: ")]
    return 200, [item if item == "[DONE]" else json.loads(item) for item in items]


def deltas(items: list[Any], key: str) -> list[str]:
    """The `key` deltas after the opening role chunk."""
    return [c["choices"][0]["delta"][key] for c in items[1:-1] if c["choices"] and key in c["choices"][0]["delta"]]


def tool_calls(items: list[Any]) -> dict[int, dict[str, str]]:
    """Tool-call pieces reassembled by index, as an OpenAI client does."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in items[:-1]:
        for piece in chunk["choices"][0]["delta"].get("tool_calls", []) if chunk["choices"] else []:
            call = calls.setdefault(piece["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] = piece.get("id") or call["id"]
            call["name"] = piece.get("function", {}).get("name") or call["name"]
            call["arguments"] += piece.get("function", {}).get("arguments", "")
    return calls


def test_markdown_streams_its_text_then_stop_usage_and_done(model):
    status, items = post(model, scenarios.markdown())
    assert status == 200
    assert "".join(deltas(items, "content")) == scenarios.MARKDOWN
    assert "```python" in scenarios.MARKDOWN and "\n## " in scenarios.MARKDOWN and "\n- " in scenarios.MARKDOWN
    assert items[-1] == "[DONE]"
    assert items[-3]["choices"][0]["finish_reason"] == "stop"
    assert items[-2]["choices"] == [] and items[-2]["usage"]["total_tokens"] > 0


def test_thinking_streams_reasoning_before_text(model):
    status, items = post(model, scenarios.thinking("The answer is 42."))
    assert status == 200
    assert "".join(deltas(items, "reasoning_content")).startswith("Let me think")
    assert "".join(deltas(items, "content")) == "The answer is 42."
    keys = [k for c in items[1:-2] for k in c["choices"][0]["delta"]]
    assert keys.index("content") > keys.index("reasoning_content")


def test_tool_call_pieces_reassemble_into_json_arguments(model):
    status, items = post(model, scenarios.tool_call("echo hello"))
    calls = tool_calls(items)
    assert status == 200 and list(calls) == [0]
    assert calls[0]["name"] == "bash" and calls[0]["id"]
    assert json.loads(calls[0]["arguments"]) == {"command": "echo hello"}
    assert sum(1 for c in items[:-1] if c["choices"] and "tool_calls" in c["choices"][0]["delta"]) > 1
    assert items[-3]["choices"][0]["finish_reason"] == "tool_calls"


def test_parallel_tool_calls_have_distinct_ids(model):
    _, items = post(model, scenarios.parallel_tool_calls("README.md", "ls -la"))
    calls = tool_calls(items)
    assert [calls[i]["name"] for i in sorted(calls)] == ["bash", "read"]
    assert json.loads(calls[1]["arguments"]) == {"path": "README.md"}
    assert calls[0]["id"] != calls[1]["id"]


def test_long_stream_sends_exact_deltas(model):
    reply = scenarios.long_stream(3000)
    _, items = post(model, reply)
    assert deltas(items, "content") == list(reply.deltas or ())
    assert len(reply.deltas or ()) == 3000 and reply.deltas[49].endswith("\n\n")


def test_slow_reply_is_spread_over_time(model):
    started = time.monotonic()
    _, items = post(model, scenarios.slow("abcdefgh", delay=0.05))
    assert "".join(deltas(items, "content")) == "abcdefgh"
    assert time.monotonic() - started >= 0.05 * 4


@pytest.mark.parametrize(
    ("reply", "status", "words"), [(scenarios.unauthorized(), 401, "API key"), (scenarios.overloaded(), 529, "overloaded")]
)
def test_http_errors(model, reply, status, words):
    got, [body] = post(model, reply)
    assert got == status
    assert words in body["error"]["message"]


# --- the demo responder ---------------------------------------------------------------------


def fresh_prompt(cwd: Path, text: str = "hello") -> dict[str, Any]:
    return {
        "tools": TOOLS,
        "messages": [
            {"role": "system", "content": f"You are pi.\n<cwd>\n{cwd}\n</cwd>"},
            {"role": "user", "content": [{"type": "text", "text": text}]},
        ],
    }


def test_demo_plans_tool_calls_for_a_fresh_prompt(tmp_path):
    (tmp_path / "README.md").write_text("# Sample project\n")
    reply = scenarios.demo_responder(fresh_prompt(tmp_path, "what is *here*?"))
    assert reply.reasoning and "what is *here*?" in reply.reasoning
    assert "what is \\*here\\*?" in reply.text
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("bash", {"command": "ls -la"}),
        ("read", {"path": "README.md"}),
        ("bash", {"command": scenarios.STEPS_COMMAND}),
    ]


def test_demo_writes_and_edits_a_file_in_its_scratch_folder_only(tmp_path):
    scratch = tmp_path / "demo-scratch"
    reply = scenarios.demo_responder(fresh_prompt(tmp_path), scratch=scratch)
    calls = [(c.name, c.arguments.get("path")) for c in reply.tool_calls if c.name in ("write", "edit")]
    assert calls == [("write", str(scratch / "greeter.py")), ("edit", str(scratch / "greeter.py"))]
    content = reply.tool_calls[-2].arguments["content"]
    for edit in reply.tool_calls[-1].arguments["edits"]:
        assert content.count(edit["oldText"]) == 1
        content = content.replace(edit["oldText"], edit["newText"])
    assert 'return f"Hello, {name}!"' in content
    body = fresh_prompt(tmp_path)
    body["tools"] = [tool for tool in TOOLS if tool["function"]["name"] != "edit"]
    assert not any(c.name == "write" for c in scenarios.demo_responder(body, scratch=scratch).tool_calls)


def test_demo_skips_the_read_without_a_readme_and_tools_that_are_off(tmp_path):
    assert [c.name for c in scenarios.demo_responder(fresh_prompt(tmp_path)).tool_calls] == ["bash", "bash"]
    body = fresh_prompt(tmp_path)
    body["tools"] = []
    reply = scenarios.demo_responder(body)
    assert reply.tool_calls == () and "hello" in reply.text


def test_demo_summarises_tool_results(tmp_path):
    body = fresh_prompt(tmp_path, "hello")
    body["messages"] += [
        {
            "role": "assistant",
            "content": "intro",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls -la"}'}},
                {"id": "b", "type": "function", "function": {"name": "read", "arguments": '{"path": "README.md"}'}},
                {"id": "c", "type": "function",
                 "function": {"name": "bash", "arguments": json.dumps({"command": scenarios.STEPS_COMMAND})}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "total 8\n.\n..\nREADME.md\n"},
        {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "# Sample project\nmore"}]},
        {"role": "tool", "tool_call_id": "c", "content": "step 1\nstep 2\nstep 3\n"},
    ]
    reply = scenarios.demo_responder(body)
    assert reply.tool_calls == ()
    assert reply.text.startswith("## Summary") and "\u201chello\u201d" in reply.text
    assert "3 entries" in reply.text and "Sample project" in reply.text and "`step 3`" in reply.text
    assert "```python" in reply.text and "| read | `README.md` | 2 lines |" in reply.text


def test_demo_varies_its_words_between_rounds(tmp_path):
    first = scenarios.demo_responder(fresh_prompt(tmp_path))
    body = fresh_prompt(tmp_path)
    body["messages"] += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "again"}]
    second = scenarios.demo_responder(body)
    assert "again" in second.text
    assert first.text.splitlines()[0] != second.text.splitlines()[0]


def test_the_demo_summary_counts_the_readme_it_read(tmp_path):
    """A README longer than pi reads at once: the table gives the file's length and the
    lines read, from pi's closing notice, not a count of the non-blank lines it got."""
    readme = "".join(f"line {n}\n" if n % 7 else "\n" for n in range(1, 627))
    shown = "\n".join(readme.splitlines()[:619]) + "\n\n[Showing lines 1-619 of 626. Use offset=620 to continue.]"
    body = fresh_prompt(tmp_path, "hello")
    body["messages"] += [
        {"role": "assistant", "content": "intro", "tool_calls": [
            {"id": "b", "type": "function", "function": {"name": "read", "arguments": '{"path": "README.md"}'}},
            {"id": "a", "type": "function", "function": {"name": "bash", "arguments": '{"command": "echo"}'}}]},
        {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": shown}]},
        {"role": "tool", "tool_call_id": "a", "content": "one\n\nthree\n"},
    ]
    text = scenarios.demo_responder(body).text
    assert "| read | `README.md` | 626 lines (read 1\u2013619) |" in text
    assert "| bash | `echo` | 3 lines |" in text, "blank lines are lines"
