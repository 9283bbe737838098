"""The Footer shows whole keys only: at any width, the keys that do not fit are left out
(from the last) rather than cut mid-word."""

from __future__ import annotations

from pathlib import Path

from tests.pi_harness import Fake, wait_until
from textual.app import App

from widgets.panes.key_footer import KeyFooter


async def test_the_footer_never_cuts_a_key_mid_word(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    async with fake.run(size=(120, 30)) as pilot:
        app = pilot.app
        footer = app.query_one(KeyFooter)
        shown_at: dict[int, int] = {}
        for width in (80, 100, 120, 160):
            await pilot.resize_terminal(width, 30)
            await wait_until(pilot, lambda: app.size.width == width and footer.size.width == width, what="resized")
            await pilot.pause()
            keys = [key for key in footer.children if not key.has_class("-command-palette")]
            labels = [key.render().plain.strip() for key in keys]
            shown = [label for key, label in zip(keys, labels, strict=True) if key.display]

            def row() -> str:
                return app.screen._compositor.render_strips()[-1].text  # the Footer's row, as painted

            expected = "  ".join(shown)
            await wait_until(pilot, lambda: row().split("▏")[0].strip() == expected,  # noqa: B023
                             what=f"at {width} columns, {expected!r} in {row()!r}")
            assert row().rstrip().endswith("f1 Commands"), "the palette key stays"
            assert shown == labels[: len(shown)], "the keys left out are the last ones"
            shown_at[width] = len(shown)
        assert shown_at[80] < shown_at[100] < shown_at[120] <= shown_at[160] == len(labels), shown_at


async def test_the_keys_show_when_the_terminal_reported_focus_out_before_them(tmp_path: Path) -> None:
    """A terminal that reports focus (tmux with `focus-events on` and the session detached)
    says "focus out" as pideck starts; the keys still show, and stay when a key is typed."""
    fake = Fake(tmp_path)
    app = fake.app()
    app.set_reactive(App.app_focus, False)  # the terminal's "focus out" came before the first bindings
    async with fake.run(app, size=(120, 30)) as pilot:
        footer = app.query_one(KeyFooter)
        await wait_until(pilot, lambda: app.screen._compositor.render_strips()[-1].text.strip().startswith("^c"),
                         what="the key row painted")  # the Footer's row
        await pilot.press("a")
        await pilot.pause()
        assert any(child.display for child in footer.children if not child.has_class("-command-palette"))
