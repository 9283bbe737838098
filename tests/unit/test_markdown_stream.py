"""Streaming markdown: the chunker's boundaries and the one-widget renderer."""

from __future__ import annotations

import gc
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from widgets.markdown.chunks import MAX_TAIL, MarkdownChunker
from widgets.markdown import stream as markdown_stream
from widgets.markdown.stream import StreamingText

DOC = (
    "# Title\n\nA paragraph with **bold** and `code`.\n\n"
    "- one\n- two\n\n  continued under two\n\n"
    "```python\ndef f():\n\n    return 1\n```\n\n"
    "> quoted\n\nThe end.\n"
)


def chunks_of(text: str, cuts: list[int] | None = None) -> MarkdownChunker:
    chunker = MarkdownChunker()
    points = sorted(set(cuts or [])) + [len(text)]
    start = 0
    for point in points:
        chunker.feed(text[start:point])
        start = point
    return chunker


def test_chunks_end_at_blank_lines_before_flush_left_lines() -> None:
    chunker = chunks_of(DOC)
    assert chunker.chunks[0] == "# Title\n\n"
    assert chunker.chunks[1] == "A paragraph with **bold** and `code`.\n\n"
    # the indented continuation stays with its list item
    assert "- one\n- two\n\n  continued under two\n\n" in chunker.chunks
    assert "".join(chunker.chunks) + chunker.tail == DOC == chunker.text


def test_a_blank_line_inside_a_code_fence_does_not_end_a_chunk() -> None:
    chunker = chunks_of(DOC)
    fenced = [chunk for chunk in chunker.chunks if chunk.startswith("```python")]
    assert fenced == ["```python\ndef f():\n\n    return 1\n```\n\n"]


def test_the_unfinished_paragraph_stays_in_the_tail() -> None:
    chunker = chunks_of("First.\n\nSecond, still strea")
    assert chunker.chunks == ["First.\n\n"]
    assert chunker.tail == "Second, still strea"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(DOC)), max_size=30))
def test_chunks_do_not_depend_on_how_the_text_was_split_into_deltas(cuts: list[int]) -> None:
    whole = chunks_of(DOC)
    split = chunks_of(DOC, cuts)
    assert split.chunks == whole.chunks
    assert split.tail == whole.tail


def test_a_huge_paragraph_is_cut_at_a_line_break() -> None:
    line = "word " * 20 + "\n"
    text = line * (3 * MAX_TAIL // len(line))
    chunker = chunks_of(text, list(range(0, len(text), 50)))
    assert len(chunker.chunks) >= 2
    assert len(chunker.tail) <= MAX_TAIL
    assert all(chunk.endswith("\n") for chunk in chunker.chunks)


def test_a_huge_code_block_cut_in_two_reopens_its_fence() -> None:
    body = "".join(f"x = {i}  # a line of code\n" for i in range(MAX_TAIL // 10))
    text = "~~~~text\n" + body + "~~~~\n\nafter\n"
    chunker = chunks_of(text, list(range(0, len(text), 50)))
    assert len(chunker.chunks) >= 2
    for chunk in chunker.chunks[:-1]:
        assert chunk.startswith("~~~~text\n") and chunk.endswith("~~~~\n")
    assert chunker.text == text


class Host(App[None]):
    def __init__(self, widget: StreamingText) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def test_streamed_text_renders_like_the_same_text_given_at_once() -> None:
    streamed, whole = StreamingText(), StreamingText(DOC)
    async with Host(streamed).run_test(size=(60, 40)) as pilot:
        for start in range(0, len(DOC), 7):
            streamed.append(DOC[start : start + 7])
            await pilot.pause()
        await pilot.pause()
        shown = streamed.visible_text()
    async with Host(whole).run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        assert whole.visible_text() == shown
    assert "Title" in shown and "continued under two" in shown and "return 1" in shown
    assert "**" not in shown and "```" not in shown  # rendered, not shown as source


async def test_markup_in_model_text_is_shown_literally() -> None:
    widget = StreamingText("Click [@click=app.quit]here[/] or [bold]this[/bold].")
    async with Host(widget).run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert "[@click=app.quit]here[/]" in widget.visible_text()
        assert "[bold]this[/bold]" in widget.visible_text()
        assert pilot.app.is_running


async def test_replace_with_different_text_renders_the_new_text() -> None:
    widget = StreamingText("draft one")
    async with Host(widget).run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        widget.replace("final answer")
        await pilot.pause()
        assert widget.text == "final answer"
        assert "final answer" in widget.visible_text() and "draft" not in widget.visible_text()


async def test_height_follows_the_rendered_lines_and_the_width() -> None:
    widget = StreamingText("word " * 100)
    async with Host(widget).run_test(size=(50, 40)) as pilot:
        await pilot.pause()
        narrow = widget.size.height
        assert narrow == widget.line_count > 5
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        assert widget.size.height == widget.line_count < narrow


async def test_plain_mode_does_not_read_markdown() -> None:
    widget = StreamingText("# not a heading\n**not bold**", plain_style="italic")
    async with Host(widget).run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        assert widget.visible_text().splitlines() == ["# not a heading", "**not bold**"]


async def test_chunks_off_screen_are_rendered_when_idle_with_exact_heights() -> None:
    doc = "\n\n".join(f"Paragraph {i}: " + "some words here " * (i % 9 + 1) for i in range(300))
    widget = StreamingText(doc)
    async with Host(widget).run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        assert widget.pending > 250  # only what the screen shows was rendered
        for _ in range(200):
            await pilot.pause(0.02)
            if not widget.pending:
                break
        assert widget.pending == 0
        await pilot.pause()
        exact = len(widget.visible_text().splitlines())
        assert widget.line_count == exact == widget.size.height
        assert widget.visible_text().splitlines()[-1].startswith("Paragraph 299")


async def test_a_chunk_scrolled_into_view_is_rendered_at_once() -> None:
    doc = "\n\n".join(f"Paragraph {i}: " + "more words " * 12 for i in range(300))
    widget = StreamingText(doc)
    async with Host(widget).run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        pilot.app.screen.scroll_end(animate=False)
        await pilot.pause()
        last = widget._chunks[-1]  # paragraph 299 is the tail: nothing follows it yet
        assert last.lines is not None and last.lines[1].text.startswith("Paragraph 298")
        assert widget._chunks[150].lines is None  # the middle was never on screen


def count_rendered_rows(widget: StreamingText) -> list[int]:
    """From now on, the rows Textual asks `widget` to render, in order."""
    rendered: list[int] = []
    original = widget.render_line

    def counting(y: int) -> Strip:
        rendered.append(y)
        return original(y)

    widget.render_line = counting  # type: ignore[method-assign]
    return rendered


@pytest.mark.engine
async def test_growing_text_renders_only_its_new_rows() -> None:
    """A block that grows keeps the rows Textual already rendered (`GrowsInPlace`)."""
    widget = StreamingText("\n\n".join(f"Paragraph {i}." for i in range(10)) + "\n\nTail")
    async with Host(widget).run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        rendered = count_rendered_rows(widget)
        height = widget.size.height
        widget.append(" grows\n\nand a new paragraph")
        await pilot.pause()
        assert widget.size.height == height + 2
        # the old tail was its separator and "Tail": only those rows and the new ones
        assert sorted(set(rendered)) == list(range(height - 2, height + 2)), rendered


async def test_chunks_finished_by_deltas_are_rendered_once_per_frame_not_per_delta(monkeypatch: pytest.MonkeyPatch) -> None:
    # No idle time comes within the test (on a loaded machine a pause took longer than IDLE_AFTER)
    monkeypatch.setattr(markdown_stream, "IDLE_AFTER", 60.0)
    widget = StreamingText("start")
    async with Host(widget).run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        for i in range(40):
            widget.append(f"\n\nParagraph {i} of a flood.")
        assert widget.pending == 40, "finishing a chunk renders nothing yet"
        await pilot.pause()
        assert widget._chunks[-1].lines is not None, "the layout renders the newest screenful"
        assert widget._chunks[25].lines is None, "chunks neither shown nor newest wait for idle time"
        assert widget.visible_text(last_lines=1) == "Paragraph 39 of a flood."


async def test_idle_rendering_waits_while_another_block_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    # quiet means 1 s without a delta here (0.15 s in use): a loaded machine's 0.02 s pauses
    # between deltas can take longer than 0.15 s, which is quiet as the widget sees it
    monkeypatch.setattr(markdown_stream, "IDLE_AFTER", 1.0)
    doc = "\n\n".join(f"Paragraph {i}: " + "some words here " * 5 for i in range(200))
    old, streaming = StreamingText(doc), StreamingText()

    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield old
            yield streaming

    async with Two().run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        waiting = old.pending
        assert waiting > 100
        for i in range(75):  # 1.5 s of deltas, longer than the idle delay
            streaming.append(f"delta {i} ")
            await pilot.pause(0.02)
        assert old.pending == waiting, "the old block rendered while the new one streamed"
        for _ in range(1500):
            await pilot.pause(0.02)
            if not old.pending:
                break
        assert old.pending == 0, "and it catches up once the stream is quiet"


async def test_a_delta_renders_again_only_the_tail_lines_it_changed() -> None:
    widget = StreamingText("Done.\n\n" + "a long paragraph that wraps " * 7 + "x")
    async with Host(widget).run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        assert len(widget.visible_text(last_lines=1).strip()) < 30, "room on the last line"
        rendered = count_rendered_rows(widget)
        height = widget.size.height
        assert height > 5
        widget.append("yz")  # the last word grows, on the same line
        await pilot.pause()
        assert widget.size.height == height
        assert sorted(set(rendered)) == [height - 1], f"the paragraph's other lines were rendered again: {rendered}"


def _tracked_objects_of(strip: Strip) -> int:
    """Objects the garbage collector tracks that this strip alone holds (its own caches and
    the strips in them; not what is shared, as the segments' styles)."""
    seen: set[int] = set()
    todo: list[object] = [strip]
    while todo:
        held = gc.get_referents(todo.pop())
        for each in held:
            if (gc.is_tracked(each) and id(each) not in seen and sys.getrefcount(each) <= 4  # (held here, in the loop and by the call: held nowhere else)
                    and not isinstance(each, (type, Style))):
                seen.add(id(each))
                todo.append(each)
    return len(seen)


@pytest.mark.engine
async def test_rendered_lines_keep_no_caches_of_their_own() -> None:
    # A 3,000-token reply kept some 19,000 objects for the collector to walk after every
    # run, 10,000 of them the seven caches of each of its lines' strips and the copies in them.
    widget = StreamingText("".join(f"Paragraph {i} with **bold** and `code` words.\n\n" for i in range(40)))
    async with Host(widget).run_test(size=(60, 100)) as pilot:
        await pilot.pause()
        await pilot.pause()  # drawn: the frames have used the lines
        lines = [line for chunk in widget._chunks for line in chunk.lines or ()]
        assert len(lines) >= 60
        held = [_tracked_objects_of(line) for line in lines]
        assert max(held) <= 2, held  # its segments' list (and a segment's tuple at most)
        drawn = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))  # as a frame does
        assert [line.text.rstrip() for line in drawn if line.text.strip()][-1] == "Paragraph 39 with bold and code words."
