"""pi is started before pideck imports its UI, so the two start side by side, and the app
runs on the loop that started it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from tests.load import out_of_time
from tests.pi_harness import FAKE_PI, ROOT

# Runs pideck's command line; when the App's module is about to be imported, it prints how
# many children this process has then, and leaves at once (the child sees its stdin close).
WATCHED_START = f"""
import os, sys

def children() -> int:
    count = 0
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{{entry}}/stat").read() if entry.isdigit() else ""
        except OSError:
            continue
        count += bool(stat) and stat.rsplit(")", 1)[1].split()[1] == str(os.getpid())
    return count

class Watch:
    def find_spec(self, name, path, target=None):
        if name == "app.pideck_app":
            print(f"children when the UI is imported: {{children()}}", flush=True)
            os._exit(0)

sys.meta_path.insert(0, Watch())
from app.cli.pideck import main
main(["--pi", "{sys.executable} {FAKE_PI}", "--protocol-log", os.devnull])
"""


def test_pi_runs_before_the_ui_is_imported() -> None:
    master, slave = pty.openpty()  # pideck runs in a terminal only
    process = subprocess.Popen([sys.executable, "-c", WATCHED_START], stdin=slave, stdout=slave, stderr=slave,
                               cwd=ROOT, start_new_session=True)
    os.close(slave)
    output = b""
    started = time.monotonic()
    try:
        while not out_of_time(started, 60):  # until the process is gone and the terminal with it
            if select.select([master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
        assert process.wait(30) == 0, output
    finally:
        process.kill()
        os.close(master)
    assert b"children when the UI is imported: 1" in output, output
