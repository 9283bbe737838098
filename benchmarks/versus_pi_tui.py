"""pideck against pi's own interactive TUI, each in a 120x40 pseudo-terminal, in the same run.

Both run the pinned pi on the same agent directory and scripted model (`--no-session`):
pi's TUI as `node cli.js`, pideck as `.venv/bin/pideck --pi <the same command>`. They take
turns, RUNS sessions each (`--runs N`, or PIDECK_BENCH_VERSUS_RUNS). One session: start,
idle, a flood (3,000 deltas as fast as pi sends them), a reply at a model's pace (40 deltas
over 4 s), five one-delta replies (a short answer: what Enter costs before it is on screen;
their median), a reply of two deltas WAIT seconds apart, the first WAIT seconds after Enter
(a slow model, or the spinner while a tool runs: what waiting costs), then the flood and the paced reply over a throttled link. Then each starts again
on a long session (`--session`, a copy of a file of LONG_TURNS turns of a question, a tool call,
its few KB of output and an answer: 400 messages) and answers five one-delta replies there.
After each pair, a bare Textual app (benchmarks/_bare_textual.py: one Static) starts in the same
pty and shows the same paced reply and one-token replies without pi or a model: the floor
Textual itself sets under pideck, beside what pi's TUI leaves pideck. Measured, medians, pideck / pi:

* start-up: from starting the program until the model's name is in its terminal output;
* idle: bytes written to the terminal per second when nothing changes;
* per reply: CPU seconds of the whole process tree (user + system from /proc, every
  descendant, exited ones through their parent's cutime/cstime) from Enter until the
  output is quiet, and of it pi's process (pideck's pi child, against pi's TUI) and
  pideck's own (against what pi's TUI used less that child: pideck's share of the budget); bytes written from Enter until the last token; bytes after the last
  token until quiet; seconds from Enter until the last token is in the output;
* the long session: the one-delta replies' CPU and Enter -> last token, as above;
* throttled link (1 Mbit/s, 50 ms each way, relayed by this process): seconds from the
  model's last delta until the last token reaches the far end. Backpressure reaches the
  program through the pty, as over ssh.

The pty answers the terminal queries either program sends (device attributes, cursor
position, OSC 10/11/4 colours, the kitty keyboard query, DECRQM modes, cell size,
XTVERSION) the same way for both. Text is found in the output with SGR sequences removed.

Run: `python -m benchmarks versus_pi_tui` or `python -m benchmarks.versus_pi_tui --runs 5`.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from app.runtime import ensure_runtime
from app.scripted_model.agent_dir import MODEL_ID, pi_model_args, write_agent_dir
from app.scripted_model.server import Reply
from benchmarks import harness as h
from benchmarks._bare_textual import READY, token
from benchmarks.large_session import LAST, write_session
from benchmarks.model_process import ModelProcess
from benchmarks.table import Row

RUNS = 3
COLUMNS, LINES = h.SIZE
FLOOD = 3000
PACED = 40
PACED_DELAY = 0.1  # 40 deltas over 4 s
SHORTS = 5  # one-delta replies a session, their median
LONG_TURNS = 100  # turns of the long session (4 messages each)
WAIT = 6.0  # seconds before each of the two deltas of the reply that waits
QUIET = 1.0  # seconds without output that count as quiet
IDLE = 3.0  # seconds of idling measured
LINK_BYTES_PER_SECOND = 1_000_000 / 8
LINK_LATENCY = 0.05  # each way
PIDECK = Path(sys.executable).with_name("pideck")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SGR = re.compile(rb"\x1b\[[0-9;:]*m")

# --- the terminal's answers ----------------------------------------------------------------

ST = b"\x1b\\"
ANSWERS: tuple[tuple[re.Pattern[bytes], Callable[[re.Match[bytes]], bytes]], ...] = (
    (re.compile(rb"\x1b\[0?c"), lambda m: b"\x1b[?62;22c"),
    (re.compile(rb"\x1b\[>0?c"), lambda m: b"\x1b[>1;10;0c"),
    (re.compile(rb"\x1b\[6n"), lambda m: f"\x1b[{LINES};1R".encode()),
    (re.compile(rb"\x1b\]10;\?(?:\x07|\x1b\\)"), lambda m: b"\x1b]10;rgb:d0d0/d0d0/d0d0" + ST),
    (re.compile(rb"\x1b\]11;\?(?:\x07|\x1b\\)"), lambda m: b"\x1b]11;rgb:1c1c/1c1c/1c1c" + ST),
    (re.compile(rb"\x1b\]4;(\d+);\?(?:\x07|\x1b\\)"), lambda m: b"\x1b]4;" + m[1] + b";rgb:8080/8080/8080" + ST),
    (re.compile(rb"\x1b\[\?u"), lambda m: b"\x1b[?0u"),
    (re.compile(rb"\x1b\[\?(\d+)\$p"), lambda m: b"\x1b[?" + m[1] + (b";2$y" if m[1] == b"2026" else b";0$y")),
    (re.compile(rb"\x1b\[16t"), lambda m: b"\x1b[6;20;10t"),
    (re.compile(rb"\x1b\[14t"), lambda m: f"\x1b[4;{LINES * 20};{COLUMNS * 10}t".encode()),
    (re.compile(rb"\x1b\[18t"), lambda m: f"\x1b[8;{LINES};{COLUMNS}t".encode()),
    (re.compile(rb"\x1b\[>0?q"), lambda m: b"\x1bP>|benchmark-terminal 1" + ST),
)


def answers(data: bytes, skip: int) -> bytes:
    """The replies to every query in `data` that ends after its first `skip` bytes."""
    found: list[tuple[int, bytes]] = []
    for pattern, answer in ANSWERS:
        found += [(m.start(), answer(m)) for m in pattern.finditer(data) if m.end() > skip]
    return b"".join(reply for _, reply in sorted(found))


# --- a process tree's CPU ------------------------------------------------------------------


def tree_cpu(root: int) -> tuple[float, float]:
    """CPU seconds (user + system) of `root` and its live descendants, with the children
    each has reaped (cutime, cstime): constant when nothing runs, whatever exits; and of
    `root` alone, its children left out."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    own = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(value) for value in fields[11:15])
        if pid == root:
            own = int(fields[11]) + int(fields[12])
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += ticks.get(pid, 0)
        stack += children.get(pid, [])
    return total / CLOCK_TICKS, own / CLOCK_TICKS


# --- a pseudo-terminal ---------------------------------------------------------------------


@dataclass
class Terminal:
    """A program in a pty: a reader thread keeps its output with arrival times and answers
    its queries. While `throttled` the reader is a 1 Mbit/s, 50 ms link: it reads only what
    the link can take (the rest waits in the pty) and output arrives at the far end later."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    output: bytearray = field(default_factory=bytearray)
    arrivals: list[tuple[float, int]] = field(default_factory=list)  # (time at the far end, output length then)
    throttled: bool = False

    def __post_init__(self) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            ["setsid", "--ctty", *self.argv], stdin=slave, stdout=slave, stderr=slave,
            env=self.env, cwd=self.cwd, close_fds=True,
        )  # setsid execs the program (no fork: it is no group leader), which leads its own session
        os.close(slave)
        self._lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        carry = b""
        link_free = 0.0
        while not self._closed:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096 if self.throttled else 65536)
            except OSError:
                return
            now = time.monotonic()
            if self.throttled:
                link_free = max(now, link_free) + len(data) / LINK_BYTES_PER_SECOND
                arrival = link_free + LINK_LATENCY
            else:
                arrival = now
            with self._lock:
                self.output += data
                self.arrivals.append((arrival, len(self.output)))
            if reply := answers(carry + data, len(carry)):
                self.write(reply)
            carry = (carry + data)[-64:]
            if self.throttled and (wait := link_free - time.monotonic()) > 0:
                time.sleep(wait)  # the link is busy: the pty buffer fills, the program waits

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def press(self, data: bytes) -> None:
        """Keys typed at the far end: they reach the program LINK_LATENCY later when throttled."""
        if self.throttled:
            time.sleep(LINK_LATENCY)
        self.write(data)

    @property
    def length(self) -> int:
        with self._lock:
            return len(self.output)

    def text(self, start: int = 0) -> bytes:
        with self._lock:
            return SGR.sub(b"", bytes(self.output[start:]))

    def wait_for(self, needle: str, start: int = 0, timeout: float = 120.0) -> tuple[float, int]:
        """(when, output length) once `needle` is in the output after `start`, at the far end."""
        target = needle.encode()
        deadline = time.monotonic() + timeout
        checked, seen = 0, start  # arrivals looked at, and the output length they reached
        while time.monotonic() < deadline:
            with self._lock:
                arrivals = self.arrivals[checked:]
                output = bytes(self.output)
            for arrival, length in arrivals:
                checked += 1
                if length <= start:
                    continue
                window = output[max(start, seen - len(target) - 256) : length]  # a match may span two reads
                seen = length
                if target in SGR.sub(b"", window):
                    while arrival > time.monotonic():
                        time.sleep(arrival - time.monotonic())
                    return arrival, length
            time.sleep(0.01)
        raise TimeoutError(f"{needle!r} not in the output of {shlex.join(self.argv[:2])} within {timeout}s; "
                           f"its end: {self.text()[-400:]!r}")

    def wait_quiet(self, quiet: float = QUIET, timeout: float = 5.0) -> float:
        """When the output fell quiet (the last write before `quiet` seconds without one), or
        the time of the last write when `timeout` passed without such a pause."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                last = self.arrivals[-1][0] if self.arrivals else self.started
            now = time.monotonic()
            if now - last >= quiet or now > deadline:
                return last
            time.sleep(0.02)

    def bytes_between(self, start: float, end: float) -> int:
        """Bytes that arrived in (start, end]."""
        with self._lock:
            arrivals = list(self.arrivals)
        before = [length for arrival, length in arrivals if arrival <= start]
        upto = [length for arrival, length in arrivals if arrival <= end]
        return (upto[-1] if upto else 0) - (before[-1] if before else 0)

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
        self._closed = True
        self._reader.join(2)
        os.close(self.master)


# --- one session ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """What one session streams: the flood's and the paced reply's deltas, how many short replies, and the waits."""

    flood: int = FLOOD
    paced: int = PACED
    shorts: int = SHORTS
    paced_delay: float = PACED_DELAY
    idle: float = IDLE
    quiet: float = QUIET
    throttled: bool = True
    long_turns: int = LONG_TURNS  # 0: no long session
    wait: float = WAIT  # 0: no reply that waits


def reply(model: ModelProcess, deltas: tuple[str, ...], delay: float) -> None:
    model.reset()
    model.queue(Reply(deltas=deltas, delay=delay))


def paced_deltas(count: int, tag: str) -> tuple[str, ...]:
    return (*(f"word{i} " for i in range(count - 1)), f"The end {h.last_token(tag)}")


def one_reply(term: Terminal, model: ModelProcess, deltas: tuple[str, ...], delay: float, tag: str,
              quiet: float) -> dict[str, float]:
    reply(model, deltas, delay)
    term.press(f"Reply {tag}".encode())
    term.wait_for(f"Reply {tag}", timeout=30)
    term.wait_quiet(0.3, timeout=3)
    before = term.length
    cpu, own = tree_cpu(term.process.pid)
    entered = time.monotonic()
    term.press(b"\r")
    arrived, length = term.wait_for(h.last_token(tag), before)
    quiet_from = term.wait_quiet(quiet)
    cpu_after, own_after = tree_cpu(term.process.pid)
    cpu, own = round(cpu_after - cpu, 6), round(own_after - own, 6)  # (whole ticks: a tree's equal to its process's compares so)
    model_done = model.last_sent()
    return {
        "cpu": cpu,
        "own cpu": own,  # the program's process: pi's TUI, or pideck (whose pi child is the rest)
        "bytes": length - before,
        "after": term.bytes_between(arrived, quiet_from),
        "to_token": arrived - entered,
        "from_model": arrived - model_done,
    }


def long_session(name: str, argv: list[str], env: dict[str, str], cwd: Path, model: ModelProcess, run: int,
                 shape: Shape) -> dict[str, float]:
    """The one-delta replies' figures in a long session (`argv` opens a copy of it)."""
    term = Terminal(argv, env, cwd)
    try:
        term.wait_for(LAST, timeout=120)  # its last answer on screen
        term.wait_quiet(shape.quiet)
        replies = [one_reply(term, model, paced_deltas(1, tag), 0.0, tag, shape.quiet)
                   for tag in (f"{name}{run}long{i}" for i in range(shape.shorts))]
        return {f"long short {key}": h.median([reply[key] for reply in replies]) for key in ("cpu", "own cpu", "to_token")}
    finally:
        term.close()


def session(name: str, argv: list[str], env: dict[str, str], cwd: Path, model: ModelProcess, run: int,
            shape: Shape) -> dict[str, float]:
    term = Terminal(argv, env, cwd)
    try:
        seen, _ = term.wait_for(MODEL_ID, timeout=120)
        result = {"startup": seen - term.started}
        settled = term.wait_quiet(shape.quiet)
        start = max(settled, time.monotonic())
        time.sleep(shape.idle)
        result["idle"] = term.bytes_between(start, time.monotonic()) / shape.idle
        for link in ("direct", "throttled") if shape.throttled else ("direct",):
            term.throttled = link == "throttled"
            kinds = ("flood", "paced", "short", *(("wait",) if shape.wait else ()))
            for kind in kinds if link == "direct" else ("flood", "paced"):
                tag = f"{name}{run}{kind}{link}"
                if kind == "flood":
                    plays = [(h.long_reply_deltas(shape.flood, tag), 0.0, tag)]
                elif kind == "paced":
                    plays = [(paced_deltas(shape.paced, tag), shape.paced_delay, tag)]
                elif kind == "wait":
                    plays = [(("A first word, ", f"then {h.last_token(tag)}"), shape.wait, tag)]
                else:  # several: pi itself takes 0.1 s more now and then (its GC), a short reply 0.01 s
                    plays = [(paced_deltas(1, f"{tag}{i}"), 0.0, f"{tag}{i}") for i in range(shape.shorts)]
                replies = [one_reply(term, model, deltas, delay, each, shape.quiet) for deltas, delay, each in plays]
                for key in replies[0]:
                    result[f"{link} {kind} {key}"] = h.median([reply[key] for reply in replies])
        return result
    finally:
        term.close()


BARE_APP = Path(__file__).with_name("_bare_textual.py")


def bare_session(env: dict[str, str], cwd: Path, shape: Shape) -> dict[str, float]:
    """The bare Textual app's start-up, the CPU of the paced reply's words drawn one by one,
    and its one-token replies' CPU and key -> token."""
    term = Terminal([sys.executable, str(BARE_APP), "--paced", str(shape.paced), str(shape.paced_delay)], env, cwd)
    try:
        seen, _ = term.wait_for(READY, timeout=60)
        result = {"startup": seen - term.started}
        term.wait_quiet(shape.quiet)
        shown: list[dict[str, float]] = []
        for count, key in enumerate((b"p", *(b"\r",) * shape.shorts), start=1):
            before = term.length
            cpu, _ = tree_cpu(term.process.pid)
            entered = time.monotonic()
            term.press(key)
            arrived, _ = term.wait_for(token(count), before)
            term.wait_quiet(shape.quiet)
            shown.append({"cpu": tree_cpu(term.process.pid)[0] - cpu, "to_token": arrived - entered})
        result["paced cpu"] = shown[0]["cpu"]
        for key in ("cpu", "to_token"):
            result[f"short {key}"] = h.median([reply[key] for reply in shown[1:]])
        return result
    finally:
        term.close()


@contextmanager
def setting() -> Iterator[tuple[list[str], dict[str, str], Path, ModelProcess]]:
    """pi's command, the environment and working directory both programs get, and the model."""
    root = Path(tempfile.mkdtemp(prefix="pideck-versus-"))
    model = ModelProcess()
    try:
        agent = write_agent_dir(root / "agent", model.base_url)
        cwd = root / "work"
        cwd.mkdir()
        env = {key: value for key, value in os.environ.items() if not key.startswith(("PI_", "TEXTUAL", "TMUX"))}
        env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1",
                   TERM="xterm-256color", COLORTERM="truecolor")
        env.pop("NO_COLOR", None)
        yield ensure_runtime().argv, env, cwd, model
    finally:
        model.stop()
        shutil.rmtree(root, ignore_errors=True)


def commands(pi: list[str], cwd: Path, pideck: list[str], session: Path | None = None) -> dict[str, list[str]]:
    """Each program's command: on no session, or on the session file `session`."""
    pi_args = [*pi_model_args(), *(("--session", str(session)) if session is not None else ("--no-session",))]
    return {
        "pi": [*pi, *pi_args],
        "pideck": [*pideck, "--pi", shlex.join(pi), "--cwd", str(cwd), "--protocol-log", os.devnull, "--", *pi_args],
    }


def measure(runs: int = RUNS, shape: Shape = Shape(), pideck: tuple[str, ...] = (str(PIDECK),)) -> dict[str, list[dict[str, float]]]:
    """Each program's sessions, alternating pi's TUI and pideck (`pideck` runs it)."""
    results: dict[str, list[dict[str, float]]] = {"pi": [], "pideck": [], "bare": []}
    h.compiled()
    with setting() as (pi, env, cwd, model):
        programs = commands(pi, cwd, list(pideck))
        original = cwd.parent / "long.jsonl"
        if shape.long_turns:
            write_session(original, 0, cwd, turns=shape.long_turns)
        for run in range(runs):
            for name, argv in programs.items():
                results[name].append(figures := session(name, argv, env, cwd, model, run, shape))
                if shape.long_turns:
                    copy = cwd.parent / f"long-{name}{run}.jsonl"  # pi adds to the file it opens
                    shutil.copyfile(original, copy)
                    figures.update(long_session(name, commands(pi, cwd, list(pideck), copy)[name], env, cwd, model,
                                                run, shape))
            results["bare"].append(bare_session(env, cwd, shape))
    return results


def rows(results: dict[str, list[dict[str, float]]]) -> list[Row]:
    runs = len(results["pideck"])

    def pair(key: str) -> tuple[float, float]:
        return h.median([r[key] for r in results["pideck"]]), h.median([r[key] for r in results["pi"]])

    def row(label: str, key: str, unit: str, scale: float = 1.0) -> Row:
        pideck, pi = pair(key)
        return Row(label, pideck * scale, unit, "pi's TUI", pi * scale, ratio=pideck / pi if pi else None)

    def child_cpu(tree: str, own: str) -> float:
        """pideck's pi child: its tree less its own process."""
        return h.median([r[tree] - r[own] for r in results["pideck"]])

    def own_row(label: str, tree: str, own: str) -> Row:
        pideck_own, pi_tui = h.median([r[own] for r in results["pideck"]]), h.median([r[tree] for r in results["pi"]])
        return Row(f"{label}: CPU of pideck's own process", pideck_own, "s", "pi's TUI less pideck's pi child",
                   max(0.0, round(pi_tui - child_cpu(tree, own), 6)))  # (none where pi's child alone used pi's TUI's or more)

    keys = results["pideck"][0].keys()
    table = [row(f"start -> model name on screen (median of {runs})", "startup", "s"),
             row("idle: bytes to the terminal", "idle", "B/s")]
    names = {"flood": f"{FLOOD:,} deltas at once", "paced": f"{PACED} deltas over {PACED * PACED_DELAY:.0f} s",
             "short": "a one-delta reply"}
    if "direct wait cpu" in keys:
        names["wait"] = f"a reply of two deltas, {WAIT:.0f} s before each"
    for kind, label in names.items():
        tree, own = f"direct {kind} cpu", f"direct {kind} own cpu"
        child, pi_own = child_cpu(tree, own), h.median([r[own] for r in results["pi"]])
        table += [
            row(f"{label}: CPU, whole process tree", tree, "s"),
            Row(f"{label}: CPU of pi's process (pideck's: its pi --mode rpc child)", child, "s", "pi's TUI",
                pi_own, ratio=child / pi_own if pi_own else None),
            own_row(label, tree, own),
            row(f"{label}: bytes to the terminal until the last token", f"direct {kind} bytes", "KB", 1 / 1000),
            row(f"{label}: bytes after the last token", f"direct {kind} after", "KB", 1 / 1000),
            row(f"{label}: Enter -> last token in the output", f"direct {kind} to_token", "s"),
        ]
    if "long short cpu" in keys:
        label = f"a one-delta reply in a session of {LONG_TURNS * 4} messages"
        table += [
            row(f"{label}: CPU, whole process tree", "long short cpu", "s"),
            own_row(label, "long short cpu", "long short own cpu"),
            row(f"{label}: Enter -> last token in the output", "long short to_token", "s"),
        ]
    if results.get("bare"):
        table += bare_rows(results, child_cpu)
    for kind, label in names.items():
        if f"throttled {kind} from_model" in keys:
            table.append(row(f"{label}, 1 Mbit/s 50 ms link: model's last delta -> last token at the far end",
                             f"throttled {kind} from_model", "s"))
    return table


def bare_rows(results: dict[str, list[dict[str, float]]], child_cpu: Callable[[str, str], float]) -> list[Row]:
    """The bare Textual app beside what pi's TUI leaves pideck: its start-up against pi's
    TUI's, its CPU for the paced reply's words against pideck's share of that budget."""
    def bare(key: str) -> float:
        return h.median([r[key] for r in results["bare"]])

    def pi(key: str) -> float:
        return h.median([r[key] for r in results["pi"]])

    paced = f"{PACED} words over {PACED * PACED_DELAY:.0f} s"
    budget = max(0.0, round(pi("direct paced cpu") - child_cpu("direct paced cpu", "direct paced own cpu"), 6))
    return [
        Row("bare Textual app (one Static): start -> first frame", bare("startup"), "s", "pi's TUI: start -> model name",
            pi("startup")),
        Row(f"bare Textual app: {paced}, each drawn: CPU", bare("paced cpu"), "s",
            f"pi's TUI less pideck's pi child, {PACED} deltas", budget),
        Row("bare Textual app: a key -> its token in the output", bare("short to_token"), "s",
            "pi's TUI: a one-delta reply", pi("direct short to_token")),
    ]


def run(runs: int | None = None) -> list[Row]:
    return rows(measure(runs or int(os.environ.get("PIDECK_BENCH_VERSUS_RUNS", RUNS))))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.versus_pi_tui", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS, help=f"sessions of each program (default {RUNS})")
    parser.add_argument("--json", action="store_true", help="print every session's figures as JSON too")
    parser.add_argument("--pideck", metavar="CMD", default=str(PIDECK), help="command that runs pideck (another build)")
    options = parser.parse_args()
    results = measure(options.runs, pideck=tuple(shlex.split(options.pideck)))
    if options.json:
        print(json.dumps(results, indent=1))
    from benchmarks.table import format_table

    print(format_table(("versus_pi_tui", row) for row in rows(results)))


if __name__ == "__main__":
    main()
