"""pideck used over a real ssh connection (OpenSSH's sshd on 127.0.0.1, tests/remote/conftest.py):
a tmux client runs `ssh -t` into it to start pideck on the real pi and the scripted model.
Everything a user does goes through ssh's pty, byte timing and window changes; then the
connection drops, and what was said is on disk and comes back in a new connection."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.load import load, out_of_time
from tests.pi_harness import PiHarness

from app.scripted_model.server import Reply
from protocol.hold.ask import ask

pytestmark = pytest.mark.pi

REPLIES = {
    "hello over ssh": Reply(text="Hello from the far side: the stream came through.", chunk_chars=5, delay=0.02),
    "count slowly": Reply(text=" ".join(f"tick{n}" for n in range(1, 31)), chunk_chars=6, delay=0.1),
    "and then wave": Reply(text="Waving after the count."),
    "count again": Reply(text=" ".join(f"tock{n}" for n in range(1, 400)), chunk_chars=6, delay=0.1),
    "count while held": Reply(text=" ".join(f"held{n}" for n in range(1, 100)), chunk_chars=6, delay=0.05),
}


def reply_to(body: dict[str, Any]) -> Reply:
    """The scripted answer to the last user message (Reply text per prompt)."""
    last = [m for m in body.get("messages", []) if m.get("role") == "user"][-1]
    content = last["content"]
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
    return REPLIES.get(text.strip(), Reply(text="(no scripted answer)"))


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line or environment holds `marker` (a test's own temp
    path), but for the tmux server (its command line keeps the command it started with)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            held = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            name, state = (entry / "stat").read_text().rsplit(")", 1)
        except OSError:
            continue
        if marker.encode() in held and state.split()[0] != "Z" and not name.partition("(")[2].startswith("tmux"):
            found.append(int(entry.name))
    return found


def describe(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()[:300]
    except OSError:
        return f"{pid} (gone)"


def wait_gone(marker: str, timeout: float) -> tuple[float, list[str]]:
    """Seconds until no process holds `marker`, and the command lines of those still there
    after `timeout`, stretched by the load (killed then)."""
    start = time.monotonic()
    while (left := processes_with(marker)) and not out_of_time(start, timeout):
        time.sleep(0.05)
    took, described = time.monotonic() - start, [describe(pid) for pid in left]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return took, described


def session_messages(sessions: Path) -> list[tuple[str, str]]:
    """(role, text) of every message in the one session file under `sessions`."""
    (path,) = sessions.rglob("*.jsonl")
    found = []
    for line in path.read_text().splitlines()[1:]:
        entry = json.loads(line)
        message = entry.get("message")
        if entry.get("type") == "message" and message.get("role") in ("user", "assistant"):
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            found.append((message["role"], text))
    return found


@pytest.fixture
def conversation(remote_pi: PiHarness, tmp_path: Path) -> Iterator[Path]:
    """A session folder of this test's own (its path marks the test's processes), the model
    answering by `REPLIES`; no process of the test's is left at the end."""
    remote_pi.reset_model()
    remote_pi.model.responder = reply_to
    sessions = tmp_path / "sessions"
    yield sessions
    remote_pi.reset_model()
    wait_gone(str(sessions), 10)


def row_of(screen: str, text: str) -> tuple[int, int]:
    """(column, row), 0-based, of `text` on the screen."""
    for row, line in enumerate(screen.splitlines()):
        if (column := line.find(text)) >= 0:
            return column, row
    raise AssertionError(f"{text!r} is not on the screen:\n{screen}")


def drag(column: int, row: int, end_column: int) -> list[str]:
    """A mouse drag along one row, as SGR mouse reports (1-based), for `tmux send-keys -H`."""
    events = [f"\x1b[<0;{column + 1};{row + 1}M"]
    events += [f"\x1b[<32;{x + 1};{row + 1}M" for x in range(column + 1, end_column + 1)]
    events.append(f"\x1b[<0;{end_column + 1};{row + 1}m")
    return [f"{byte:02x}" for byte in "".join(events).encode()]


def test_pideck_over_ssh_streams_queues_aborts_copies_resizes_and_survives_a_dropped_link(
    sshd: Any, remote_pi: PiHarness, conversation: Path, tmp_path: Path, ssh_pideck: Any
) -> None:
    sessions = conversation
    term = ssh_pideck(sessions, tmp_path / "protocol.log")
    term.wait_ready()

    term.send("hello over ssh")
    term.wait(lambda: "the stream came through." in term.screen(), "the answer streamed through ssh")
    term.wait_ready()  # the run has ended: Enter sends a prompt, not a steer

    term.send("count slowly")
    term.wait(lambda: "tick2" in term.screen(), "the slow answer streaming")
    term.keys("-l", "and then wave")
    term.wait(lambda: "and then wave" in term.screen(), "the follow-up typed")
    term.keys("M-Enter")  # ESC CR through ssh's pty: a follow-up, not Esc (an abort) and Enter (a steer)
    term.wait(lambda: "Waving after the count." in term.screen(), "the follow-up answered after the run", timeout=60)
    assert "tick30" in term.screen(), "the run went on to its end"
    assert "■ aborted" not in term.screen()
    term.wait_ready()

    term.send("count again")
    term.wait(lambda: "tock3" in term.screen(), "the long answer streaming")
    term.keys("Escape")  # a lone ESC: after ssh's delay it is still Esc
    term.wait(lambda: "■ aborted" in term.screen(), "the run aborted")

    column, row = row_of(term.screen(), "Hello from the far side")
    term.keys("-H", *drag(column, row, column + len("Hello from the far side") - 1))
    term.wait(lambda: term._tmux("show-buffer").stdout == "Hello from the far side",
              "the drag copied into tmux's buffer through OSC 52")  # fmt: skip

    assert "─ Session ─" in term.screen() and "tick12 tick13" not in term.screen()
    term._tmux("resize-window", "-t", "t", "-x", "90", "-y", "30")

    def laid_out_again() -> bool:
        lines = term.screen().splitlines()
        prompt = [line.rstrip() for line in lines if line.startswith("╭─ prompt")]
        return (len(lines) == 30 and "─ Session ─" not in term.screen()  # the side panes hide below 100 columns
                and "tick12 tick13" in term.screen()  # the answer wrapped to the wider transcript
                and len(prompt) == 1 and len(prompt[0]) == 90 and prompt[0].endswith("╮"))

    term.wait(laid_out_again, "the screen laid out again at 90×30")

    running = [describe(pid) for pid in processes_with(str(sessions))]
    assert "pi" in [command.split()[0] for command in running], f"pi (its title) not found: {running}"
    assert [command for command in running if "/.venv/bin/pideck" in command], f"pideck not found: {running}"
    os.kill(term.pane_pid, signal.SIGKILL)  # the ssh client: the connection drops
    took, left = wait_gone(str(sessions), 20)
    assert not left, f"outlived the connection: {left}"
    assert took < 5 * load(), f"pideck and pi took {took:.1f} s to end"  # (on the hang-up, not a timeout later)

    said = session_messages(sessions)
    users = [text for role, text in said if role == "user"]
    assert users == ["hello over ssh", "count slowly", "and then wave", "count again"]
    answers = [text for role, text in said if role == "assistant"]
    assert answers[:3] == [REPLIES["hello over ssh"].text, REPLIES["count slowly"].text, "Waving after the count."]
    assert answers[3].startswith("tock1 tock2 tock3"), "the aborted answer is kept as far as it came"

    again = ssh_pideck(sessions, tmp_path / "protocol2.log", "--continue")
    again.wait_ready()
    for text in [*users, "Hello from the far side", "tick30", "Waving after the count.", "■ aborted"]:
        again.wait(lambda text=text: text in again.screen(), f"{text!r} in the resumed conversation")


def test_a_held_run_outlives_a_dropped_link_and_is_attached_over_a_new_one(
    sshd: Any, remote_pi: PiHarness, conversation: Path, tmp_path: Path, ssh_pideck: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pideck --hold over ssh; the ssh client is killed while pi streams: pi goes on in the
    holder, and `pideck attach` over a new connection shows the answer to its end."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    sessions = conversation
    term = ssh_pideck(sessions, tmp_path / "protocol.log", own=("--hold",))
    term.wait_ready()
    term.send("count while held")
    term.wait(lambda: "held3 " in term.screen(), "the long answer streaming")
    os.kill(term.pane_pid, signal.SIGKILL)  # the ssh client: the connection drops
    again = ssh_pideck(sessions, tmp_path / "protocol2.log", own=("attach",))
    again.wait(lambda: "held99" in again.screen() and "● ready" in again.screen(), "the whole answer, attached",
               timeout=60)
    assert "■ aborted" not in again.screen()
    said = session_messages(sessions)
    assert said[-1] == ("assistant", REPLIES["count while held"].text), "pi finished the run the dropped link started"
    ask({"op": "stop", "all": True}, {"XDG_RUNTIME_DIR": str(runtime)})
