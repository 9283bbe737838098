"""The scripted model in a process of its own, for benchmarks.

A real provider is never inside pideck's process. Served from a thread of the
benchmark process instead, the model would compete with the app under test for the
GIL, and pi would stream slower inside the app run than in the reference run: the
ratio would then measure that contention, not pideck.

The child (`python -m benchmarks.model_process`) prints its port, then reads one
JSON command per line on stdin: `{"queue": [deltas, delay]}`, `{"reset": true}`,
`{"last_sent": true}` (it prints the `time.monotonic()` at which it last sent a delta, or 0:
the clock is the machine's, so the benchmark process can compare it with its own).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from app.scripted_model.server import Reply, ScriptedModel


class ModelProcess:
    """`ScriptedModel` run in a child process, driven over its stdin."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.model_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line.strip().isdigit():
            self._process.kill()
            raise RuntimeError(f"the scripted model process did not start (it printed {line!r})")
        self.port = int(line)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _send(self, command: dict[str, object]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(command) + "\n")
        self._process.stdin.flush()

    def queue(self, *replies: Reply) -> None:
        for reply in replies:
            self._send({"queue": [list(reply.deltas), reply.delay]})

    def reset(self) -> None:
        self._send({"reset": True})

    def last_sent(self) -> float:
        """`time.monotonic()` when the model last sent a delta (0: none yet)."""
        self._send({"last_sent": True})
        assert self._process.stdout is not None
        return float(self._process.stdout.readline())

    def stop(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()


class TimedModel(ScriptedModel):
    """Notes when it last wrote a chunk of text (a delta) to pi."""

    last_sent = 0.0

    async def _stream(self, writer: Any, *args: Any) -> None:
        model = self

        class Timed:
            def write(self, data: bytes) -> None:
                writer.write(data)
                if b'"content": "' in data and b'"content": ""' not in data:
                    model.last_sent = time.monotonic()

            def __getattr__(self, name: str) -> Any:
                return getattr(writer, name)

        await super()._stream(Timed(), *args)


def serve() -> None:
    model = TimedModel().start()
    print(model.port, flush=True)
    try:
        for line in sys.stdin:
            command = json.loads(line)
            if "queue" in command:
                deltas, delay = command["queue"]
                model.queue(Reply(deltas=tuple(deltas), delay=delay))
            elif command.get("reset"):
                model.replies.clear()
                model.requests.clear()
            elif command.get("last_sent"):
                print(model.last_sent, flush=True)
    finally:
        model.stop()


if __name__ == "__main__":
    serve()
