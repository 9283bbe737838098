"""A session longer than the transcript mounts (fake pi child): search, the tool log and
Ctrl+Up reach the messages it leaves out by mounting them, and while the user reads up
there, new messages do not trim them away."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.app.test_rows_compositor import whole_maps
from tests.pi_harness import Fake, burst, call_view, ready, send, transcript_text, wait_until
from textual.widgets import Input, Static

from widgets.transcript.message_views import MessageView, ToolCallBlock
from widgets.transcript.transcript import MAX_VIEWS, Transcript
from widgets.transcript.search import SearchBar

TURNS = 150  # x 4 messages = 600: the oldest 480 are left out
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
COMMON = {"api": "openai-completions", "provider": "scripted", "model": "scripted-demo", "usage": USAGE}
RARE = {10: "quokka", 140: "quokka", 5: "aardvark"}  # words only these turns' questions have


def session_messages() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    stamp = 1795952825000
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        question = f"Question {turn}" + (f" about the {RARE[turn]}" if turn in RARE else "")
        messages += [
            {"role": "user", "content": [{"type": "text", "text": question}], "timestamp": stamp},
            {**COMMON, "role": "assistant", "stopReason": "toolUse", "timestamp": stamp + 1, "content": [
                {"type": "toolCall", "id": call_id, "name": "bash", "arguments": {"command": f"make turn-{turn}"}}]},
            {"role": "toolResult", "toolCallId": call_id, "toolName": "bash", "isError": False, "timestamp": stamp + 2,
             "content": [{"type": "text", "text": f"built turn {turn}\n"}]},
            {**COMMON, "role": "assistant", "stopReason": "stop", "timestamp": stamp + 3,
             "content": [{"type": "text", "text": f"Answer {turn}."}]},
        ]
        stamp += 10
    return messages


def long_session(tmp_path: Path) -> Fake:
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(session_messages()))
    return Fake(tmp_path, "--messages", str(path))


def user_view(transcript: Transcript, turn: int) -> MessageView | None:
    """The mounted view of turn `turn`'s question."""
    for view in transcript.views.values():
        if isinstance(view, MessageView) and view.item.role == "user":
            content = view.item.message.content
            text = content if isinstance(content, str) else content[0].text
            if text.split(" about")[0] == f"Question {turn}":
                return view
    return None


def in_view(transcript: Transcript, widget: Any) -> bool:
    """Whether `widget` is on screen inside the transcript."""
    return widget.is_attached and bool(widget.region) and transcript.region.overlaps(widget.region)


def scrolled_to(transcript: Transcript, view: Any) -> bool:
    """Whether `view` is on screen; if not, scroll to it (again until it holds: a trim's
    layout may follow the end once more)."""
    if in_view(transcript, view):
        return True
    transcript.scroll_to(y=view.virtual_region.y, animate=False)
    return False


async def loaded(pilot: Any, fake: Fake) -> Transcript:
    await ready(pilot, fake)
    app = pilot.app
    await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) == TURNS * 4, timeout=30, what="session loaded")
    transcript = app.query_one(Transcript)
    await wait_until(pilot, lambda: transcript.hidden_before == TURNS * 4 - MAX_VIEWS, what="the newest views mounted")
    assert user_view(transcript, 10) is None and user_view(transcript, 140) is not None
    return transcript


async def test_search_counts_and_reaches_the_messages_left_out(tmp_path: Path) -> None:
    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        transcript = await loaded(pilot, fake)
        count = app.query_one("#search-count", Static)
        await pilot.press("ctrl+s")
        await pilot.press(*"quokka")
        await wait_until(pilot, lambda: str(count.visual) == "1/1 · 1 earlier", what=f"the count, not {count.visual}")
        assert next(iter(app.screen.selections)).parent is user_view(transcript, 140)

        await pilot.press("up")  # back past the first match shown: the one left out
        await wait_until(pilot, lambda: str(count.visual) == "1/2", what=f"the earlier match, not {count.visual}")
        earlier = user_view(transcript, 10)
        assert earlier is not None and next(iter(app.screen.selections)).parent is earlier
        await wait_until(pilot, lambda: in_view(transcript, earlier), what="the earlier match scrolled to")
        assert transcript.hidden_before == 10 * 4, "mounted down to that message, not further"

        await pilot.press("up")  # no more left out: wraps round to the newest
        await wait_until(pilot, lambda: str(count.visual) == "2/2", what="wrapped round")

        search = app.query_one(SearchBar).query_one(Input)
        search.value = "aardvark"  # only in a message still left out
        await wait_until(pilot, lambda: str(count.visual) == "1/1", what=f"found at once, not {count.visual}")
        assert next(iter(app.screen.selections)).parent is user_view(transcript, 5)
        search.value = "okapi"
        await wait_until(pilot, lambda: str(count.visual) == "no match", what="no match anywhere")


async def test_tool_log_and_ctrl_up_reach_the_messages_left_out_and_reading_keeps_them(tmp_path: Path) -> None:
    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        transcript = await loaded(pilot, fake)
        shown = transcript.hidden_before

        await pilot.press("f3", "home", "enter")  # the first tool run, left out
        block = await wait_until(pilot, lambda: call_view(pilot.app, "call_0"), what="the first call mounted")
        assert isinstance(block, ToolCallBlock) and transcript.hidden_before == 1, "mounted down to its message"
        await wait_until(pilot, lambda: in_view(transcript, block), what="the first call scrolled to")

        # pi goes on while the user reads up there: the views they read are not trimmed
        views = len(transcript.views)
        fake.inject({"type": "message_start", "message": {**COMMON, "role": "assistant", "stopReason": "stop",
                                                          "timestamp": 1795952999000, "content": []}},
                    {"type": "message_end", "message": {**COMMON, "role": "assistant", "stopReason": "stop",
                                                        "timestamp": 1795952999000,
                                                        "content": [{"type": "text", "text": "A late answer."}]}})
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) == TURNS * 4 + 1 and app.desk.current.pi.pump.idle,
                         what="the new message applied")
        assert len(transcript.views) == views + 1
        assert block.is_attached and transcript.hidden_before == 1

        await pilot.press("f4", "ctrl+end")  # back at the end: trimmed back at once, and at each change after
        await wait_until(pilot, lambda: transcript.scroll_y >= transcript.max_scroll_y > 0, what="at the end")
        await wait_until(pilot, lambda: len(transcript.views) == MAX_VIEWS and not block.is_attached,
                         what="trimmed back")  # (the views are dropped at once, their widgets removed after)
        assert transcript.hidden_before == TURNS * 4 + 1 - MAX_VIEWS
        fake.inject({"type": "message_end", "message": {**COMMON, "role": "assistant", "stopReason": "stop",
                                                        "timestamp": 1795952999001,
                                                        "content": [{"type": "text", "text": "Another."}]}})
        await wait_until(pilot, lambda: len(app.desk.current.pi.model.items) == TURNS * 4 + 2 and app.desk.current.pi.pump.idle,
                         what="another message applied")
        await wait_until(pilot, lambda: len(transcript.views) == MAX_VIEWS, what="trimmed again")
        assert transcript.hidden_before == TURNS * 4 + 2 - MAX_VIEWS
        assert transcript.hidden_before > shown

        # Ctrl+Up from the first question shown goes on to the one before it, left out
        first = min(view.item.key for view in transcript.views.values()
                    if isinstance(view, MessageView) and view.item.role == "user")
        await wait_until(pilot, lambda: scrolled_to(transcript, transcript.views[first]), what="the first question shown")
        hidden = transcript.hidden_before
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: transcript.hidden_before < hidden, what="the question before, mounted")
        before = max(view.item.key for view in transcript.views.values()
                     if isinstance(view, MessageView) and view.item.role == "user" and view.item.key < first)
        await wait_until(pilot, lambda: in_view(transcript, transcript.views[before]), what="scrolled to it")


async def test_ctrl_end_trims_back_when_the_view_is_at_the_end_before_it_scrolls(tmp_path: Path) -> None:
    """Ctrl+End follows the end at once and scrolls there after the next frame; a layout in
    between puts an anchored view at the end itself, without a change of its scroll offset
    that anyone is told of (Textual's compositor), and the scroll then moves nothing: the
    views read up there stayed mounted until the user scrolled."""
    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        transcript = await loaded(pilot, fake)
        await pilot.press("f3", "home", "enter")  # the first tool run, left out: mounted down to it
        block = await wait_until(pilot, lambda: call_view(pilot.app, "call_0"), what="the first call mounted")
        await wait_until(pilot, lambda: in_view(transcript, block), what="the first call scrolled to")
        assert len(transcript.views) > MAX_VIEWS
        transcript.set_reactive(Transcript.scroll_y, transcript.max_scroll_y)  # (as Textual's compositor does)
        await pilot.press("f4", "ctrl+end")
        await wait_until(pilot, lambda: len(transcript.views) == MAX_VIEWS, what="trimmed back")


def top_of_screen(transcript: Transcript) -> tuple[MessageView, int] | None:
    """The topmost message view on screen and its row in the transcript, once the
    layout of the scroll position is drawn (None before)."""
    scroll = round(transcript.scroll_y)
    shown = [view for view in transcript.views.values() if isinstance(view, MessageView) and view.display
             and view.virtual_region.bottom > scroll]
    if not shown:
        return None
    view = min(shown, key=lambda view: view.virtual_region.y)
    row = view.virtual_region.y - scroll
    return (view, row) if view.region.y == transcript.content_region.y + row else None


@pytest.mark.parametrize("step", [40, 38])  # 38: the first item mounted is a tool result, shown in its call's block
async def test_scrolling_up_to_the_top_of_the_views_brings_the_earlier_ones_and_keeps_the_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: int) -> None:
    """Page Up, the wheel or the scrollbar at the top of the views mounted bring in the
    LOAD_STEP items before them, and the message at the top of the screen stays on its row
    (Page Up's a page below it, from the prompt or in the transcript: the page goes on up
    once they are in; pressed three times faster than frames, three pages): scrolling back through a long session goes on past
    the views mounted. A scroll of pideck's own there (to a message shown) loads nothing."""
    from tests.app.test_wheel import wheel
    from textual.scrollbar import ScrollTo
    import widgets.transcript.transcript as transcript_module

    monkeypatch.setattr(transcript_module, "LOAD_STEP", step)
    LOAD_STEP = step
    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        transcript = await loaded(pilot, fake)
        hidden = transcript.hidden_before
        transcript.release_anchor()
        page = transcript.scrollable_content_region.height
        for gesture in ("pideck's own", "pageup", "pageups", "pageup here", "wheel", "scrollbar"):
            start = page if gesture == "pageups" else 0
            transcript.scroll_to(y=start, animate=False, immediate=True)
            shown = await wait_until(pilot, lambda: transcript.scroll_y == start and top_of_screen(transcript),
                                     what="the top of the views, drawn")
            view, row = shown
            moved = {"pageup": page, "pageups": 2 * page, "pageup here": page}.get(gesture, 0)  # (beyond the view kept)
            if gesture == "pideck's own":
                await pilot.pause()
                assert transcript.hidden_before == hidden, "a scroll of pideck's own loads nothing"
                continue
            if gesture == "pageup":
                await pilot.press("pageup")
            elif gesture == "pageups":  # a page to the top, two more once the items before are in
                burst(pilot.app, "pageup", "pageup", "pageup")
            elif gesture == "pageup here":  # the transcript focused (Tab): its own page key
                transcript.focus()
                await wait_until(pilot, lambda: transcript.has_focus, what="the transcript focused")
                await pilot.press("pageup")
            elif gesture == "wheel":
                wheel(transcript, up=True)
            else:
                transcript.post_message(ScrollTo(y=0, animate=False))
            await wait_until(pilot, lambda: transcript.hidden_before == hidden - LOAD_STEP,
                             what=f"the earlier items mounted ({gesture})")
            at = row + page if gesture == "pageups" else row  # (the view's row before the first press)
            await wait_until(pilot, lambda: transcript.scroll_y > 0 and view.region.y == transcript.content_region.y + at + moved
                             and view.virtual_region.y - round(transcript.scroll_y) == at + moved,
                             what=f"the view kept on its row, and moved as pressed ({gesture})")
            hidden = transcript.hidden_before
        assert len(transcript.views) > MAX_VIEWS
        await pilot.press("ctrl+end")  # back at the end: the views read up there go, before any reply
        await wait_until(pilot, lambda: transcript.following and len(transcript.views) == MAX_VIEWS,
                         what="trimmed back at the end")
        assert transcript.hidden_before == TURNS * 4 - MAX_VIEWS


@pytest.mark.engine
async def test_a_reply_at_the_end_of_a_long_session_places_only_what_is_in_view(tmp_path: Path) -> None:
    """A reply trims the oldest views; the marker above them, far out of view, is told its
    count once the view leaves the end, so that the layouts of the reply place only what is
    in view (a refresh of a widget out of view had every widget placed, to find it)."""
    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        app = pilot.app
        transcript = await loaded(pilot, fake)
        compositor, hidden = app.desk.current.main._compositor, transcript.hidden_before
        with whole_maps(compositor) as made:
            await send(pilot, "One more question")
            await wait_until(pilot, lambda: transcript.hidden_before > hidden and not app.desk.current.pi.model.running
                             and len(transcript.views) == MAX_VIEWS, what="the reply, and the oldest views trimmed")
            await pilot.pause()
        assert made and not any(made), made
        marker = transcript.more_marker
        assert marker is not None
        await pilot.press("ctrl+home")  # the top of what is shown
        await wait_until(pilot, lambda: in_view(transcript, marker), what="the marker in view")
        assert f"{transcript.hidden_before} earlier messages not shown" in str(marker.render())


async def test_ctrl_home_goes_to_the_start_of_the_session_with_the_views_bounded(tmp_path: Path) -> None:
    """Ctrl+Home at the top shows the session's first messages in one press (not 100 more
    a press), in a window of at most MAX_VIEWS views: Page Down at its foot brings the
    next ones and drops the first, Ctrl+End goes back to the newest and follows them."""
    from widgets.transcript.transcript import START_VIEWS

    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        transcript = await loaded(pilot, fake)
        await pilot.press("ctrl+home")  # the top of what is shown
        await wait_until(pilot, lambda: transcript.scroll_y == 0, what="the top of the views")
        await pilot.press("ctrl+home")  # the start of the session
        await wait_until(pilot, lambda: user_view(transcript, 0) is not None, what="the first question")
        assert transcript.hidden_before == 0 and len(transcript.views) == START_VIEWS
        assert transcript.hidden_after == TURNS * 4 - START_VIEWS and not transcript.following
        await wait_until(pilot, lambda: in_view(transcript, user_view(transcript, 0)), what="the first question in view")
        fake.inject({"type": "message_end", "message": {**COMMON, "role": "assistant", "stopReason": "stop",
                                                        "timestamp": 1795952999001,
                                                        "content": [{"type": "text", "text": "Meanwhile."}]}})
        await wait_until(pilot, lambda: transcript.hidden_after == TURNS * 4 - START_VIEWS + 1, what="new output, waiting below")
        assert len(transcript.views) == START_VIEWS and transcript.new_output.display, "not mounted, but said"
        for _ in range(MAX_VIEWS // 100 + 1):  # down through the window, a page at its foot bringing more
            await pilot.pause()  # the last page's scroll to its first message is done after a refresh

            def at_foot() -> bool:
                transcript.scroll_end(animate=False, immediate=True)
                return transcript.scroll_y >= transcript.max_scroll_y > 0

            await wait_until(pilot, at_foot, what="the foot")
            shown = transcript.hidden_after
            await pilot.press("pagedown")
            await wait_until(pilot, lambda: transcript.hidden_after < shown, what="the next messages")
            assert len(transcript.views) <= MAX_VIEWS
        assert transcript.hidden_before > 0, "the first ones dropped"
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: transcript.hidden_after == 0 and user_view(transcript, TURNS - 1) is not None,
                         what="the newest again")
        assert "Meanwhile." in transcript_text(pilot.app)
        await wait_until(pilot, lambda: transcript.following and transcript.scroll_y == transcript.max_scroll_y,
                         what="following the end")
        assert len(transcript.views) == START_VIEWS


async def test_ctrl_end_from_the_start_mounts_the_newest_window_and_the_rest_stays_reachable(tmp_path: Path) -> None:
    """Back at the end from the session's start, Ctrl+End mounts the newest START_VIEWS
    items, not MAX_VIEWS (that took seconds in a long session of tool calls); the ones
    before them still come in as Ctrl+Up and search go to them, and Ctrl+Home still
    reaches the start."""
    from widgets.transcript.transcript import START_VIEWS

    fake = long_session(tmp_path)
    async with fake.app().run_test(size=(100, 30)) as pilot:
        transcript = await loaded(pilot, fake)
        await pilot.press("ctrl+home", "ctrl+home")
        await wait_until(pilot, lambda: user_view(transcript, 0) is not None, what="the first question")
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: transcript.hidden_after == 0 and transcript.following
                         and user_view(transcript, TURNS - 1) is not None, what="the newest again")
        assert len(transcript.views) == START_VIEWS
        assert transcript.hidden_before == TURNS * 4 - START_VIEWS
        await wait_until(pilot, lambda: in_view(transcript, user_view(transcript, TURNS - 1)), what="the last question shown")

        first = min(view.item.key for view in transcript.views.values()
                    if isinstance(view, MessageView) and view.item.role == "user")
        await wait_until(pilot, lambda: scrolled_to(transcript, transcript.views[first]), what="the first question shown")
        hidden = transcript.hidden_before
        await pilot.press("ctrl+up")
        await wait_until(pilot, lambda: transcript.hidden_before < hidden, what="the question before, mounted")

        assert await transcript.reveal(min(transcript.session.items[0].key, first)), "the session's first item"
        assert transcript.hidden_before == 0
