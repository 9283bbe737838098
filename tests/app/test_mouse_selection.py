"""Selecting text with the mouse: in a streamed reply and in a tool's full output the
drag selects exactly the characters it went over and the selection is drawn. As in pi's
fullscreen mode, the drag copies it (OSC 52) unless pi's `fullscreenCopyOnSelect` is
false; Ctrl+C copies it too, instead of clearing the prompt."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pi_harness import Fake, start_run, type_text, wait_until
from rich.cells import cell_len
from tests.screen_app import ScreenApp

from widgets.transcript.message_views import TextBlock
from widgets.prompt.editor import PromptEditor
from widgets.tools.output import LargeTextView
from widgets.screens.tool_output_screen import ToolOutputScreen


def selection_background(widget: object, y: int) -> list[bool]:
    """Per cell of line `y`: whether it is drawn on the selection's background."""
    bg = widget.screen.get_component_rich_style("screen--selection").bgcolor  # type: ignore[attr-defined]
    strip = widget.render_line(y)  # type: ignore[attr-defined]
    return [segment.style is not None and segment.style.bgcolor == bg
            for segment in strip for _ in range(segment.cell_length)]


def copied(app: object) -> list[str]:
    return [str(n.message) for n in app._notifications if str(n.message).startswith("Copied")]  # type: ignore[attr-defined]


async def test_dragging_over_a_reply_selects_and_copies_its_text(tmp_path: Path) -> None:
    fake = Fake(tmp_path)  # every prompt gets the recorded markdown answer
    agent = tmp_path / "agent"  # pi's settings: none, so copy-on-select is on
    agent.mkdir()
    async with fake.run(fake.app({"PI_CODING_AGENT_DIR": str(agent)}), size=(100, 30)) as pilot:
        app = pilot.app
        await start_run(pilot, fake, "Explain it.", running=False)
        block = await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.query(TextBlock).last(), what="the answer")
        await wait_until(pilot, lambda: block.pending == 0, what="the answer laid out")
        lines = block.visible_text().split("\n")
        assert lines[0] == "Reading a JSONL stream" and lines[2].startswith("Split only on")
        left = block.content_region.x - block.region.x  # the block's padding

        await type_text(pilot, "my draft")  # typing would end a selection: Textual's TextArea clears it
        # from "JSONL" on the first line to the tenth column of the third
        await pilot.mouse_down(block, offset=(left + 10, 0))
        await pilot.hover(block, offset=(left + 10, 2))
        await pilot.mouse_up(block, offset=(left + 10, 2))
        expected = "\n".join([lines[0][10:], lines[1], lines[2][:11]])
        assert expected.startswith("JSONL stream\n\nSplit only")
        assert app.screen.get_selected_text() == expected
        marked = selection_background(block, 0)
        assert not any(marked[:10]) and all(marked[10:22]), "the selection is drawn from where the drag began"
        assert app.clipboard == expected, "the drag copied it"
        await wait_until(pilot, lambda: copied(app) == [f"Copied {len(expected)} characters"], what="one notice")
        await pilot.click(block, offset=(left + 3, 0))  # a click ends the selection and copies nothing
        assert app.screen.get_selected_text() is None and len(copied(app)) == 1

        await pilot.mouse_down(block, offset=(left + 10, 0))
        await pilot.hover(block, offset=(left + 10, 2))
        await pilot.mouse_up(block, offset=(left + 10, 2))
        app.copy_to_clipboard("")
        assert app.focused is app.query_one(PromptEditor), "the drag left the prompt focused"
        await pilot.press("ctrl+c")
        assert app.clipboard == expected
        assert app.screen.get_selected_text() is None, "copying ends the selection"
        assert not any(selection_background(block, 0))
        assert app.query_one(PromptEditor).text == "my draft", "with a selection, Ctrl+C does not clear the prompt"
        await pilot.press("ctrl+c")
        assert app.query_one(PromptEditor).text == "", "without one, it clears the prompt as before"

        await pilot.double_click(block, offset=(left + 3, 4))
        assert app.screen.get_selected_text() == block.visible_text(), "a double click selects the whole block"
        await pilot.press("ctrl+c")
        assert app.clipboard == block.visible_text()
        assert app.is_running


async def test_copy_on_select_follows_pis_setting(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    (tmp_path / ".pi").mkdir()  # the project's settings, over the agent dir's
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"fullscreenCopyOnSelect": False}))
    async with fake.run(size=(100, 30)) as pilot:
        app = pilot.app
        await start_run(pilot, fake, "Explain it.", running=False)
        block = await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.query(TextBlock).last(), what="the answer")
        left = block.content_region.x - block.region.x
        await pilot.mouse_down(block, offset=(left, 0))
        await pilot.mouse_up(block, offset=(left + 6, 0))
        assert app.screen.get_selected_text() == "Reading"
        assert app.clipboard == "", "selecting alone does not copy"
        await pilot.press("ctrl+c")
        assert app.clipboard == "Reading"

        await pilot.mouse_down(block, offset=(left + 8, 0))
        await pilot.mouse_up(block, offset=(left + 12, 0))
        await pilot.press("ctrl+x")  # pi's copy key copies the selection too, then
        assert app.clipboard == "a JSO" and app.screen.get_selected_text() is None


async def test_dragging_over_a_scrolled_tool_output_copies_the_rows_it_spans() -> None:
    output = "\n".join(f"row {n:04d}\t{'x' * 30}end" for n in range(5000))
    app = ScreenApp(ToolOutputScreen("bash: seq", output))
    async with app.run_test(size=(60, 20)) as pilot:
        view = await wait_until(pilot, lambda: app.screen.query(LargeTextView).first(), what="the output screen")
        view.scroll_to(0, 4000, animate=False)
        await pilot.pause()
        left = view.content_region.x - view.region.x
        await pilot.mouse_down(view, offset=(left + 3, 0))
        await pilot.hover(view, offset=(left + 7, 2))
        await pilot.mouse_up(view, offset=(left + 7, 2))
        assert view.scroll_offset == (0, 4000)

        def shown(row: int) -> str:  # as shown: a tab is 4 columns
            return f"row {row:04d}    {'x' * 30}end"

        # from column 3 of row 4000 to column 7 of row 4002 (Textual's selection includes its end)
        assert app.screen.get_selected_text() == "\n".join([shown(4000)[3:], shown(4001), shown(4002)[:8]])
        marked = selection_background(view, 0)
        assert marked[:4] == [False, False, False, True], "drawn from where the drag began"

async def drag(pilot: object, widget: object, start: tuple[int, int], end: tuple[int, int]) -> None:
    """A drag as a terminal reports it: a press, a move for every cell the mouse crosses
    (along the line, then down or up), a release."""
    await pilot.mouse_down(widget, offset=start)  # type: ignore[attr-defined]
    (x, y), (end_x, end_y) = start, end
    while (x, y) != end:
        if x != end_x:
            x += 1 if end_x > x else -1
        else:
            y += 1 if end_y > y else -1
        await pilot.hover(widget, offset=(x, y))  # type: ignore[attr-defined]
    await pilot.mouse_up(widget, offset=end)  # type: ignore[attr-defined]


async def test_a_drag_cell_by_cell_and_over_an_old_selection_copies_what_it_went_over(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    agent = tmp_path / "agent"
    agent.mkdir()
    async with fake.run(fake.app({"PI_CODING_AGENT_DIR": str(agent)}), size=(100, 30)) as pilot:
        app = pilot.app
        await start_run(pilot, fake, "Explain it.", running=False)
        block = await wait_until(pilot, lambda: not app.desk.current.pi.model.running and app.query(TextBlock).last(), what="the answer")
        await wait_until(pilot, lambda: block.pending == 0, what="the answer laid out")
        lines = block.visible_text().split("\n")
        assert lines[0] == "Reading a JSONL stream"
        left = block.content_region.x - block.region.x
        # every move after the first looks the mouse up on a line with a selection drawn
        for start, end, expected in [
            (10, 14, "JSONL"),
            (12, 20, "ONL strea"),  # a new drag over the old selection
            (20, 8, "a JSONL strea"),  # leftwards, over it again
            (1, 4, "eadi"),
        ]:
            await drag(pilot, block, (left + start, 0), (left + end, 0))
            assert app.screen.get_selected_text() == expected
            assert app.clipboard == expected
            marked = selection_background(block, 0)
            first, last = min(start, end), max(start, end)
            assert [i for i, on in enumerate(marked) if on] == list(range(first, last + 1)), "drawn where it went"
        await drag(pilot, block, (left + 16, 0), (left + 4, 2))  # down two lines, from a selected cell
        assert app.screen.get_selected_text() == "\n".join([lines[0][16:], lines[1], lines[2][:5]])
        assert app.clipboard == app.screen.get_selected_text()


async def test_the_full_output_wraps_long_lines_and_a_drag_selects_on_the_rows() -> None:
    words = " ".join(f"w{i:04d}" for i in range(20))
    output = "\n".join(f"row {n:04d}\t{words}" for n in range(300))
    output += "\n" + "y" * 150 + "\n" + "日本語のテキスト" * 10  # no space to break at; two cells a character
    app = ScreenApp(ToolOutputScreen("bash: seq", output))
    async with app.run_test(size=(60, 20)) as pilot:
        view = await wait_until(pilot, lambda: app.screen.query(LargeTextView).first(), what="the output screen")
        w = view.scrollable_content_region.width
        shown = f"row 0100\t{words}".expandtabs(4)
        second = shown.rfind(" ", 0, w) + 1  # a row breaks after its last space
        third = shown.rfind(" ", second, second + w) + 1
        wide_rows = -(-160 // (w - w % 2))  # a two-cell character never straddles two rows
        assert len(shown) - third <= w and view.virtual_size.height == 300 * 3 + 3 + wide_rows, "wrapped, not cut"
        view.scroll_to(0, 300, animate=False)  # line 100 at the top
        await pilot.pause()
        rows = [view.render_line(y).text for y in range(3)]
        assert rows == [shown[:second].ljust(w), shown[second:third].ljust(w), shown[third:].ljust(w)]
        left = view.content_region.x - view.region.x
        # on the line's second row, then over that selection again, leftwards, then onto its third row
        for start, end, expected in [
            ((2, 1), (12, 1), shown[second + 2 : second + 13]),
            ((6, 1), (20, 1), shown[second + 6 : second + 21]),
            ((15, 1), (1, 1), shown[second + 1 : second + 16]),
            ((third - second - 3, 1), (4, 2), shown[third - 3 : third + 5]),
        ]:
            await drag(pilot, view, (left + start[0], start[1]), (left + end[0], end[1]))
            assert app.screen.get_selected_text() == expected
        await drag(pilot, view, (left + 3, 2), (left + 2, 3))  # past the line's end, into the next line
        assert app.screen.get_selected_text() == shown[third + 3 :] + "\nrow"

        view.scroll_end(animate=False)
        await pilot.pause()
        height = view.scrollable_content_region.height
        bottom = [view.render_line(y).text for y in range(height - 3 - wide_rows, height)]
        assert [row.rstrip() for row in bottom[:3]] == ["y" * w, "y" * w, "y" * (150 - 2 * w)]
        assert "".join(row.rstrip() for row in bottom[3:]) == "日本語のテキスト" * 10
        assert all(cell_len(row) == w for row in bottom)
        wide_top = height - wide_rows  # characters count in the selection, cells on screen
        await drag(pilot, view, (left + 4, wide_top), (left + 8, wide_top))
        assert app.screen.get_selected_text() == "語のテ"
        marked = selection_background(view, wide_top)
        assert [i for i, on in enumerate(marked) if on] == list(range(4, 10))

        view.scroll_to(0, 300, animate=False)
        await pilot.pause()
        await pilot.resize_terminal(90, 20)  # wrapped again, with the same line on top
        await wait_until(pilot, lambda: view.scrollable_content_region.width > w, what="the wider view")
        wider = view.scrollable_content_region.width
        assert wider > w and view.render_line(0).text.startswith("row 0100")
        assert view.render_line(1).text.startswith(shown[shown.rfind(" ", 0, wider) + 1 :][:10])
