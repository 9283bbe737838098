"""What pi's own footer says, written as pi writes it (pi's dist/modes/interactive/components/
footer.js), so that pideck's status line reads the same: the working directory with `~` for
the home folder, its git branch in brackets and the session's name after `•`; the tokens
and cost (`↑1.2k ↓340 R12k $0.012`, only what is not zero); the context's use
(`0.4%/128k (auto)`); and `model • thinking`.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from protocol.state.formatting import to_fixed, tokens


def home_relative(cwd: str, home: str | None) -> str:
    """`cwd` with the home folder written `~` (pi's formatCwdForFooter); as it is outside it."""
    if not home or not cwd.startswith("/") or not home.startswith("/"):
        return cwd
    path, base = PurePosixPath(cwd), PurePosixPath(home)
    if path == base:
        return "~"
    if base in path.parents:
        return f"~/{path.relative_to(base)}"
    return cwd


def where(cwd: str, home: str | None, branch: str | None, session_name: str | None) -> str:
    """pi's first footer line: `~/src/project (main) • name`."""
    text = home_relative(cwd, home)
    if branch:
        text += f" ({branch})"
    if session_name:
        text += f" • {session_name}"
    return text


def usage(input_tokens: float, output: float, cache_read: float, cache_write: float, cost: float) -> str:
    """pi's token counts and cost, each only when it is not zero (pi shows `$` to 3 places)."""
    parts = [f"{arrow}{tokens(count)}" for arrow, count in (
        ("↑", input_tokens), ("↓", output), ("R", cache_read), ("W", cache_write)) if count]
    if cost:
        parts.append(f"${to_fixed(cost, 3)}")
    return " ".join(parts)


def context(percent: float | None, window: float, auto_compact: bool) -> str:
    """pi's context use: `0.4%/128k (auto)`, `?/128k` while it is not known (after a compaction)."""
    used = "?" if percent is None else f"{to_fixed(percent, 1)}%"
    return f"{used}/{tokens(window)}{' (auto)' if auto_compact else ''}"


def context_level(percent: float | None) -> str:
    """How full pi says the context is: "error" above 90%, "warning" above 70%, else ""."""
    if percent is None:
        return ""
    return "error" if percent > 90 else "warning" if percent > 70 else ""


def model(model_id: str | None, reasoning: bool, thinking: str) -> str:
    """pi's `model • thinking` (the level only for a model that reasons; `no-model` without one)."""
    if not model_id:
        return "no-model"
    if not reasoning:
        return model_id
    return f"{model_id} • thinking off" if thinking in ("", "off") else f"{model_id} • {thinking}"
