"""What reverting on pi's host costs (app/pi/remote_files.py), through OpenSSH's sshd on
127.0.0.1 (the test server, tests/remote/conftest.py): putting the checkpoint extension
there before pi starts, reading one file and fifty at once, writing one, each against a
bare `ssh HOST true` in the same run (the connection alone). Medians of five.
"""

from __future__ import annotations

import itertools
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.pi.checkpoint_launch import EXTENSION
from app.pi.remote_files import RemoteFiles, content_name, ssh_login
from benchmarks.table import Row

RUNS = 5


def _median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run() -> list[Row]:
    from tests.remote.conftest import SSH, SSHD, SshServer

    if SSHD is None or SSH is None:
        raise RuntimeError("OpenSSH's sshd is not installed (apt-get install openssh-server)")
    root = Path(tempfile.mkdtemp(prefix="pideck-bench-remote-"))
    server = SshServer(root).start()
    try:
        files = RemoteFiles(ssh_login(server.ssh()), "127.0.0.1")
        for n in range(50):
            (root / f"file {n}.txt").write_bytes(os.urandom(2048).hex().encode())
        paths = [str(root / f"file {n}.txt") for n in range(50)]
        data = EXTENSION.read_bytes()
        connection = _median_ms(lambda: subprocess.run([*server.ssh(), "true"], check=True))
        install = _median_ms(lambda: files.install(content_name(data, "checkpoints", ".ts"), data))
        one = _median_ms(lambda: files.read(paths[0], 1 << 20))
        many = _median_ms(lambda: files.read_many(paths, 1 << 20))
        names = (str(root / f"written {n}.txt") for n in itertools.count())  # each new: it must be absent
        write = _median_ms(lambda: files.write(next(names), b"x" * 4096, None))
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    reference = "ssh HOST true"
    return [
        Row("put the extension on the host (before pi starts)", install, "ms", reference, connection),
        Row("read one 4 KB file", one, "ms", reference, connection),
        Row("read fifty 4 KB files in one call", many, "ms", reference, connection),
        Row("write one 4 KB file", write, "ms", reference, connection),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table([("remote_files", row) for row in run()]))
