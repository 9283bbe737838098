"""A fake `pi --mode rpc` child for deterministic UI tests.

Run as ``[sys.executable, "tests/fake_pi.py", *options]``. It speaks pi's JSONL RPC
protocol on stdin/stdout with canned data shaped like real pi 1.6.0 (copied from the
recorded streams in tests/fixtures/streams/).

Options (each also readable from an environment variable):

--stream FILE       (FAKE_PI_STREAM)   recorded stream replayed on ``prompt`` (its event
                                       lines up to the first ``agent_settled``; recorded
                                       responses are skipped). Default: markdown.jsonl
--rate N/MS         (FAKE_PI_RATE)     replay N records every MS milliseconds
                                       (default: all at once)
--stop-after N      (FAKE_PI_STOP_AFTER) replay only N records, then freeze: the run stays
                                       "streaming in progress" until ``abort``
--log FILE          (FAKE_PI_LOG)      every command received, one JSON per line
--control FILE      (FAKE_PI_CONTROL)  polled every 10 ms: each new line appended to it
                                       is written to stdout as is, bytes unchanged (so a
                                       test can inject extension UI requests, queue
                                       updates, garbage, invalid UTF-8...). Directives:
                                       ``#fake:stderr N W`` writes N lines of W characters
                                       to stderr; ``#fake:bigline N garbage|json`` writes
                                       one line of N bytes (binary noise, or an unknown
                                       record) to stdout; ``#fake:close-stdout`` closes
                                       stdout (later output goes nowhere) and lives on
--session-file PATH (FAKE_PI_SESSION_FILE) ``sessionFile`` in get_state (pideck's
                                       ``--session PATH``, when given, wins)
--messages FILE     (FAKE_PI_MESSAGES) JSON list answered to ``get_messages``
--queue-on-prompt   (FAKE_PI_QUEUE=1)  after the prompt starts, emit a queue_update with
                                       one steering and one follow-up item
--ui-on-prompt FILE (FAKE_PI_UI)       JSONL of extension_ui_request records emitted
                                       after the prompt starts
--exit CODE         (FAKE_PI_EXIT)     exit at once with CODE, after writing --stderr
--stderr TEXT       (FAKE_PI_STDERR)   text written to stderr before exiting
--exit-delay S      (FAKE_PI_EXIT_DELAY) wait S seconds (reading nothing) before --exit
--bash-output TEXT  (FAKE_PI_BASH_OUTPUT) output of every ``bash`` command
                                       (default: "fake output of <command>\\n")
--hold-state                           answer ``get_state`` (and read nothing after it)
                                       only once the control file has a line
                                       ``#fake:release-state``: a pi slow to start
--hold-messages                        answer ``get_messages`` with the first half of its
                                       line, the rest once the control file has a line
                                       ``#fake:release-messages``: a long answer on its way
--answer CMD[+N]=JSON                  answer CMD with this JSON as its data (``null``: no
                                       data), after answering it as usual N times (default 0);
                                       repeatable
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

STREAMS = Path(__file__).resolve().parent / "fixtures" / "streams"

MODEL = {
    "id": "scripted-demo",
    "name": "Scripted demo",
    "api": "openai-completions",
    "provider": "scripted",
    "baseUrl": "http://127.0.0.1:40867/v1",
    "reasoning": True,
    "input": ["text", "image"],
    "cost": {"input": 1, "output": 4, "cacheRead": 0.1, "cacheWrite": 1.25},
    "contextWindow": 128000,
    "maxTokens": 8192,
    "compat": {"supportsUsageInStreaming": True},
}
MINI_MODEL = {
    **MODEL, "id": "scripted-demo-mini", "name": "Scripted mini", "reasoning": False, "input": ["text"],
    "contextWindow": 32000, "maxTokens": 4096,
}
SESSION_ID = "01a22721-76c8-7537-82f0-d156b570e9fc"


def _arg(parser: argparse.ArgumentParser) -> argparse.Namespace:
    env = os.environ.get
    parser.add_argument("--stream", default=env("FAKE_PI_STREAM", str(STREAMS / "markdown.jsonl")))
    parser.add_argument("--rate", default=env("FAKE_PI_RATE", ""))
    parser.add_argument("--stop-after", type=int, default=int(env("FAKE_PI_STOP_AFTER", "0") or 0))
    parser.add_argument("--log", default=env("FAKE_PI_LOG", ""))
    parser.add_argument("--control", default=env("FAKE_PI_CONTROL", ""))
    parser.add_argument("--messages", default=env("FAKE_PI_MESSAGES", ""))
    parser.add_argument("--queue-on-prompt", action="store_true", default=env("FAKE_PI_QUEUE") == "1")
    parser.add_argument("--ui-on-prompt", default=env("FAKE_PI_UI", ""))
    parser.add_argument("--exit", type=int, default=None if env("FAKE_PI_EXIT") is None else int(env("FAKE_PI_EXIT", "0")))
    parser.add_argument("--stderr", default=env("FAKE_PI_STDERR", ""))
    parser.add_argument("--exit-delay", type=float, default=float(env("FAKE_PI_EXIT_DELAY", "0") or 0))
    parser.add_argument("--bash-output", default=env("FAKE_PI_BASH_OUTPUT"))
    parser.add_argument("--session-file", default=env("FAKE_PI_SESSION_FILE", ""))
    parser.add_argument("--answer", action="append", default=[])
    parser.add_argument("--hold-state", action="store_true")
    parser.add_argument("--hold-messages", action="store_true")
    parser.add_argument("--session", default="")  # as pi's: the session pideck asks to resume
    parser.add_argument("ignored", nargs="*")  # pideck appends "--mode rpc" and pi flags
    options, _ = parser.parse_known_args()
    return options


def stream_events(path: str) -> list[str]:
    """The event lines of a recorded stream, up to and including the first agent_settled."""
    events: list[str] = []
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("type") == "response":
            continue
        events.append(line)
        if record.get("type") == "agent_settled":
            break
    return events


class FakePi:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.lock = threading.Lock()
        self.running = False
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self.messages: list[Any] = json.loads(Path(options.messages).read_text()) if options.messages else []
        self.stop_replay = threading.Event()
        self.replay_thread: threading.Thread | None = None
        self.state_released = threading.Event()
        if not options.hold_state:
            self.state_released.set()
        self.messages_released = threading.Event()
        self.assistant: dict[str, Any] | None = None
        self.assistant_text = ""
        self.log = open(options.log, "a", encoding="utf-8") if options.log else None  # noqa: SIM115
        self.answers: dict[str, tuple[int, Any]] = {}  # command -> (usual answers left, data)
        for answer in options.answer:
            key, _, data = answer.partition("=")
            name, _, usual = key.partition("+")
            self.answers[name] = (int(usual or 0), json.loads(data))
        rate = options.rate
        if rate:
            count, _, ms = rate.partition("/")
            self.rate: tuple[int, float] | None = (max(1, int(count)), float(ms or 0) / 1000)
        else:
            self.rate = None

    # --- output ----------------------------------------------------------------------------

    def write_line(self, line: str) -> None:
        with self.lock:
            sys.stdout.write(line.rstrip("\n") + "\n")
            sys.stdout.flush()

    def emit(self, record: dict[str, Any]) -> None:
        self.write_line(json.dumps(record, separators=(",", ":")))

    def respond(self, command: dict[str, Any], data: Any = None, *, success: bool = True, error: str = "") -> None:
        response: dict[str, Any] = {"type": "response", "command": command.get("type", ""), "success": success}
        if command.get("id") is not None:
            response = {"id": command["id"], **response}
        if not success:
            response["error"] = error
        elif data is not None:
            response["data"] = data
        self.emit(response)

    def queue_update(self) -> None:
        self.emit({"type": "queue_update", "steering": list(self.steering), "followUp": list(self.follow_up)})

    def track(self, line: str) -> None:
        """Follow the replayed run: running flag and the streaming assistant's text."""
        try:
            record = json.loads(line)
        except ValueError:
            return
        kind = record.get("type")
        if kind == "agent_start":
            self.running = True
        elif kind in ("agent_end", "agent_settled"):
            self.running = False
        elif kind == "message_start" and record.get("message", {}).get("role") == "assistant":
            self.assistant = dict(record["message"])
            self.assistant_text = ""
        elif kind == "message_update":
            event = record.get("assistantMessageEvent", {})
            if event.get("type") == "text_delta":
                self.assistant_text += event.get("delta", "")
        elif kind == "message_end" and record.get("message", {}).get("role") == "assistant":
            self.assistant = None

    # --- replay ----------------------------------------------------------------------------

    def replay(self, lines: list[str]) -> None:
        if self.options.stop_after:
            lines = lines[: self.options.stop_after]
        extra_after_start: list[str] = []
        if self.options.queue_on_prompt:
            self.steering, self.follow_up = ["Actually, be brief."], ["Then summarize."]
            extra_after_start.append(
                json.dumps({"type": "queue_update", "steering": self.steering, "followUp": self.follow_up})
            )
        if self.options.ui_on_prompt:
            extra_after_start += [
                line for line in Path(self.options.ui_on_prompt).read_text().split("\n") if line.strip()
            ]
        sent = 0
        for line in lines:
            if self.stop_replay.is_set():
                return
            self.track(line)
            self.write_line(line)
            if extra_after_start and '"agent_start"' in line:
                for extra in extra_after_start:
                    self.write_line(extra)
                extra_after_start = []
            sent += 1
            if self.rate is not None and sent % self.rate[0] == 0:
                if self.stop_replay.wait(self.rate[1]):
                    return

    # --- commands --------------------------------------------------------------------------

    def handle(self, command: dict[str, Any]) -> None:
        kind = command.get("type")
        if kind in self.answers:
            usual, data = self.answers[kind]
            if not usual:
                self.respond(command, data)
                return
            self.answers[kind] = (usual - 1, data)
        if kind == "get_state":
            self.state_released.wait()
            self.respond(command, {
                "model": MODEL, "thinkingLevel": "medium", "isStreaming": self.running, "isCompacting": False,
                "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
                "sessionId": SESSION_ID, "autoCompactionEnabled": True,
                **({"sessionFile": self.options.session or self.options.session_file}
                   if self.options.session or self.options.session_file else {}),
                "messageCount": len(self.messages),
                "pendingMessageCount": len(self.steering) + len(self.follow_up),
            })
        elif kind == "get_messages" and self.options.hold_messages:
            line = json.dumps({"id": command.get("id"), "type": "response", "command": kind, "success": True,
                               "data": {"messages": self.messages}}, separators=(",", ":")).encode() + b"\n"
            self.write_bytes(line[: len(line) // 2])
            self.messages_released.wait()
            self.write_bytes(line[len(line) // 2 :])
        elif kind == "get_messages":
            self.respond(command, {"messages": self.messages})
        elif kind == "get_session_stats":
            self.respond(command, {
                "sessionId": SESSION_ID, "userMessages": 1, "assistantMessages": 1, "toolCalls": 0,
                "toolResults": 0, "totalMessages": 2,
                "tokens": {"input": 240, "output": 21, "cacheRead": 0, "cacheWrite": 0, "total": 261},
                "cost": 0.000324, "contextUsage": {"tokens": 130, "contextWindow": 128000, "percent": 0.1015625},
            })
        elif kind == "get_commands":
            self.respond(command, {"commands": [{
                "name": "review", "description": "Review the staged changes", "source": "prompt",
                "sourceInfo": {"path": "/tmp/agent/prompts/review.md", "source": "auto", "scope": "user",
                               "origin": "top-level"},
            }]})
        elif kind == "prompt":
            if self.running:
                behavior = command.get("streamingBehavior")
                if behavior is None:
                    self.respond(command, success=False, error=(
                        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') "
                        "to queue the message."))
                    return
                (self.steering if behavior == "steer" else self.follow_up).append(command.get("message", ""))
                self.queue_update()
                self.respond(command, {"disposition": "queued"})
                return
            self.respond(command, {"disposition": "started"})
            self.start_replay()
        elif kind in ("steer", "follow_up"):
            (self.steering if kind == "steer" else self.follow_up).append(command.get("message", ""))
            self.queue_update()
            self.respond(command, {"disposition": "queued"})
        elif kind == "clear_queue":
            steering, follow_up = self.steering, self.follow_up
            self.steering, self.follow_up = [], []
            self.queue_update()
            self.respond(command, {"steering": steering, "followUp": follow_up})
        elif kind == "abort":
            self.abort()
            self.respond(command)
        elif kind == "bash":
            text = command.get("command", "")
            output = self.options.bash_output if self.options.bash_output is not None else f"fake output of {text}\n"
            self.emit({"type": "bash_execution_update", "id": command.get("id"), "delta": output})
            self.respond(command, {"output": output, "exitCode": 0, "cancelled": False, "truncated": False})
        elif kind == "new_session":
            self.respond(command, {"cancelled": False})
        elif kind == "extension_ui_response":
            pass  # as pi: an answer gets no response
        elif kind == "get_available_models":
            self.respond(command, {"models": [MODEL, MINI_MODEL]})
        else:
            self.respond(command)

    def start_replay(self) -> None:
        self.stop_replay.clear()
        self.running = True
        self.replay_thread = threading.Thread(
            target=self.replay, args=(stream_events(self.options.stream),), daemon=True
        )
        self.replay_thread.start()

    def abort(self) -> None:
        self.stop_replay.set()
        if self.replay_thread is not None:
            self.replay_thread.join(timeout=5)
        if not self.running:
            return
        self.running = False
        message = dict(self.assistant or {
            "role": "assistant", "content": [], "api": "openai-completions", "provider": "scripted",
            "model": "scripted-demo", "timestamp": 1795952831955,
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        })
        message.update(
            content=[{"type": "text", "text": self.assistant_text}] if self.assistant_text else [],
            stopReason="aborted", errorMessage="Request was aborted", responseId="chatcmpl-scripted",
        )
        self.assistant = None
        self.emit({"type": "message_end", "message": message})
        self.emit({"type": "turn_end", "message": message, "toolResults": []})
        self.emit({"type": "agent_end", "messages": [message]})
        self.emit({"type": "agent_settled", "aborted": True})

    # --- loops -----------------------------------------------------------------------------

    def poll_control(self, path: str) -> None:
        position = 0
        pending = b""
        while True:
            try:
                with open(path, "rb") as handle:
                    handle.seek(position)
                    chunk = handle.read()
                    position = handle.tell()
            except FileNotFoundError:
                chunk = b""
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.startswith(b"#fake:"):
                    self.directive(line[6:].decode().split())
                elif line:
                    self.track(line.decode("utf-8", "replace"))
                    self.write_bytes(line + b"\n")
            time.sleep(0.01)

    def write_bytes(self, data: bytes) -> None:
        with self.lock:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def directive(self, words: list[str]) -> None:
        if words[0] == "close-stdout":
            with self.lock:
                sys.stdout.flush()
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        elif words[0] == "stderr":
            count, width = int(words[1]), int(words[2])
            for index in range(count):
                sys.stderr.write(f"stderr flood {index:07d} {'.' * width}\n")
            sys.stderr.flush()
        elif words[0] == "bigline":
            size = int(words[1])
            if words[2] == "json":
                head = b'{"type":"mystery_event","blob":"'
                self.write_bytes(head + b"x" * max(0, size - len(head) - 2) + b'"}\n')
            else:
                noise = bytes(range(256)).replace(b"\n", b"")
                self.write_bytes((noise * (size // len(noise) + 1))[:size] + b"\n")
        elif words[0] == "release-state":
            self.state_released.set()
        elif words[0] == "release-messages":
            self.messages_released.set()

    def run(self) -> int:
        if self.options.control:
            threading.Thread(target=self.poll_control, args=(self.options.control,), daemon=True).start()
        for raw in sys.stdin:
            line = raw.strip()
            if not line:
                continue
            try:
                command = json.loads(line)
            except ValueError:
                self.emit({"type": "response", "command": "parse", "success": False,
                           "error": "Failed to parse command"})
                continue
            if self.log is not None:
                self.log.write(json.dumps(command) + "\n")
                self.log.flush()
            self.handle(command)
        return 0


def main() -> int:
    options = _arg(argparse.ArgumentParser(description=__doc__))
    if options.exit is not None:
        time.sleep(options.exit_delay)
        if options.stderr:
            sys.stderr.write(options.stderr if options.stderr.endswith("\n") else options.stderr + "\n")
            sys.stderr.flush()
        return options.exit
    return FakePi(options).run()


if __name__ == "__main__":
    sys.exit(main())
