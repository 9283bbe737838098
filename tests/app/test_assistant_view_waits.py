"""An assistant message pi has started shows once it has something to show: its view and
its first block are mounted and laid out together, not in a frame each."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, send, wait_until
from widgets.transcript.message_views import MessageView


def assistant(app: object) -> object | None:
    items = [item for item in app.desk.current.pi.model.items if getattr(item, "role", "") == "assistant"]  # type: ignore[attr-defined]
    return items[-1] if items else None


async def test_an_assistant_message_s_view_waits_for_its_first_block(tmp_path: Path) -> None:
    fake = Fake(tmp_path, "--rate", "1/150")  # a record every 150 ms: message_start alone in its frame
    async with fake.run() as pilot:
        app = pilot.app
        transcript = app.desk.current.main.transcript
        mounts: list[int] = []
        mount_all = transcript.mount_all

        def counting(widgets: list[object], *args: object, **kwargs: object) -> object:
            mounts.extend(1 for widget in widgets if isinstance(widget, MessageView))
            return mount_all(widgets, *args, **kwargs)  # type: ignore[arg-type]

        transcript.mount_all = counting  # type: ignore[method-assign]
        await send(pilot, "Show me some markdown.")
        started = await wait_until(pilot, lambda: (item := assistant(app)) is not None and not item.blocks and item,
                                   what="the assistant's message started, no block yet")
        await pilot.pause()
        assert started.key not in transcript.views, "its view waits"
        # (a view is in `views` from when it is made; its blocks are composed as it mounts)
        await wait_until(pilot, lambda: started.key in transcript.views and transcript.views[started.key].is_mounted,
                         timeout=30, what="its view, with its block")
        view = transcript.views[started.key]
        assert isinstance(view, MessageView) and view.block_widgets, "mounted with its first block"
        await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.desk.current.pi.pump.idle, timeout=60, what="the reply")
        shown = {index: widget.text for index, widget in view.block_widgets.items() if hasattr(widget, "text")}
        assert shown and all(shown[index] == started.blocks[index].text for index in shown), "no delta twice or lost"
        assert mounts == [1, 1], "the user's message, then the assistant's once"
