"""Benchmarks: `python -m benchmarks` runs every module here that has `run() -> list[Row]`.

They print numbers; they never assert on time (see benchmarks/table.py for `Row`).
"""
