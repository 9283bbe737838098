"""pytest plugin: Textual snapshot SVGs live in the top-level `snapshots/` folder.

Loaded with `-p tests.snapshot_plugin` (pyproject's addopts). pytest-textual-snapshot
(1.1.0) stores its SVGs next to the tests in `tests/__snapshots__/<module>/`; here they
go to `snapshots/<test module>/<test name>.svg` instead.

Determinism: TZ is UTC (transcript timestamps are rendered in local time), COLORFGBG is
unset (it would choose the theme's light or dark side), and the helpers below turn off
cursor blinking and wait until the screen stops changing.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_textual_snapshot
from pytest_textual_snapshot import SVGImageExtension
from tests.load import load

if TYPE_CHECKING:
    from syrupy import SnapshotAssertion
    from syrupy.location import PyTestLocation
    from textual.app import App
    from textual.pilot import Pilot

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"

os.environ["TZ"] = "UTC"
time.tzset()
os.environ.pop("COLORFGBG", None)  # a light terminal's would draw the system theme light


class TopLevelSVGExtension(SVGImageExtension):
    """`snapshots/<test module>/<test name>.svg`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


# snap_compare calls `snapshot.use_extension(SVGImageExtension)` by module global name:
# point that name at the subclass so snap_compare writes to snapshots/ as well.
pytest_textual_snapshot.SVGImageExtension = TopLevelSVGExtension  # type: ignore[misc]


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TopLevelSVGExtension)


def no_blink(app: Any) -> None:
    """Stop every cursor blinking (TextArea, Input), on every screen of the stack."""
    for screen in app.screen_stack:
        for widget in screen.query("Input, TextArea"):
            if widget.cursor_blink:
                widget.cursor_blink = False
                cache = getattr(widget, "_line_cache", None)
                if cache is not None:
                    cache.clear()  # lines drawn while the cursor blinked
                widget.refresh()


def rendering_pending(app: App[Any]) -> bool:
    """Some streamed text still shows estimated heights (rendered when the app is idle)."""
    from widgets.markdown.stream import StreamingText

    return any(widget.pending for screen in app.screen_stack for widget in screen.query(StreamingText))


async def settle(pilot: Pilot[Any], *, timeout: float = 5.0, quiet: int = 3) -> None:
    """Pause until no text waits to be rendered and `quiet` successive screenshots are
    identical (or `timeout`, stretched by the load, passes)."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout * load()
    last = None
    same = 0
    while loop.time() < deadline:
        no_blink(app)
        await pilot.pause(0.05)
        current = app.export_screenshot()
        if current == last and not rendering_pending(app):
            same += 1
            if same >= quiet:
                return
        else:
            same = 0
        last = current
