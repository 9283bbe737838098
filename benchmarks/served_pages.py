"""Pages of `pideck serve --attach` (app/cli/serve.py): what each page's pideck costs while a held
run streams, and that it ends with its page.

In a holder folder of the benchmark's own, the real pi on the scripted model streams a paced
reply, held with no window (a held client starts the run, then detaches); `pideck serve
--attach` serves it, and the system's headless Chromium opens and closes PAGES pages of
different sizes, one after another. For each page's pideck:

* the time from the page's load to its first frame of the run, its resident memory then and
  just before its close, its CPU while the run streams (over SAMPLE s), and the time from the
  page's close to its pideck's end (goal: every page draws, under 200 MB, gone in seconds);
* once the run is over, a page's CPU over SAMPLE s with nothing changing (goal: ~0).

Reference, in the same run: a page of `pideck serve --no-hold` (a pideck with a pi of its
own, idle), its first frame, memory and idle CPU.

Run: `python -m benchmarks served_pages`.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import harness as h
from benchmarks.hold import cpu_seconds
from benchmarks.table import Row

PAGES = 10
SAMPLE = 2.0  # seconds over which a page's CPU is measured
SETTLE = 5.0  # seconds after the run's end before a page is idle
SIZES = [(1200, 800), (400, 800), (800, 600), (390, 844), (1000, 400)]
CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _page_pideck(server: int, before: set[int]) -> int | None:
    return next((pid for pid in _children(server) if pid not in before), None)


class Server:
    """`pideck serve ARGS --port 0` with `env`, until stopped."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", "0", *args], cwd=ROOT,
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                            env=env, start_new_session=True)
        deadline = time.monotonic() + 60
        while not (found := re.search(r"serving on (http://\S+)", log.read_text(errors="replace"))):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"pideck serve did not start: {log.read_text(errors='replace')}")
            time.sleep(0.1)
        self.url = found.group(1)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


async def _page(browser: Any, server: Server, size: tuple[int, int], token: str, close: bool = True) -> dict[str, float]:
    """A page of `server` at `size`: its pideck's figures; closed at the end unless not `close`."""
    received: list[bytes] = []
    context = await browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = await context.new_page()
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(f if isinstance(f, bytes) else f.encode())))
    before = set(_children(server.process.pid))
    started = time.perf_counter()
    await page.goto(server.url, timeout=60_000)
    while token.encode() not in b"".join(received):
        if time.perf_counter() - started > 60:
            raise RuntimeError(f"a page at {size} drew nothing in 60 s")
        await asyncio.sleep(0.02)
    drawn = time.perf_counter() - started
    pid = _page_pideck(server.process.pid, before)
    assert pid is not None, "the page's pideck"
    figures = {"drawn": drawn, "rss": rss_mb(pid), "pid": float(pid)}
    used = cpu_seconds(pid)
    await asyncio.sleep(SAMPLE)
    figures["cpu"] = (cpu_seconds(pid) - used) / SAMPLE
    figures["rss_end"] = rss_mb(pid)
    if close:
        closed = time.perf_counter()
        await context.close()
        while Path(f"/proc/{pid}").exists() and b"app" in Path(f"/proc/{pid}/cmdline").read_bytes():
            if time.perf_counter() - closed > 60:
                raise RuntimeError("a closed page's pideck ran on for 60 s")
            await asyncio.sleep(0.02)
        figures["ended"] = time.perf_counter() - closed
    else:
        figures["context"] = context  # type: ignore[assignment]
    return figures


async def measure(pages: int = PAGES) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from app.scripted_model.agent_dir import pi_model_args
    from app.scripted_model.server import Reply
    from protocol.hold.ask import ask, held
    from protocol.hold.held_link import held_client
    from protocol.wire.commands import GetState, Prompt

    runtime = tempfile.mkdtemp(prefix="pideck-bench-run-")
    work = Path(tempfile.mkdtemp(prefix="pideck-bench-serve-"))
    previous = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    env = dict(os.environ)
    try:
        async with h.real_pi() as pi, async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            server_env = {**env, **pi.env, "PYTHONPATH": str(ROOT)}
            own = Server(["--no-hold", "--pi", shlex.join(pi.runtime.argv), "--", *pi_model_args(), "--no-session"],
                         server_env, work / "own.log")
            try:
                reference = await _page(browser, own, SIZES[0], "ready")
                await asyncio.sleep(1.0)  # its start-up over
            finally:
                own.stop()
            client = held_client(pi.argv, holder_env=env, env=pi.env, cwd=pi.cwd)
            await client.start()
            await client.call(GetState(), timeout=60)
            pi.model.queue(Reply(deltas=h.long_reply_deltas(30_000, "served"), delay=0.004))
            await client.call(Prompt(message="stream"))
            client.detach()
            server = Server(["--attach"], server_env, work / "attach.log")
            try:
                figures = [await _page(browser, server, SIZES[n % len(SIZES)], "Section") for n in range(pages)]
                streaming = any(p.get("state") == "working" for p in held(env))
                last = await _page(browser, server, SIZES[0], "Section", close=False)
                deadline = time.monotonic() + 600
                while any(p.get("state") == "working" for p in held(env)) and time.monotonic() < deadline:
                    await asyncio.sleep(0.5)
                await asyncio.sleep(SETTLE)  # the end of the run drawn (a long reply: its last markdown laid out)
                pid = int(last["pid"])
                used = cpu_seconds(pid)
                await asyncio.sleep(SAMPLE)
                idle = (cpu_seconds(pid) - used) / SAMPLE
                idle_rss = rss_mb(pid)
                await last["context"].close()  # type: ignore[attr-defined]
            finally:
                server.stop()
                ask({"op": "stop", "all": True}, env, timeout=60)
            await browser.close()
    finally:
        if previous is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = previous
    return {"pages": figures, "reference": reference, "idle": idle, "idle_rss": idle_rss, "streaming": streaming}


def run() -> list[Row]:
    result = asyncio.run(measure())
    pages, ref = result["pages"], result["reference"]
    n = len(pages)
    during = "while the run streams" if result["streaming"] else "(the run ended before the last page)"
    return [
        Row(f"serve --attach, {n} pages: load -> first frame of the run (median)",
            h.median([p["drawn"] for p in pages]) * 1000, "ms", "serve --no-hold page: load -> first frame",
            ref["drawn"] * 1000),
        Row(f"serve --attach, {n} pages: page pideck memory, largest", max(max(p["rss"], p["rss_end"]) for p in pages),
            "MB", "serve --no-hold page's pideck", ref["rss_end"]),
        Row(f"serve --attach, {n} pages: page pideck CPU {during} (median)",
            h.median([p["cpu"] for p in pages]) * 100, "% of a core"),
        Row(f"serve --attach, {n} pages: close -> its pideck ended, largest", max(p["ended"] for p in pages) * 1000,
            "ms", "serve --no-hold page: close -> its pideck ended", ref["ended"] * 1000),
        Row(f"serve --attach: a page's pideck CPU, run over, nothing changing ({SAMPLE:g} s)", result["idle"] * 100,
            "% of a core", "serve --no-hold page, idle", ref["cpu"] * 100),
        Row("serve --attach: a page's pideck memory once the run is over", result["idle_rss"], "MB",
            "serve --no-hold page's pideck", ref["rss_end"]),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("served_pages", row) for row in run()))
