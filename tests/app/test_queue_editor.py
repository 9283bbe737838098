"""widgets.screens.queue_editor on its own: keys, edge cases, literal markup, an 80×24 snapshot.
(Taking the queue from and back to the real pi is in test_queue_images_real_pi.py.)"""

from __future__ import annotations

from typing import Any

from tests.screen_app import ScreenApp
from tests.snapshot_plugin import no_blink

from protocol.wire.messages import ImageContent
from widgets.screens.queue_editor import QueueEditor, QueueItem

ITEMS = [
    QueueItem("steer", "Use [bold]tables[/] instead", [ImageContent(data="AAAA", mime_type="image/png")]),
    QueueItem("steer", "Keep it short"),
    QueueItem("follow_up", "Then write a summary\nwith two lines"),
]


class EditorApp(ScreenApp):
    """A ScreenApp by the name its snapshot shows as the title."""


async def run(items: list[QueueItem], *keys: str) -> tuple[EditorApp, list[list[QueueItem] | None]]:
    app = EditorApp(QueueEditor(items))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
    return app, app.results


def pairs(items: list[QueueItem] | None) -> list[tuple[str, str]]:
    assert items is not None
    return [(item.kind, item.text) for item in items]


async def test_cancel_dismisses_none_and_leaves_the_originals() -> None:
    _, results = await run(ITEMS, "d", "t", "escape")
    assert results == [None]
    assert pairs(ITEMS)[1] == ("steer", "Keep it short")  # the screen edited copies


async def test_edit_move_toggle_delete_and_save() -> None:
    _, results = await run(
        ITEMS,
        "down", "enter", "end", "!", "escape",  # edit the second text, back to the list
        "shift+up",  # move it to the top
        "down", "down", "left_square_bracket",  # the follow-up one place up
        "t",  # ...and make it a steer
        "down", "d",  # delete the image message, now last
        "ctrl+s",
    )
    assert pairs(results[0]) == [("steer", "Keep it short!"), ("steer", "Then write a summary\nwith two lines")]


async def test_moves_stop_at_the_ends_and_emptied_items_are_dropped() -> None:
    _, results = await run(ITEMS, "shift+up", "down", "down", "shift+down", "enter", "f7", "backspace", "ctrl+s")
    assert pairs(results[0]) == [("steer", "Use [bold]tables[/] instead"), ("steer", "Keep it short")]
    assert len(results[0][0].images) == 1


async def test_text_with_only_images_is_kept_and_deleting_everything_sends_nothing() -> None:
    _, results = await run(ITEMS, "enter", "f7", "backspace", "escape", "down", "d", "d", "ctrl+s")
    assert pairs(results[0]) == [("steer", "")]  # an image message without text still goes
    _, results = await run(ITEMS, "d", "d", "d", "d", "ctrl+s")
    assert results == [[]]


def test_snapshot_queue_editor(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await pilot.press("down")
        no_blink(pilot.app)

    assert snap_compare(EditorApp(QueueEditor(ITEMS)), run_before=run_before, terminal_size=(80, 24))
