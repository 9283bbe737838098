"""Run the benchmarks and print one table.

    python -m benchmarks                     # every module in this package with a run()
    python -m benchmarks decode_throughput   # only some
    python -m benchmarks --list

A benchmark module is any module of this package (not starting with "_", not
`table`) that defines `run() -> list[benchmarks.table.Row]`. New modules are found
automatically. A module that fails to import or run is reported on stderr, the others
still run, and the exit status is 1. Benchmarks print numbers; nothing asserts on time.
They run with a state folder of their own (XDG_STATE_HOME), as the tests do: the user's
saved desks, checkpoints and protocol log are never touched; and a holder folder of their
own (XDG_RUNTIME_DIR): the user's held pis are never seen.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from types import ModuleType

import benchmarks
from benchmarks.table import Row, format_markdown, format_table

NOT_BENCHMARKS = {"table"}


def discover(failed: dict[str, str] | None = None) -> dict[str, ModuleType]:
    """Benchmark modules by name, sorted; modules without a callable `run` are skipped.

    A module that cannot be imported is left out and its traceback put in `failed`.
    """
    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in NOT_BENCHMARKS:
            continue
        try:
            module = importlib.import_module(f"benchmarks.{info.name}")
        except Exception:
            if failed is not None:
                failed[info.name] = traceback.format_exc()
            continue
        if callable(getattr(module, "run", None)):
            found[info.name] = module
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description="Run pideck's benchmarks.")
    parser.add_argument("names", nargs="*", help="benchmark modules to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the benchmark modules and exit")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown (as in benchmarks/README.md)")
    options = parser.parse_args(argv)
    failed: dict[str, str] = {}
    modules = discover(failed)
    if options.list:
        for name, module in modules.items():
            summary = (module.__doc__ or "").strip().splitlines()
            print(f"{name}: {summary[0] if summary else ''}")
        return 0
    unknown = [name for name in options.names if name not in modules and name not in failed]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(modules)}")
    if options.names:
        failed = {name: error for name, error in failed.items() if name in options.names}
    selected = [name for name in options.names or list(modules) if name in modules]
    with tempfile.TemporaryDirectory(prefix="pideck-bench-state-") as state, \
            tempfile.TemporaryDirectory(prefix="pideck-bench-run-") as runtime:
        os.environ["XDG_STATE_HOME"] = state  # (the pidecks and pis they start inherit it)
        os.environ["XDG_RUNTIME_DIR"] = runtime  # (a holder's folder: protocol/hold/place.py)
        return _run(modules, selected, failed, options.markdown)


def _run(modules: dict[str, ModuleType], selected: list[str], failed: dict[str, str], markdown: bool) -> int:
    results: list[tuple[str, Row]] = []
    for name in selected:
        run: Callable[[], list[Row]] = modules[name].run
        print(f"running {name}...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        try:
            rows = run()
        except Exception:
            failed[name] = traceback.format_exc()
            continue
        print(f"  {name}: {time.perf_counter() - started:.1f}s", file=sys.stderr, flush=True)
        results.extend((name, row) for row in rows)
    for name, error in failed.items():
        print(f"benchmark {name} failed:\n{error}", file=sys.stderr)
    print(format_markdown(results) if markdown else format_table(results))
    if failed:
        print(f"failed: {', '.join(failed)} (see stderr)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
