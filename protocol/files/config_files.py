"""Files pideck reads from outside (pi's settings, themes and keybindings, `.gitignore`
files), read within bounds.

Only a regular file is read (a FIFO would block the reader, `/dev/zero` never ends), at
most `limit` bytes of it, opened without waiting for a writer (`protocol.regular_file`). JSON is decoded only when
its nesting is at most `MAX_DEPTH` deep: Python's and msgspec's decoders recurse once a
level, so 100,000 nested arrays raise RecursionError. Anything that cannot be used raises
`ConfigFileError` (a ValueError) with a one-line reason; a missing file FileNotFoundError,
another that cannot be opened OSError.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from protocol.regular_file import NotARegularFile, TooLarge, read_regular

MAX_BYTES = 1024 * 1024  # a config file larger than this is not read (pi's own are a few KB)
MAX_DEPTH = 100  # JSON nested deeper than this is not decoded (pi's own go 3 deep)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class ConfigFileError(ValueError):
    """A file pideck does not use; the message says why, on one line."""


def read_bytes(path: Path | str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them (protocol/regular_file.py)."""
    try:
        return read_regular(path, limit)
    except (NotARegularFile, TooLarge) as exc:
        raise ConfigFileError(exc.strerror) from None


def read_text(path: Path | str, limit: int = MAX_BYTES, errors: str = "strict") -> str:
    """The text of the regular file at `path` (UTF-8, a leading BOM dropped), at most `limit` bytes."""
    try:
        return read_bytes(path, limit).decode("utf-8-sig", errors)
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"not UTF-8 text (byte {exc.start:,})") from None


def depth(text: str) -> int:
    """How deep the arrays and objects of JSON `text` nest (brackets inside strings do not count)."""
    deepest = level = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        level += 1 if match.group() in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def decode_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """`text` decoded as JSON when it nests at most `max_depth` deep."""
    if depth(text) > max_depth:
        raise ConfigFileError(f"nested more than {max_depth} deep")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigFileError(f"not valid JSON ({exc})") from None


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in JSON's words: "object", "array", "string"..."""
    if isinstance(value, bool) or value is None:
        return "true, false or null"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "number")


def read_json(path: Path | str, limit: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of the regular file at `path`, read and decoded within bounds."""
    return decode_json(read_text(path, limit), max_depth)
