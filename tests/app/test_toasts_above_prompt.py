"""Toasts show above the prompt, not over it, however tall the prompt grows."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, ready, wait_until
from textual.widgets._toast import Toast

from widgets.prompt.editor import PromptEditor


async def test_toasts_keep_above_the_prompt(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    app = fake.app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await ready(pilot, fake)
        editor = app.query_one(PromptEditor)

        def toast_above_prompt() -> bool:
            toasts = [toast for toast in app.screen.query(Toast) if toast.region]
            return bool(toasts) and all(toast.region.bottom <= editor.region.y for toast in toasts)

        app.notify("a short note", markup=False)
        await wait_until(pilot, toast_above_prompt, what="the toast above the prompt")
        editor.load("a prompt\nof\nfive\nlines\nhere")
        await wait_until(pilot, lambda: editor.region.height == 7, what="a taller prompt")
        app.notify("another note", markup=False)
        await wait_until(pilot, toast_above_prompt, what="the toasts above the taller prompt")


async def test_the_newest_toast_shows_beside_three_older_ones(tmp_path: Path) -> None:
    """The answer to the key just pressed is never folded into "+N more": the oldest is."""
    fake = Fake(tmp_path)
    app = fake.app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await ready(pilot, fake)

        def shown() -> list[str]:
            return [str(toast._notification.message) for toast in app.screen.query(Toast)]

        for i in range(3):
            app.notify(f"older note {i}", markup=False)
        await wait_until(pilot, lambda: len(shown()) == 3, what="three toasts")
        app.notify("Exported to /tmp/session.html", markup=False)
        await wait_until(pilot, lambda: "Exported to /tmp/session.html" in shown(), what="the newest toast")
        await wait_until(pilot, lambda: any(text.startswith("+1 more notification") for text in shown()),
                         what="the oldest folded into +1 more")
        assert "older note 0" not in shown() and len(shown()) == 4


async def test_toasts_the_center_let_go_leave_the_screen_before_a_new_one_shows(tmp_path: Path) -> None:
    """Textual times a toast from its mount, later than the center counts it from: on a slow
    machine a toast the center let go is still up when the next one shows, one too many."""
    fake = Fake(tmp_path)
    app = fake.app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await ready(pilot, fake)
        center = app.toasts.center
        now = center.clock()

        def shown() -> list[str]:
            return [str(toast._notification.message) for toast in app.screen.query(Toast) if toast.display]

        for i in range(3):
            app.notify(f"older note {i}", markup=False)
        await wait_until(pilot, lambda: len(shown()) == 3, what="three toasts")
        center.clock = lambda: now + app.NOTIFICATION_TIMEOUT + 0.01  # the center's clock let them go
        app.notify("the newest note", markup=False)
        await wait_until(pilot, lambda: "the newest note" in shown(), what="the newest toast")
        assert shown() == ["the newest note"]


async def test_a_toast_folded_before_it_came_up_never_comes_up(tmp_path: Path) -> None:
    """Four notifies in one go (a flood): the fourth folds the first before Textual has shown
    it; the first must not come up after all, a fifth toast on the screen."""
    fake = Fake(tmp_path)
    app = fake.app()
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await ready(pilot, fake)

        def shown() -> list[str]:
            return [str(toast._notification.message) for toast in app.screen.query(Toast) if toast.display]

        for i in range(4):
            app.notify(f"note {i}", markup=False)
        await wait_until(pilot, lambda: any(text.startswith("+1 more notification") for text in shown()),
                         what="the first folded into +1 more")  # posted after the four Notify messages
        assert shown()[:3] == ["note 1", "note 2", "note 3"] and len(shown()) == 4
