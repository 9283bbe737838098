"""Security: markup and terminal-escape injection from model text and tool output, credentials
in what pideck stores, and `--pi` never reaching a shell.

The escape-injection test runs the installed `pideck` in a pseudo-terminal and checks the
bytes it writes to the terminal; the credentials test runs the REAL pi with an extension
that prints the scripted model's API key."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import signal
import struct
import termios
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.load import out_of_time
from tests.pi_harness import ROOT, SIZE, Fake, derive_stream, transcript_text, ui, wait_until

from app.cli.pideck import parse_args
from app.pi.launch import build_launch
from app.pideck_app import PideckApp
from protocol.wire.redact import Redactor
from widgets.transcript.message_views import TextBlock, ToolCallBlock
from widgets.screens.startup_error import fix_hints
from widgets.transcript.transcript import Transcript

MARKUP = "[bold]x[/] [link=https://evil.example]y[/] [@click=app.quit]z[/] [@click=app.bell]w[/]"
ESCAPES = (
    "\x1b[31mRED\x1b[0m \x1b]52;c;aGVsbG8=\x07clip \x1b]0;evil title\x07done \x1b[6n\x1b[21t"
    "\x9b6n\x1bP+q544e\x1b\\end\n"
)


def nasty_stream(tmp_path: Path) -> Path:
    """thinking_tools.jsonl with markup in the model's answer and in the bash tool's output,
    and terminal escapes (colour, OSC 52 clipboard, OSC 0 title, CSI reports, DCS) in it."""
    return derive_stream(
        tmp_path / "nasty.jsonl", "thinking_tools.jsonl",
        replace={"The project ": f"{MARKUP} The project ", "line 1\nline 2\nline 3\n": f"{MARKUP}\n{ESCAPES}"},
    )


# --- markup -------------------------------------------------------------------------------------


async def test_markup_in_model_text_and_tool_output_is_literal_and_never_clickable(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream=nasty_stream(tmp_path))
    fired: list[str] = []
    async with fake.run() as pilot:
        app = pilot.app
        app.action_quit = lambda: fired.append("quit")  # type: ignore[method-assign]
        app.action_bell = lambda: fired.append("bell")  # type: ignore[method-assign]
        editor_text = "go"
        app.query_one("#editor").load(editor_text)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and "Fixture project" in transcript_text(app), what="run")
        await pilot.pause()
        text = transcript_text(app)
        assert text.count("[@click=app.quit]z[/]") >= 2 and text.count("[link=https://evil.example]y[/]") >= 2

        transcript = app.query_one(Transcript)
        region = transcript.region
        for y in range(region.y, region.bottom):
            for x in range(region.x, region.right):
                meta = app.screen.get_style_at(x, y).meta
                assert "@click" not in meta and not meta.get("link"), (x, y, meta)

        targets = [w for w in app.query(ToolCallBlock)] + [w for w in app.query(TextBlock) if "app.quit" in w.text]
        assert len(targets) >= 2
        for widget in targets:
            widget.scroll_visible(animate=False)
            await pilot.pause()
            for row in range(min(widget.region.height, 12)):
                for column in (2, 30):  # where the markup text sits on the row, if it is there
                    await pilot.click(widget, offset=(column, row))
        await pilot.pause()
        assert fired == [] and app.is_running


# --- terminal escapes, checked on the bytes pideck writes to a real terminal ------------------


class PtyRun:
    """`argv` in a pseudo-terminal of `size`; everything it writes is kept in `output`."""

    def __init__(self, argv: list[str], env: dict[str, str], size: tuple[int, int], cwd: Path) -> None:
        self.output = bytearray()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become pideck
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            ready_fds, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready_fds:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_for(self, condition: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
        started = time.monotonic()
        while not condition():
            if out_of_time(started, timeout):
                raise AssertionError(f"timed out waiting for {what}; output tail: {bytes(self.output[-1500:])!r}")
            time.sleep(0.05)

    def stop(self) -> int | None:
        """Wait for the process to end (SIGKILL after 10 s, stretched by the load); its exit status."""
        started = time.monotonic()
        while not out_of_time(started, 10):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._reader.join(timeout=2)
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return None


def test_escape_sequences_in_tool_output_never_reach_the_terminal(tmp_path: Path) -> None:
    fake = Fake(tmp_path, stream=nasty_stream(tmp_path))
    pideck = ROOT / ".venv" / "bin" / "pideck"
    argv = [str(pideck), "--pi", shlex.join(fake.argv), "--protocol-log", str(tmp_path / "protocol.log")]
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    run = PtyRun(argv, env, SIZE, tmp_path)
    try:
        run.wait_for(lambda: "get_commands" in fake.kinds(), "start-up")
        run.wait_for(lambda: b"ready" in run.output, "the status line")
        run.write(b"go")
        run.wait_for(lambda: b"go" in run.output[-20000:], "the typed prompt")
        run.write(b"\r")
        run.wait_for(lambda: fake.commands("prompt"), "the prompt sent")
        run.wait_for(lambda: b"Fixture" in run.output and b"done" in run.output and b"end" in run.output, "the run shown")
        fake.inject(ui("setTitle", title="safe \x1b]52;c;ZXZpbA==\x07title\x1b[6n\x07 end"))
        run.wait_for(lambda: b"\x1b]2;safe " in run.output, "the cleaned title")
        run.write(b"\x04")  # ctrl+d on the empty editor quits
        assert run.stop() == 0
    finally:
        if run.pid:
            try:
                os.kill(run.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    out = bytes(run.output)
    assert b"clip" in out and b"RED" in out, "the text around the escapes is shown"
    # (U+009B, the 8-bit CSI, is C2 9B in the UTF-8 pideck writes)
    for leaked in (b"aGVsbG8", b"ZXZpbA", b"\x1b]52", b"\x1b]0;", b"evil title", b"\x1b[6n", b"\x1b[21t", b"\xc2\x9b",
                   b"\x1bP+q"):
        assert leaked not in out, leaked
    title = out[out.index(b"\x1b]2;safe ") :].split(b"\x07", 1)[0]
    assert title == b"\x1b]2;safe title end"


# --- credentials --------------------------------------------------------------------------------


def test_the_start_up_error_screen_hides_an_api_key_flag() -> None:
    hints = "\n".join(fix_hints(types.SimpleNamespace(argv=("pi", "--mode", "rpc", "--api-key", "sk-live-123"))))
    assert "sk-live-123" not in hints and "--api-key [redacted]" in hints


def test_redactor_patterns() -> None:
    redactor = Redactor.from_env({"ANTHROPIC_API_KEY": "sk-ant-abcdefghijklmnop", "HOME": "/home/someone", "N": "1"})
    cases = {
        "Authorization: Bearer abc.def-ghi": "Authorization: Bearer [redacted]",
        '{"headers": {"authorization": "Basic dXNlcjpwYXNz"}}': '{"headers": {"authorization": "[redacted]"}}',
        "x-api-key: k-123456789": "x-api-key: [redacted]",
        '{"apiKey":"anything at all","model":"m"}': '{"apiKey":"[redacted]","model":"m"}',
        "url?api_key=abcdef123&x=1": "url?api_key=[redacted]&x=1",
        "env value sk-ant-abcdefghijklmnop inline": "env value [redacted] inline",
        "ghp_" + "a" * 36: "[redacted]",
        "home is /home/someone and N=1": "home is /home/someone and N=1",
    }
    for raw, expected in cases.items():
        assert redactor.text(raw) == expected
        assert redactor.bytes(raw.encode()) == expected.encode()


# --- no shell -----------------------------------------------------------------------------------


async def test_pi_flag_is_split_and_never_run_by_a_shell(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    canary = tmp_path / "shell-ran"
    hostile = f"; touch {canary} && echo $(touch {canary}) `touch {canary}` | tee {canary} > {canary}"
    pi = shlex.join(fake.argv) + " " + hostile
    args = parse_args(["--pi", pi, "--protocol-log", str(tmp_path / "protocol.log"), "--cwd", str(tmp_path)])
    config = build_launch(args)
    assert config.argv == (*shlex.split(pi), "--mode", "rpc")
    app = PideckApp(config)
    async with fake.run(app):
        assert app.desk.current.pi.client.link.pid is not None
        cmdline = Path(f"/proc/{app.desk.current.pi.client.link.pid}/cmdline").read_bytes().split(b"\0")[:-1]
        assert [part.decode() for part in cmdline] == list(config.argv), "pi's own argv: no shell in between"
        assert ";" in config.argv and "$(touch" in config.argv and "`touch" in config.argv
    assert not canary.exists()
