"""Toasts show above the prompt, not over it, however tall the prompt grows."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, ready, wait_until
from textual.widgets._toast import Toast

from widgets.prompt_editor import PromptEditor


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
