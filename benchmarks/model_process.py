"""The scripted model in a process of its own, for benchmarks.

A real provider is never inside pideck's process. Served from a thread of the
benchmark process instead, the model would compete with the app under test for the
GIL, and pi would stream slower inside the app run than in the reference run: the
ratio would then measure that contention, not pideck.

The child (`python -m benchmarks.model_process`) prints its port, then reads one
JSON command per line on stdin: `{"queue": [deltas, delay]}`, `{"reset": true}`.
"""

from __future__ import annotations

import json
import subprocess
import sys

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

    def stop(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()


def serve() -> None:
    model = ScriptedModel().start()
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
    finally:
        model.stop()


if __name__ == "__main__":
    serve()
