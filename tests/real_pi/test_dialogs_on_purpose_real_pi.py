"""An extension's question is answered only by a key pressed on purpose
(widgets/screens/on_purpose.py), in a real terminal over the real pi: a permission gate
(tests/extensions/permission_gate.ts) opening as the user types on took the `y` of their
text as Yes, and the Enter that ended it submitted the next question's field."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import EXTENSIONS_DIR, HarnessPi, PiHarness, TmuxPideck

from widgets.screens.on_purpose import AMONG, SETTLE, TOO_SOON

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

GATE = EXTENSIONS_DIR / "permission_gate.ts"


def answers(record: Path) -> list[dict[str, Any]]:
    """The extension_ui_responses pideck sent, from its `--record`."""
    if not record.exists():
        return []
    written = record.read_text().split("\n")[:-1]  # (the last line may be half written)
    sent = (json.loads(entry["out"]) for entry in map(json.loads, written) if "out" in entry)
    return [message for message in sent if message["type"] == "extension_ui_response"]


def press_on_purpose(term: TmuxPideck, key: str, answered: Callable[[], bool]) -> None:
    """Press `key` on its own, as a person does once the question has been read; again if
    the question says it came too soon (a loaded machine draws it later than the terminal
    shows it), as it asks."""
    for last in (False, True):
        pressed = time.monotonic()
        term.wait(lambda: time.monotonic() > pressed + SETTLE, "the question up a while")
        term.keys(key)
        term.wait(lambda: answered() or not last and term.shows(f"{key} was ignored: it came {TOO_SOON}"),
                  f"{key}'s answer")
        if answered():
            return


def test_keys_typed_on_as_an_extensions_questions_open_answer_nothing(tmp_path: Path, pi_harness: PiHarness) -> None:
    pi = HarnessPi(pi_harness, tmp_path)
    record = tmp_path / "record.jsonl"
    with TmuxPideck(pi, args=("--record", str(record), *pi.args(), "-e", str(GATE)),  # type: ignore[arg-type]
                    cwd=tmp_path, env=pi.env()) as term:
        term.wait(lambda: "● ready" in term.screen(), "ready on the status line", timeout=60)
        term.send("/gate")
        term.wait(lambda: "Allow `rm -rf build`?" in term.screen(), "the gate's question")
        term.keys(*"try it", "Enter")  # typed on as it opened, in one write
        term.wait(lambda: term.shows(f"Enter was ignored: it came {AMONG}"), "the keys ignored, and said")  # (the y's, then the Enter's)
        assert term.shows("Allow `rm -rf build`?") and answers(record) == [], "keys typed on answered the gate"
        press_on_purpose(term, "n", lambda: len(answers(record)) == 1)
        assert answers(record)[0]["confirmed"] is False
        term.wait(lambda: "Why?" in term.screen(), "the next question")
        term.keys(*"no reason", "Enter")
        term.wait(lambda: term.shows(f"Enter was ignored: it came {AMONG}"), "the Enter ignored, and said")
        assert "no reason" in term.screen() and len(answers(record)) == 1, "the field was submitted by typed-on keys"
        press_on_purpose(term, "Enter", lambda: len(answers(record)) == 2)
        assert answers(record)[1]["value"] == "no reason"
