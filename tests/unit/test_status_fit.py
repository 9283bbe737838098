"""The status line in the room there is (widgets/panes/status_where.fit): the run's state whole, then
`model • thinking`, the context, the tokens and cost, the extensions' statuses cut."""

from __future__ import annotations

from rich.text import Text

from widgets.panes.status_where import STATUS_ROOM, Part, fit

PARTS = [Part(2, Text("↑240 ↓385 $0.002")), Part(1, Text("0.3%/128k (auto)")), Part(0, Text("scripted-demo • medium"))]


def test_everything_fits_at_80_columns_when_idle() -> None:
    line = fit(Text("● ready"), Text(), PARTS, 78)
    assert line.plain.endswith("↑240 ↓385 $0.002  0.3%/128k (auto)  scripted-demo • medium")
    assert line.cell_len == 78 and line.plain.startswith("● ready  ")


def test_the_least_needed_part_goes_first() -> None:
    working = Text("⠋ working · turn 1 · esc aborts")
    assert fit(working, Text(), PARTS, 78).plain.endswith("0.3%/128k (auto)  scripted-demo • medium")
    assert "↑240" not in fit(working, Text(), PARTS, 78).plain
    narrow = fit(working, Text(), PARTS, 60).plain
    assert narrow.endswith("  scripted-demo • medium") and "128k" not in narrow
    assert fit(working, Text(), PARTS, 40).plain == working.plain  # the state is never cut for them


def test_statuses_keep_their_room_and_are_cut() -> None:
    statuses = Text("  │ plan mode: reviewing the parser changes (plan)")
    line = fit(Text("● ready"), statuses, PARTS, 78).plain
    assert "scripted-demo • medium" in line and "↑240" not in line
    assert line.startswith("● ready  │ plan mode") and "…" in line and len(line) <= 78
    assert len(line.split("  0.3%")[0]) >= len("● ready") + STATUS_ROOM
