"""`@` completion in the prompt: fuzzy over the whole tree under pi's folder, listed again
after a tool run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_harness import Fake, tool_run, wait_until

from widgets.prompt.completion import CompletionMenu
from widgets.prompt.editor import PromptEditor


def labels(pilot: Any) -> list[str]:
    menu = pilot.app.query_one(CompletionMenu)
    return [candidate.label for candidate in menu.candidates] if menu.display else []


async def retype(pilot: Any, text: str) -> None:
    pilot.app.query_one(PromptEditor).load("")
    await pilot.press(*text)


async def test_typed_at_word_shows_fuzzy_candidates_from_the_whole_tree(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--stop-after", "10", stream="steer_abort.jsonl")
    for path in ("src/widgets/completion_menu.py", "src/widgets/menu.tcss", "docs/menus.md", "node_modules/m/menu.js"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    (tmp_path / ".gitignore").write_text("docs/\n")
    async with fake.run() as pilot:
        await retype(pilot, "look at @cmenu")
        await wait_until(pilot, lambda: labels(pilot)[:2] == ["src/widgets/completion_menu.py", "src/widgets/menu.tcss"],
                         timeout=30, what="the fuzzy candidates from two folders down, the name's first")
        await retype(pilot, "@menu")
        await wait_until(pilot, lambda: labels(pilot)[:2] == ["src/widgets/menu.tcss", "src/widgets/completion_menu.py"],
                         timeout=30, what="the name first, then names holding it")
        assert not [label for label in labels(pilot) if label.startswith(("docs", "node_modules"))]
        await pilot.press("tab")
        assert pilot.app.query_one(PromptEditor).text == "@src/widgets/menu.tcss "

        (tmp_path / "src" / "widgets" / "fresh_menu.py").write_text("written by a tool")
        fake.inject(
            {"type": "tool_execution_start", "toolCallId": "w1", "toolName": "write", "args": {}},
            {"type": "tool_execution_end", "toolCallId": "w1", "toolName": "write", "isError": False,
             "result": {"content": [{"type": "text", "text": "ok"}]}},
        )  # fmt: skip
        await wait_until(pilot, lambda: (run := tool_run(pilot.app.desk.current.pi.model, "w1")) is not None and run.done,
                         what="the tool run's end")
        await retype(pilot, "@fresh")
        await wait_until(pilot, lambda: labels(pilot) == ["src/widgets/fresh_menu.py"], timeout=30,
                         what="the file the tool wrote, listed again")
