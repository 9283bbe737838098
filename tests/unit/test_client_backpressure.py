"""A busy pideck never stalls pi: pi's stdout pipe holds a flood while the loop draws."""

from __future__ import annotations

import asyncio
import fcntl
import sys
import time
from pathlib import Path

from protocol.wire.spawn import PIPE_SIZE
from protocol.wire.local_link import local_client
from protocol.wire.events import AgentStart

# Says it is up, waits for a line on stdin, writes `count` agent_start records
# (~600 KB) as fast as it can, then notes the time.
FLOOD = """
import sys, time
line = b'{"type":"agent_start","pad":"' + b"x" * 580 + b'"}\\n'
sys.stdout.buffer.write(line)
sys.stdout.buffer.flush()
sys.stdin.readline()
sys.stdout.buffer.write(line * (int(sys.argv[1]) - 1))
sys.stdout.buffer.flush()
open(sys.argv[2], "w").write(repr(time.time()))
time.sleep(30)
"""


async def test_stdout_pipe_is_widened() -> None:
    client = local_client([sys.executable, "-c", "import time; time.sleep(30)"])
    await client.start()
    try:
        pipe = client.link.child.popen.stdout  # type: ignore[union-attr]
        assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_SIZE
    finally:
        client.kill()
        await client.close()


async def test_pi_finishes_writing_while_the_loop_is_busy(tmp_path: Path) -> None:
    count = 1000
    done_file = tmp_path / "done"
    client = local_client([sys.executable, "-c", FLOOD, str(count), str(done_file)])
    seen: list[object] = []
    client.add_listener(lambda record: seen.append(record) if isinstance(record, AgentStart) else None)
    await client.start()
    try:
        for _ in range(200):  # the child is up once its first bytes arrive
            if seen:
                break
            await asyncio.sleep(0.02)
        busy_from = time.time()
        assert client.link.child is not None
        client.link.child.stdin.write(b"go\n")  # written at once: the pipe to the child is empty
        time.sleep(1.0)  # the loop is blocked, as by a very slow frame: nothing reads the pipe
        busy_until = time.time()
        for _ in range(500):
            if len(seen) == count:
                break
            await asyncio.sleep(0.01)
        assert len(seen) == count, "records were lost"
        finished = float(done_file.read_text())
        assert busy_from < finished < busy_until, "the child had to wait for pideck's loop to read"
    finally:
        client.kill()
        await client.close()
