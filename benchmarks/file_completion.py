"""`@` completion on a 100,000-file tree: the time to the first candidates.

A tree of 100,000 files in 5,000 folders (a `.gitignore` leaves a tenth of them out) is
written to a temporary folder. Measured: a search of the cached index (the median and the
slowest of a few queries typed a letter at a time, the way the prompt asks, each the best
of 3), the cold case (no listing yet: the prompt shows the folder's entries by prefix while
the index is built), and building the index, by a walk reading the .gitignore files and by `git ls-files` once
the tree is a git work tree; the reference is a plain recursive `os.scandir` walk of the
same tree that only collects the paths.

Run: `python -m benchmarks file_completion`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.table import Row
from widgets.prompt.completion import MAX_CANDIDATES, complete
from protocol.state.file_index import FileIndex, list_entries

FILES = 100_000
PER_FOLDER = 20
QUERIES = ("completion", "srcmodpy", "README", "m12/f3", "zzzz")  # typed a letter at a time


def make_tree(root: Path, files: int = FILES) -> None:
    (root / ".gitignore").write_text("*.tmp\n")
    for number in range(files // PER_FOLDER):
        folder = root / f"pkg{number % 50}" / f"src{number // 50 % 10}" / f"m{number}"
        folder.mkdir(parents=True)
        for index in range(PER_FOLDER):
            suffix = ".tmp" if index % 10 == 9 else ".py"
            (folder / f"f{index}_completion_module{suffix}").touch()


def scandir_walk(root: Path) -> list[str]:
    """Every path under `root`: the plain walk the listing is compared with."""
    found: list[str] = []
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as listing:
            for entry in listing:
                found.append(entry.path)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return found


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def search_times(index: FileIndex) -> list[float]:
    """Each query typed a letter at a time: the best of 3 searches of each (the machine is shared)."""
    return [min(timed(lambda q=query[:length]: index.search(q, MAX_CANDIDATES)) for _ in range(3))
            for query in QUERIES for length in range(1, len(query) + 1)]  # fmt: skip


def run() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="pideck-bench-files-") as folder:
        root = Path(folder)
        make_tree(root)
        walk_ms = min(timed(lambda: scandir_walk(root)) for _ in range(3))
        walked = min(timed(lambda: list_entries(root)) for _ in range(3))
        entries = list_entries(root)
        index_ms = timed(lambda: FileIndex(entries))
        times = search_times(FileIndex(entries))
        cold_ms = max(timed(lambda q=q: complete(q, [], root, lambda query, limit: None))
                      for q in ("@c", "@pkg1/s", "@READ"))  # fmt: skip
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        git_ms = min(timed(lambda: list_entries(root)) for _ in range(3))
    listed = f"{len(entries):,} entries listed"
    reference = "plain os.scandir walk of the tree"
    return [
        Row(f"first candidates, index cached: median of {len(times)} searches", statistics.median(times), "ms",
            reference, walk_ms),
        Row("first candidates, index cached: slowest search", max(times), "ms", reference, walk_ms),
        Row("first candidates, cold (the folder by prefix while the index is built)", cold_ms, "ms",
            reference, walk_ms),
        Row(f"listing by a walk reading .gitignore files ({listed})", walked, "ms", reference, walk_ms),
        Row("listing by git ls-files (the tree a git work tree)", git_ms, "ms", reference, walk_ms),
        Row("building the index from the listing", index_ms, "ms", reference, walk_ms),
        Row(f"{reference} ({FILES:,} files)", walk_ms, "ms"),
    ]  # fmt: skip
