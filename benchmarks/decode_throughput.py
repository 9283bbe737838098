"""Decode throughput: typed `protocol.decode` vs untyped `msgspec.json.decode` vs `json.loads`.

The input is every recorded real-pi stream in tests/fixtures/streams (stdout only),
concatenated and repeated to about 200k records: mostly `message_update` deltas, as in
a real session. Each decoder runs over the whole list; the best of 5 runs counts. The
typed decoder's goal is to be at least as fast as the untyped one (ratio >= 1.00x):
typing into structs should cost nothing next to building dicts.

Run: `python -m benchmarks decode_throughput` (or `python -m benchmarks.decode_throughput`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.harness import fastest_passes
from benchmarks.table import Row
from protocol import decode

STREAMS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "streams"

TARGET_RECORDS = 200_000
REPEAT = 5


def load_lines(directory: Path = STREAMS) -> list[bytes]:
    """Every record line of every recorded stdout stream (not the *.commands.jsonl stdin logs)."""
    lines: list[bytes] = []
    for path in sorted(directory.glob("*.jsonl")):
        if path.name.endswith(".commands.jsonl"):
            continue
        lines.extend(line for line in path.read_bytes().split(b"\n") if line)
    if not lines:
        raise SystemExit(f"no recorded streams in {directory}: run `python -m tests.fixtures.record_streams`")
    return lines


def best_rates(decoders: dict[str, Callable[[bytes], Any]], lines: list[bytes], repeat: int = REPEAT) -> dict[str, float]:
    """Records per second of each decoder's fastest pass over `lines` (taking turns)."""
    best = fastest_passes(decoders, lines, repeat)
    return {name: len(lines) / seconds for name, seconds in best.items()}


def run(target: int = TARGET_RECORDS, repeat: int = REPEAT) -> list[Row]:
    recorded = load_lines()
    lines = (recorded * (target // len(recorded) + 1))[:target]
    deltas = [line for line in recorded if b'"type":"text_delta"' in line]
    deltas = (deltas * (target // max(1, len(deltas)) + 1))[:target]
    untyped = msgspec.json.Decoder().decode

    mixed = best_rates({"typed": decode, "untyped": untyped, "stdlib": json.loads}, lines, repeat)
    only_deltas = best_rates({"typed": decode, "untyped": untyped}, deltas, repeat)
    untyped_name = "untyped msgspec.json.decode"
    count = f"{len(lines):,} records"
    return [
        Row(f"typed protocol.decode ({count})", mixed["typed"], "records/s", untyped_name, mixed["untyped"]),
        Row(f"untyped msgspec.json.decode ({count})", mixed["untyped"], "records/s"),
        Row(f"stdlib json.loads ({count})", mixed["stdlib"], "records/s", untyped_name, mixed["untyped"]),
        Row("typed protocol.decode, text_delta only", only_deltas["typed"], "records/s", untyped_name, only_deltas["untyped"]),
        Row("untyped msgspec.json.decode, text_delta only", only_deltas["untyped"], "records/s"),
    ]


if __name__ == "__main__":
    from benchmarks.table import format_table

    print(format_table(("decode_throughput", row) for row in run()))
