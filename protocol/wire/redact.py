"""Keeping credentials out of what pideck stores: the protocol log and pi's stderr tail.

`Redactor` replaces, in bytes or text:

- the values of secret-looking environment variables (names containing KEY, TOKEN,
  SECRET, PASSWORD, CREDENTIAL or AUTH; values of 8+ characters), wherever they appear;
- `Authorization:` / `Proxy-Authorization:` header values and `Bearer` / `Basic` tokens;
- `x-api-key`, `api-key`, `x-goog-api-key` header values;
- JSON or `key=value` fields named like `apiKey`, `api_key`, `access_token`, `password`...;
- well-known key shapes (`sk-...`, `sk-ant-...`, `AIza...`, `ghp_...`, `xox?-...`).

Each becomes `[redacted]`. Redaction is best effort: a secret with no such context and
not in the environment cannot be recognised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from functools import cached_property

MARK = "[redacted]"
_MARK_BYTES = MARK.encode()

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
MIN_SECRET_LENGTH = 8

_FIELD_NAMES = (
    r"api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|client[_-]?secret"
    r"|secret[_-]?key|password|passwd|private[_-]?key|session[_-]?token"
)
_JSON_FIELD_NAMES = _FIELD_NAMES + r"|(?:proxy-)?authorization|x-api-key|x-goog-api-key|api-key"
_PATTERNS = [
    # header lines and values: Authorization: Bearer xyz / x-api-key: xyz
    rf"((?:proxy-)?authorization\s*[:=]\s*\"?(?:(?:bearer|basic|token)\s+)?)[^\s\"',;}}]+",
    r"((?:x-goog-api-key|x-api-key|api-key)\s*[:=]\s*\"?)[^\s\"',;}]+",
    r"(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}",
    # "apiKey": "xyz"  /  api_key=xyz
    rf"(\"(?:{_JSON_FIELD_NAMES})\"\s*:\s*\")[^\"]*",
    rf"(\b(?:{_FIELD_NAMES})\s*=\s*)[^\s&\"',;]+",
    # key shapes
    r"()\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,})",
]


# Lower-case words one of which every pattern above needs: a cheap test before the regex.
_ANCHORS = ("auth", "bearer", "basic", "key", "token", "secret", "passw", "sk-", "aiza", "ghp_", "gho_", "ghu_",
            "ghs_", "ghr_", "xox")


def secrets_from_env(env: Mapping[str, str]) -> list[str]:
    """Values of environment variables whose names look like they hold credentials."""
    return [value for name, value in env.items() if _SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH]


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True)
        self._values = values
        self._anchors = tuple(dict.fromkeys([*_ANCHORS, *(value.lower() for value in values)]))
        self._byte_anchors = tuple(anchor.encode("utf-8") for anchor in self._anchors)

    # Compiled when first needed (a text with an anchor in it): compiling both is some 5 ms,
    # which a pideck starting beside pi would spend before the first frame.
    @cached_property
    def _text(self) -> re.Pattern[str]:
        text_patterns = [*_PATTERNS, *(f"(){re.escape(value)}" for value in self._values)]
        # every alternative has exactly one capture group, first: the prefix that is kept
        return re.compile("|".join(f"(?:{p})" for p in text_patterns), re.IGNORECASE)

    @cached_property
    def _bytes(self) -> re.Pattern[bytes]:
        return re.compile(self._text.pattern.encode("utf-8"), re.IGNORECASE)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Redactor:
        return cls(secrets_from_env(os.environ if env is None else env))

    def text(self, value: str) -> str:
        lowered = value.lower()
        if not any(anchor in lowered for anchor in self._anchors):
            return value
        return self._text.sub(self._keep_prefix_str, value)

    def bytes(self, value: bytes) -> bytes:
        lowered = value.lower()
        if not any(anchor in lowered for anchor in self._byte_anchors):
            return value
        return self._bytes.sub(self._keep_prefix_bytes, value)

    @staticmethod
    def _prefix(match: re.Match[str] | re.Match[bytes]) -> str | bytes | None:
        for group in match.groups():
            if group is not None:
                return group
        return None

    def _keep_prefix_str(self, match: re.Match[str]) -> str:
        prefix = self._prefix(match)
        return (prefix if isinstance(prefix, str) else "") + MARK

    def _keep_prefix_bytes(self, match: re.Match[bytes]) -> bytes:
        prefix = self._prefix(match)
        return (prefix if isinstance(prefix, bytes) else b"") + _MARK_BYTES

