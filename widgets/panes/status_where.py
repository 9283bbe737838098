"""What pi's footer says, where pideck shows it (protocol/state/footer_format.py writes each part as
pi does): pi's folder, git branch and session name on the prompt's bottom border, always,
and after them `held N` while the holder keeps pi (N as `pideck ls` numbers it);
and, while the side panes are hidden (below 100 columns, or F2), the tokens and cost, the
context's use and `model • thinking` on the right of the status line.

`fit` lays the status line out in the room there is: the run's state and pideck's problems
on the left are never cut; then, most needed first, `model • thinking`, the context, the
tokens and cost; the extensions' statuses after the state keep `STATUS_ROOM` cells of what is
left, and are cut to the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from protocol.state import footer_format
from protocol.state.session_model import SessionModel
from widgets.colors import palette
from widgets.text.safe import clean

STATUS_ROOM = 24  # cells the extensions' statuses keep, when they have that many
GAP = 2  # cells at least between the left and the right
SEP = "  "  # between two parts on the right


@dataclass(frozen=True)
class Part:
    rank: int  # 0 is kept first
    text: Text


def where_label(session: SessionModel, *, branch: str | None, home: str | None, host: str | None, cells: int,
                held: int | None = None) -> Text:
    """pi's folder, branch and session name, and `held N` for pi held as N, cut from the
    left to `cells` (for the prompt's bottom border, under it as pi's footer is under its editor)."""
    name = session.state.session_name if session.state is not None else None
    if host is not None:  # pi's folder is on its host: pideck does not know it
        text = f"pi on {host}"
    else:
        text = footer_format.where(session.cwd, home, branch, name)
    label = Text(clean(text).replace("\n", " "), palette.style("muted"))
    if held is not None:
        label.append(" · ", palette.style("muted"))
        label.append(f"held {held}", palette.style("accent"))
    return _cut_left(label, max(cells, 2))


def stats_parts(session: SessionModel, viewed: bool = False) -> list[Part]:
    """What pi's footer says besides the folder, in the order it shows; `viewed` (a read-only
    view's records, no pi to answer): the context's use only as far as they said it."""
    state, stats, muted = session.state, session.stats, palette.style("muted")
    parts = []
    if stats is not None:
        counts = stats.tokens
        used = footer_format.usage(counts.input, counts.output, counts.cache_read, counts.cache_write, stats.cost)
    else:
        totals = session.totals
        used = footer_format.usage(totals.input, totals.output, totals.cache_read, totals.cache_write, totals.cost)
    if used:
        parts.append(Part(2, Text(used, muted)))
    model = state.model if state is not None else None
    usage = stats.context_usage if stats is not None else None
    percent = usage.percent if usage is not None else 0.0  # (pi: 0.0% until it knows)
    window = (usage.context_window if usage is not None else 0) or (model.context_window if model is not None else 0) or 0
    level = footer_format.context_level(percent)
    auto = state.auto_compaction_enabled if state is not None else True
    if usage is not None or not viewed:
        parts.append(Part(1, Text(footer_format.context(percent, window, auto), palette.style(level) if level else muted)))
    thinking = state.thinking_level if state is not None else "off"
    label = footer_format.model(clean(model.id) if model is not None else None,
                                bool(model is not None and model.reasoning), thinking)
    parts.append(Part(0, Text(label, muted)))
    return parts


def _cut_left(text: Text, cells: int) -> Text:
    """The end of `text` in `cells` cells, after a "…"."""
    if text.cell_len <= cells:
        return text
    start = max(len(text.plain) - (cells - 1), 0)
    while start < len(text.plain) and text[start:].cell_len > cells - 1:
        start += 1
    return Text("…", text.style) + text[start:]


def fit(core: Text, statuses: Text, parts: list[Part], width: int) -> Text:
    """One line of `width` cells: `core`, the statuses, and on the right what of `parts` fits."""
    room = width - core.cell_len - GAP
    keep = min(statuses.cell_len, STATUS_ROOM)
    chosen: dict[int, Text] = {}
    used = 0
    for index, part in sorted(enumerate(parts), key=lambda item: item[1].rank):
        extra = len(SEP) if chosen else 0
        left = room - keep - used - extra
        if part.text.cell_len <= left:
            chosen[index] = part.text
            used += part.text.cell_len + extra
    right = Text(SEP).join(chosen[index] for index in sorted(chosen))
    line = core.copy()
    if statuses:
        shown = statuses.copy()
        room_for = width - core.cell_len - (right.cell_len + GAP if right else 0)
        if room_for < shown.cell_len:
            shown.truncate(max(room_for, 0), overflow="ellipsis")
        line.append_text(shown)
    if right:
        line.append(" " * max(width - line.cell_len - right.cell_len, GAP))
        line.append_text(right)
    return line
