"""Keys typed in a burst in a real terminal (tmux) reach the real pi as typed: a prompt that
names a large file with `@` (its completion lists the folder, the sent text is read for
images), then a steer and a follow-up, in one write; and keys that switch between two
sessions in one write, each sent in the session shown when it was pressed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import HarnessPi, PiHarness, TmuxPideck

from app.runtime import PiRuntime
from app.scripted_model.server import Reply

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Demo:
    """`pideck --demo` recording what it sends and reads (for TmuxPideck, as a Fake is)."""

    def __init__(self, folder: Path) -> None:
        self.dir = folder
        self.record = folder.parent / f"{folder.name}.record.jsonl"

    def _lines(self, way: str) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        written = self.record.read_text().split("\n")[:-1]  # (the last line may be half written)
        entries = (json.loads(line) for line in written)
        return [json.loads(entry[way]) for entry in entries if way in entry]

    def prompts(self) -> list[tuple[str, str | None]]:
        """The prompts sent, with their streamingBehavior."""
        return [(sent["message"], sent.get("streamingBehavior")) for sent in self._lines("out") if sent["type"] == "prompt"]

    def kinds(self) -> list[str]:
        return [sent["type"] for sent in self._lines("out")]

    def runs_ended(self) -> int:
        """How many runs pi has ended and settled since it started (0 while one goes on;
        pi says agent_settled also on taking a steer or a follow-up)."""
        kinds = [kind for read in self._lines("in") if (kind := read.get("type")) in ("agent_start", "agent_end", "agent_settled")]
        last_end = max((i for i, kind in enumerate(kinds) if kind == "agent_end"), default=-1)
        settled = last_end >= 0 and kinds[-1] == "agent_settled" and "agent_start" not in kinds[last_end:]
        return kinds.count("agent_end") if settled else 0


def test_a_steer_and_a_follow_up_typed_in_one_burst_with_a_prompt_naming_a_file_reach_pi(
    tmp_path: Path, pi_runtime: PiRuntime
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "evil.txt").write_text(("x" * 99 + "\n") * 2_000)  # 200 KB
    demo = Demo(folder)
    with TmuxPideck(demo, args=("--demo", "--record", str(demo.record)), cwd=folder) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready on the status line", timeout=60)
        expected: list[tuple[str, str | None]] = []
        for n in range(2):  # in a new session, then after a run (the file index listed again)
            prompt, ended = f"look at @evil.txt again {n}", demo.runs_ended()
            term.keys("-l", prompt)
            term.wait(lambda: prompt in editor(term), "the prompt typed")
            term.keys("Enter", *f"steer {n}", "Enter", *f"follow {n}", "M-Enter")  # one write to the terminal
            expected += [(prompt, None), (f"steer {n}", "steer"), (f"follow {n}", "followUp")]
            term.wait(lambda: len(demo.prompts()) >= len(expected), f"round {n}'s three messages sent", timeout=30)
            assert demo.prompts() == expected
            term.wait(lambda: demo.runs_ended() > ended and "● ready" in term.screen(), "the run's end", timeout=60)
            assert not editor(term).strip(), "the editor kept text that was sent"


def editor(term: TmuxPideck) -> str:
    """The prompt editor's rows on the screen ("" while it is not shown)."""
    rows = term.screen().splitlines()
    tops = [i for i, row in enumerate(rows) if row.startswith("╭─ prompt")]
    if not tops:
        return ""
    bottom = next((i for i in range(tops[-1] + 1, len(rows)) if rows[i].startswith("╰")), len(rows))
    return "\n".join(row[1:row.find("│", 1)].strip() for row in rows[tops[-1] + 1 : bottom])


@pytest.mark.parametrize("send", ["Enter", "M-Enter"], ids=["enter", "alt+enter"])
def test_keys_that_switch_sessions_in_one_write_send_each_message_in_the_session_shown_when_typed(
        tmp_path: Path, pi_harness: PiHarness, send: str) -> None:
    """`one` Enter Alt+2 `two` Enter Alt+1 in one write while session 1 streams: the Enter
    after Alt+2 was read by session 1's prompt (empty, nothing sent) and `two` stayed in
    session 2's prompt."""
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="alpha " * 150, chunk_chars=3, delay=0.02))  # session 1's first answer streams
    pi_harness.model.responder = lambda body: Reply(text="Noted.")
    pi = HarnessPi(pi_harness, tmp_path)
    with TmuxPideck(pi, args=pi.args(), cwd=one, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready on the status line", timeout=60)
        term.send("/open ../two")
        term.wait(lambda: "2 ○ two" in term.screen() and "● ready" in term.screen(), "session 2 open", timeout=60)
        term.keys("M-1")
        term.wait(lambda: "1 ○ one" in term.screen() and not editor(term), "session 1 shown")
        term.send("Stream a long answer.")
        term.wait(lambda: "alpha alpha" in term.screen(), "session 1 streaming", timeout=30)
        term.keys(*"one", send, "M-2", *"two", send, "M-1")  # one write to the terminal
        term.wait(lambda: ["two"] in pi.user_texts(), "session 2's prompt sent", timeout=30)
        term.wait(lambda: any(texts[-1:] == ["one"] for texts in pi.user_texts()), "session 1's message reached pi",
                  timeout=60)
        assert [texts for texts in pi.user_texts() if "two" in texts] == [["two"]], "`two` went to session 2 alone"
        assert all(texts[0] == "Stream a long answer." for texts in pi.user_texts() if "one" in texts)
        assert not editor(term), "session 1's prompt kept text that was sent"
        term.keys("M-2")
        term.wait(lambda: "Noted." in term.screen(), "session 2 shown with its answer", timeout=30)
        assert not editor(term), "session 2's prompt kept text that was sent"
