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
