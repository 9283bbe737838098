"""Numbers read from outside (command arguments, diffs, escape sequences, settings, the
environment, query strings), parsed in one checked way.

Python's `int()` and `float()` take more than a user or a file means: other scripts'
digits (`"²"` passes `str.isdigit()` and then fails `int()`, `"٣"` parses as 3),
underscores, surrounding spaces, and numbers of any length (`int()` refuses more than
4,300 digits with a `ValueError`; `float("1e999")` is `inf`). These accept ASCII digits
only, a bounded number of them, and a value within the range asked for; anything else
gives `default`.
"""

from __future__ import annotations

import math
import re
from typing import TypeVar

MAX_DIGITS = 18  # more than any count, size or line number pideck reads; far under int()'s limit

_INT = re.compile(r"[0-9]+")
_SIGNED_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_SCIENTIFIC = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

D = TypeVar("D")


def is_digits(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """Whether `text` is 1 to `max_digits` ASCII digits (not `"²"`, `"٣"`, `" 1"`, `"1_0"`)."""
    return 0 < len(text) <= max_digits and _INT.fullmatch(text) is not None


def parse_int(text: str, default: D = None, *, low: int | None = None, high: int | None = None,
              signed: bool = False, max_digits: int = MAX_DIGITS) -> int | D:  # fmt: skip
    """`text` as an int when it is ASCII digits (a sign first with `signed`), at most
    `max_digits` of them, and within `low`..`high`; else `default`."""
    if not isinstance(text, str) or len(text) > max_digits + 1:
        return default
    if (_SIGNED_INT if signed else _INT).fullmatch(text) is None or len(text.lstrip("+-")) > max_digits:
        return default
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        return default
    return value


def parse_float(text: str, default: D = None, *, low: float | None = None, high: float | None = None,
                max_chars: int = 40, exponent: bool = False) -> float | D:  # fmt: skip
    """`text` as a finite float when it is a plain decimal (`10`, `2.5`, `-0.5`, `.5`; with
    `exponent`, also `1e-3`; never `inf` or `nan`), at most `max_chars` long, within
    `low`..`high`; else `default`."""
    pattern = _SCIENTIFIC if exponent else _DECIMAL
    if not isinstance(text, str) or len(text) > max_chars or pattern.fullmatch(text) is None:
        return default
    value = float(text)
    if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        return default
    return value
