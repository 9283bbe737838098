"""What a user sees of held pis, as a user runs pideck: in tmux, over the harness's real pi,
with `pideck ls`, `stop` and `attach` run beside it. Each test has a holder folder of its
own (XDG_RUNTIME_DIR) and a home of its own (HOME), and stops what it holds at its end."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.load import out_of_time
from tests.pi_harness import UI_EVERYTHING, PiHarness, TmuxPideck
from tests.real_pi.test_hold_real_pi import TerminalPi

from app.scripted_model.server import Reply
from protocol.hold.ask import ask, held

pytestmark = pytest.mark.pi



class HomePi(TerminalPi):
    """A held pideck whose home is `home`, its pi with `pi_args` more; with `welcome`, pi's
    agent folder a copy of the harness's that shows pideck's welcome (no quietStartup)."""

    def __init__(self, harness: PiHarness, folder: Path, holder_env: dict[str, str], home: Path,
                 pi_args: tuple[str, ...] = (), welcome: bool = False) -> None:
        super().__init__(harness, folder, holder_env)
        self.home = home
        self.pi_args = pi_args
        self.agent_dir: Path | None = None
        if welcome:
            self.agent_dir = shutil.copytree(harness.agent_dir, home / "agent-with-welcome")
            settings = self.agent_dir / "settings.json"
            settings.write_text(json.dumps(json.loads(settings.read_text()) | {"quietStartup": False}))

    def args(self) -> tuple[str, ...]:
        return (*super().args(), *self.pi_args)

    def env(self) -> dict[str, str]:
        agent = {"PI_CODING_AGENT_DIR": str(self.agent_dir)} if self.agent_dir is not None else {}
        return super().env() | {"HOME": str(self.home)} | agent


def flat(screen: str) -> str:
    """The screen's words in one line (a toast's text wraps)."""
    return " ".join(re.sub(r"[▌▐│┃╭╮╰╯─━]", " ", screen).split())


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    started = time.monotonic()
    while not (value := condition()):
        assert not out_of_time(started, timeout), f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def state_of(env: dict[str, str], number: int) -> str | None:
    return next((pi["state"] for pi in held(env) if pi["number"] == number), None)


def held_and_detached(pi_harness: PiHarness, folder: Path, holder_env: dict[str, str], home: Path) -> HomePi:
    """Pi 1, started held in `folder` in a terminal of its own, which leaves with Ctrl+\\."""
    first = HomePi(pi_harness, folder, holder_env, home=home)
    with TmuxPideck(first, args=first.args(), cwd=folder, env=first.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen() and "held 1" in term.screen(), "pi 1 ready", timeout=60)
        term.keys("C-\\")
        wait_for(lambda: [pi["windows"] for pi in held(holder_env)] == [0], "pi 1 detached")
    return first


def test_a_held_session_says_so_and_a_stop_says_who_stopped_it(tmp_path: Path, pi_harness: PiHarness,
                                                                holder_env: dict[str, str]) -> None:
    """The prompt's border says `held 1`, the welcome names Ctrl+\\; `pideck ls` shows the
    session's name and its folder under ~, quoted; `pideck stop --all` of the working pi
    says it was working and shown, and its window says `pideck stop` stopped it. The next
    holder's pi is 2, not 1 again."""
    folder = tmp_path / "my project"
    folder.mkdir()
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="slow " * 400, chunk_chars=5, delay=0.05))
    pi = HomePi(pi_harness, folder, holder_env, home=tmp_path, pi_args=("--name", "review"), welcome=True)
    with TmuxPideck(pi, args=pi.args(), cwd=folder, env=pi.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen(), "ready on the status line", timeout=60)
        term.wait(lambda: "held 1" in term.screen(), "held on the prompt's border")
        assert "Ctrl+\\ detaches: the window goes, the run goes on" in flat(term.screen())
        term.send("go")
        term.wait(lambda: "slow slow" in term.screen(), "the reply streaming")
        listed = pi.pideck("ls")
        assert listed.returncode == 0, listed
        heads, row = listed.stdout.splitlines()
        assert heads.split() == ["N", "STATE", "WINDOWS", "LAST", "ACTIVE", "NAME", "FOLDER"]
        assert re.fullmatch(r" +1  working +1 window +\d+ s ago +review +~/'my project'", row), row
        first_holder = ask({"op": "list"}, holder_env)["holder"]  # type: ignore[index]
        stopped = pi.pideck("stop", "--all")
        assert stopped.stdout.strip() == "pideck: stopped 1 (it was working, shown in 1 window, which says so)", stopped
        term.wait(lambda: "pi was stopped by `pideck stop`" in term.screen(), "the window saying who stopped pi")
        assert "pi exited (code" not in term.screen()
        assert "held 1" not in term.screen()
    wait_for(lambda: not Path(f"/proc/{first_holder}").exists(), "the holder gone, nothing held")  # (a question keeps it)
    again = HomePi(pi_harness, folder, holder_env, home=tmp_path)
    with TmuxPideck(again, args=again.args(), cwd=folder, env=again.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "held 2" in term.screen(), "the next holder's first pi, numbered 2", timeout=60)
        answer = ask({"op": "list"}, holder_env)
        assert answer is not None and answer["holder"] != first_holder
        assert [pi["number"] for pi in answer["pis"]] == [2]
        assert re.search(r"^ +2  idle +1 window .* my project +~/'my project'$", pi.pideck("ls").stdout, re.M)


def test_an_attach_marks_a_run_ended_unseen_and_says_which_pis_another_window_shows(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """Pi 1 idle, pi 2's run ended with no window: `pideck attach` shows pi 1, and pi 2 as
    done unseen (✓) in the sessions row, each `held`; the toast says both went on without a
    window. A second `pideck attach 1` says pi 1 is shown in another window too."""
    pi_harness.reset_model()
    pi_harness.model.queue(Reply(text="finished unwatched " * 60, chunk_chars=6, delay=0.05))
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first = held_and_detached(pi_harness, one, holder_env, tmp_path)
    second = HomePi(pi_harness, two, holder_env, home=tmp_path)
    with TmuxPideck(second, args=second.args(), cwd=two, env=second.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen() and "held 2" in term.screen(), "pi 2 ready", timeout=60)
        term.send("work")
        term.wait(lambda: "finished unwatched" in term.screen(), "pi 2 working")
        term.keys("C-\\")
        wait_for(lambda: state_of(holder_env, 2) == "done", "pi 2's run ended with no window")
    with TmuxPideck(first, args=("attach", *first.args()[:2]), cwd=tmp_path, env=first.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "2 held pis brought back as they went on without a window" in flat(term.screen()),
                  "the attach's toast")
        term.wait(lambda: re.search(r"1 ○ one held +2 ✓ two held", term.screen()), "pi 2 done unseen in the row")
        with TmuxPideck(first, args=("attach", "1", *first.args()[:2]), cwd=tmp_path, env=first.env()) as other:  # type: ignore[arg-type]
            other.wait(lambda: "1 held pi shown here too: another window shows it as well" in flat(other.screen()),
                       "the second attach's toast")
            assert "went on without a window" not in flat(other.screen())


def test_the_toast_of_a_held_session_that_asks_names_it_as_its_tab_does(
        tmp_path: Path, pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """Pi 2, named `review`, waits on a dialog with no window: after `pideck attach` (pi 1
    shown) the toast that says it asks names `review`, as its tab does, not its folder."""
    one, two = tmp_path / "one", tmp_path / "folder-two"
    one.mkdir()
    two.mkdir()
    first = held_and_detached(pi_harness, one, holder_env, tmp_path)
    asking = HomePi(pi_harness, two, holder_env, home=tmp_path, pi_args=("-e", str(UI_EVERYTHING), "--name", "review"))
    with TmuxPideck(asking, args=asking.args(), cwd=two, env=asking.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "● ready" in term.screen() and "held 2" in term.screen(), "pi 2 ready", timeout=60)
        term.send("/ui-dialogs")
        term.wait(lambda: "Pick a colour" in term.screen(), "the dialog")
        term.keys("C-\\")
        wait_for(lambda: state_of(holder_env, 2) == "needs you" and held(holder_env)[1]["windows"] == 0,
                 "pi 2 asking with no window")
    with TmuxPideck(first, args=("attach", *first.args()[:2]), cwd=tmp_path, env=first.env()) as term:  # type: ignore[arg-type]
        term.wait(lambda: "review needs you" in term.screen(), "pi 2 in the row, named review")
        term.wait(lambda: "“review” asks a question" in flat(term.screen()), "the toast naming review")
        assert "“folder-two” asks" not in flat(term.screen())
