"""The queue above the prompt while the side panes are hidden (widgets/panes/queue_lines.py)."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, wait_until
from widgets.panes.queue_lines import MAX_LINES, QueueLines

NARROW = (80, 24)


def shown(app: object) -> list[str]:
    """The lines above the prompt, or [] while they are hidden."""
    lines = app.desk.current.main.query_one(QueueLines)  # type: ignore[attr-defined]
    return str(lines.render()).split("\n") if lines.display else []


def queue(fake: Fake, steering: list[str], follow_up: list[str]) -> None:
    fake.inject({"type": "queue_update", "steering": steering, "followUp": follow_up})


async def test_below_100_columns_the_queue_shows_above_the_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=NARROW) as pilot:
        app = pilot.app
        assert not app.desk.current.main.side.display and shown(app) == [], "no queue: no lines"
        queue(fake, ["Be brief."], ["Then summarize."])
        lines = await wait_until(pilot, lambda: shown(app), what="the queue above the prompt")
        assert lines[:2] == ["Steering: Be brief.", "Follow-up: Then summarize."]
        assert lines[2].startswith("↳ esc:") and len(lines) == 3
        editor = app.desk.current.main.editor
        assert app.desk.current.main.query_one(QueueLines).region.bottom == editor.region.y, "right above the prompt"

        await pilot.press("f2")  # the side panes, with their Queue pane: no lines
        await wait_until(pilot, lambda: shown(app) == [], what="the lines hidden beside the panes")
        await pilot.press("f2")
        await wait_until(pilot, lambda: shown(app), what="the lines back")
        queue(fake, [], [])
        await wait_until(pilot, lambda: shown(app) == [], what="the lines gone with the queue")


async def test_wide_the_queue_pane_has_it(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=(120, 30)) as pilot:
        app = pilot.app
        queue(fake, ["Be brief."], [])
        await wait_until(pilot, lambda: app.desk.current.pi.model.steering, what="the queue")
        await pilot.pause()
        assert shown(app) == []
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: shown(app), what="the lines once the panes hide")


async def test_each_message_one_cleaned_line_and_the_rest_counted(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=NARROW) as pilot:
        app = pilot.app
        steering = ["two\nlines", "a \x1b]52;c;aGk=\x07clipboard \x1b[31mred\x1b[0m " + "x" * 5000]
        queue(fake, steering, ["f1", "f2", "f3"])
        lines = await wait_until(pilot, lambda: shown(app), what="the queue")
        assert lines[0] == "Steering: two⏎lines"
        assert lines[1].startswith("Steering: a clipboard red xxx") and len(lines[1]) < 400
        assert lines[2] == "Follow-up: f1"
        assert lines[MAX_LINES - 1] == "+2 more" and len(lines) == MAX_LINES + 1, "the hint last"
        widget = app.desk.current.main.query_one(QueueLines)
        assert widget.outer_size.height == MAX_LINES + 1, "a row each, however long the message"
