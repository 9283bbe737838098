"""What is typed while pideck starts reaches pi, held or not: a prompt and its Enter typed
the moment the model's name shows (pi answered get_state, the window still reading its
messages and stats) was kept in the prompt, its Enter lost (held, 2 runs of 6)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import HarnessPi, PiHarness, TmuxPideck

from app.scripted_model.agent_dir import MODEL_ID
from app.scripted_model.server import Reply

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

RUNS = 10


class StartingPi(HarnessPi):
    """pideck over the harness's real pi, held (with a holder folder of its own) or not."""

    def __init__(self, harness: PiHarness, folder: Path, runtime: Path, held: bool) -> None:
        super().__init__(harness, folder)
        self.runtime, self.held = runtime, held

    def env(self) -> dict[str, str]:
        return super().env() | {"XDG_RUNTIME_DIR": str(self.runtime), "PIDECK_HOLD": "" if self.held else "0",
                                "NO_COLOR": "1"}



@pytest.mark.parametrize("when", ["at once", "as the model's name shows"])
@pytest.mark.parametrize("held", [True, False], ids=["held", "not held"])
def test_a_prompt_and_its_enter_typed_while_pideck_starts_are_sent(
        tmp_path: Path, pi_harness: PiHarness, holder_runtime: Path, held: bool, when: str) -> None:
    pi_harness.reset_model()
    pi_harness.model.responder = lambda body: Reply(text="Hi.")
    for n in range(RUNS):
        folder = tmp_path / f"w{n}"
        folder.mkdir()
        pi = StartingPi(pi_harness, folder, holder_runtime, held)
        sent = len(pi.user_texts())
        with TmuxPideck(pi, args=pi.args(), cwd=folder, env=pi.env()) as term:  # type: ignore[arg-type]
            if when != "at once":  # (pi answered get_state; its messages and stats are being read)
                term.wait(lambda: MODEL_ID in term.screen(), "the model's name", timeout=60)
            term.keys("-l", f"hello there {n}")
            term.keys("Enter")
            term.keys("-l", "a draft")
            term.wait(lambda: len(pi.user_texts()) > sent and "a draft" in term.screen(),
                      f"run {n}: the prompt sent, the draft typed after it in the prompt", timeout=60)
            assert pi.user_texts()[sent:] == [[f"hello there {n}"]]
            assert "│ a draft" in term.screen()
