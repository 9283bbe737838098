"""Keys typed while pideck starts, from the moment it runs, land in the prompt in order (as
in pi's TUI): in a real terminal, typed before pideck asks the terminal its colours, while
it does, and before the prompt has the focus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.pi_harness import Fake, TmuxPideck, ready, wait_until

from app.pideck_app import PideckApp
from widgets.prompt.editor import PromptEditor

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@needs_tmux
def test_keys_typed_while_pideck_starts_are_kept_in_order(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--hold-state")  # pi answers get_state only when told: "starting pi…" meanwhile
    with TmuxPideck(fake) as term:
        typed, after_up = [], 0
        while after_up < 5:  # from pideck's first moment until a few keys after its screen is up
            typed.append(f"{len(typed)}.")
            term.keys("-l", typed[-1])
            after_up += "starting pi" in term.screen()
        fake.inject("#fake:release-state")
        term.wait(lambda: "● ready" in term.screen(), "ready")
        term.keys("Enter")
        term.wait(lambda: fake.commands("prompt"), "the prompt sent")
        assert fake.commands("prompt")[0]["message"] == "".join(typed)


async def test_keys_typed_before_the_app_ran_come_first_as_keys(tmp_path: Path) -> None:
    """The bytes typed before the app ran are read as a terminal's keys (an arrow moves the
    cursor, Alt+Enter stays one key), and land without a key after them."""
    fake = Fake(tmp_path)
    app = PideckApp(fake.config(), type_ahead="héllo\x1b[D\x1b[D+".encode())
    async with app.run_test(size=(100, 30)) as pilot:
        editor = app.query_one(PromptEditor)
        await wait_until(pilot, lambda: editor.text == "hél+lo", what="the keys typed ahead")
        await ready(pilot, fake)
        assert editor.text == "hél+lo"
