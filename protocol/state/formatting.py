"""How pideck writes a number (or names a model) for people, the same in every pane, command and banner.

Token counts read as pi's own footer writes them ("999", "1.2k", "12k", "1.5M"), so one
number looks the same in pideck and in pi.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

from protocol.wire.responses import Model


def to_fixed(value: float, digits: int) -> str:
    """`value` to `digits` places as JavaScript's toFixed writes it (a half rounds up: 0.25 is
    "0.3"), where Python's format rounds a half to even ("0.2"); NaN, infinities and numbers of
    1e21 or more as Python writes them."""
    if not math.isfinite(value) or abs(value) >= 1e21:
        return f"{value:.{digits}f}" if math.isfinite(value) else str(value)
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=Context(prec=60)))


def tokens(count: float | None) -> str:
    """A token count, short: "?" when unknown."""
    if count is None:
        return "?"
    if count < 1000:
        return f"{count:.0f}"
    if count < 10_000:
        return f"{to_fixed(count / 1000, 1)}k"
    if count < 1_000_000:
        return f"{int(count / 1000 + 0.5)}k"
    if count < 10_000_000:
        return f"{to_fixed(count / 1_000_000, 1)}M"
    return f"{int(count / 1_000_000 + 0.5)}M"


def duration(ms: float | None) -> str:
    """A duration in milliseconds: "850ms", "2.5s"; "" when unknown."""
    if ms is None:
        return ""
    return f"{ms:.0f}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def cost(dollars: float) -> str:
    return f"${dollars:.4f}"


def on_off(enabled: bool) -> str:
    return "on" if enabled else "off"


def model_key(model: Model) -> str:
    """`provider/id`, how pi names a model on its command line and in /model."""
    return f"{model.provider}/{model.id}"
