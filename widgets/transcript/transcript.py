"""The streaming transcript: applies the session model's `Changes` to message views.

It stays anchored to the bottom while the stream grows; scrolling up releases the
anchor and scrolling back to the end restores it (Textual's `anchor`). Output that comes
meanwhile shows "↓ new output" at the foot of the transcript.
Only the newest `MAX_VIEWS` items are mounted; older ones load when a scroll reaches the
top of those mounted (`LOAD_STEP` at a time, the view kept where it was), or when search,
the tool log or Ctrl+Up goes to one (`reveal`). Ctrl+Home at the top shows the session's first
`START_VIEWS` items instead of the newest (a window: Page Down at its foot brings the next
ones, dropping the first beyond `MAX_VIEWS`; Ctrl+End goes back to the newest `START_VIEWS`), so the
views mounted, and the memory they hold, stay bounded however long the session. Views are trimmed back only while the user follows the
end, never under what they are reading.

Every layout places every widget mounted, off screen too (Textual's full map): a reply in a
session of 400 views took 80 to 110 ms from Enter to the screen where one of 40 took 35. So
the bound is a few screens of scrollback, not the whole session.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar, ScrollTo, ScrollUp
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from protocol.wire.messages import CustomMessage, ToolResultMessage
from protocol.state.session_model import Banner, Changes, MessageItem, SessionModel
from protocol.state.tool_runs import call_place
from widgets.engine.grows_in_place import GrowsInPlace
from widgets.transcript.message_views import BannerView, MessageView, ToolCallBlock, tool_summary
from widgets.text.page_keys import PagesAtOnce
from widgets.engine.strip_scrollbar import use_strip_scrollbar
from widgets.engine.widget import anchor_released
from widgets.tools.output import output_preview

MAX_VIEWS = 120
START_VIEWS = 60  # Ctrl+Home shows the session's first items, this many (Page Down at their foot brings more)
LOAD_STEP = 40  # items mounted above the first one shown when a scroll reaches the top
WHEEL_LINES = 2  # lines a wheel step scrolls (Textual's own)
WHEEL_MAX = 6  # ... and at most, as steps come quicker (pi's "auto" wheel speed)
WHEEL_QUICK = 0.05  # seconds between two steps of a fast spin
WHEEL_ALT = 5  # Alt+wheel scrolls this many times as far (as in pi)
HIGHLIGHT_SLICE = 0.01  # seconds of idle time a slice highlights the blocks Ctrl+O left plain for
HIGHLIGHT_PAUSE = 0.02  # ... and the time between slices, for keys and frames
KEEP_TRIES = 5  # frames after Ctrl+O within which the layout that keeps the top view is looked for
WELCOME = (
    "Type a prompt and press Enter.\n"
    "Alt+Enter queues a follow-up while pi works, Esc aborts and gives back the queue.\n"
    "!cmd runs a shell command (!!cmd keeps it out of the model's context), "
    "/ completes pi's commands, @ completes file paths.\n"
    "Ctrl+T thinking · Ctrl+O tool output · F2 side panes · F3 tool log · Ctrl+C twice quits."
)
# With pi held (protocol/hold/): the window can go and leave the run going.
WELCOME_HELD = WELCOME.replace(
    " · Ctrl+C twice quits.", ".\nCtrl+\\ detaches: the window goes, the run goes on (pideck attach brings it back) · "
    "Ctrl+C twice quits and stops it.")


def hidden_in_transcript(session: SessionModel, item: MessageItem) -> bool:
    """Tool results show inside their call; hidden custom messages stay hidden."""
    message = item.message
    if isinstance(message, ToolResultMessage):
        return session.shown_in_call(item)
    return isinstance(message, CustomMessage) and not message.display


class NewOutputMarker(Widget):
    """Says that output came below while the user reads above it; a click goes down to it.
    Not a Static: search and mouse selection leave it alone."""

    ALLOW_SELECT = False

    def render(self) -> Text:
        return Text("↓ new output · ctrl+end")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if isinstance(self.parent, Transcript):
            self.parent.to_bottom()


class Transcript(PagesAtOnce, GrowsInPlace, VerticalScroll, can_focus=True):
    DEFAULT_CSS = "\n".join(  # its own rules, then those of the views it shows (widgets/transcript/message_views.py)
        Path(__file__).with_name(sheet).read_text() for sheet in ("transcript.tcss", "message_views.tcss"))
    FOCUS_ON_CLICK = False  # a click or a drag (selecting text) leaves the prompt focused, to type on
    page_animate = False  # (a page is there at once: an animation would race the stream's end)

    def __init__(self, session: SessionModel, wheel_lines: int | None = None, held: bool = False, **kwargs: object) -> None:
        """`wheel_lines`: lines a wheel step scrolls (pi's `fullscreenWheelScrollLines`);
        None speeds up with the spin. `held`: pi is held (the welcome says how to detach)."""
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.wheel_lines = wheel_lines
        self.welcome_text = WELCOME_HELD if held else WELCOME
        self.views: dict[int, MessageView | BannerView] = {}
        self._hidden_before = 0
        self._hidden_after = 0  # items after the views shown (a window away from the end)
        self._waiting: list[int] = []  # the item whose view waits for something to show (`_waits`)
        self.later_marker: Static | None = None  # says how many later items are left out, while some are
        self.welcome: Static | None = None  # the welcome text, until the first message comes
        self.more_marker: Static | None = None  # says how many items are left out, while some are
        self._wheel = (0.0, WHEEL_LINES)  # when the last wheel step came, and its lines
        self._texts: dict[int, tuple[str, str]] = {}  # searchable text of items left out, and lowered
        self.new_output = NewOutputMarker(id="new-output")  # docked at the foot, shown by apply
        self._arranged: DockArrangeResult | None = None  # the views' last arrangement
        # A view kept at its offset on screen by the next arrangement (not the one before, the
        # third), or by the first that places the fourth (a view being mounted; None: any).
        self._keep: tuple[Widget, int, DockArrangeResult, Widget | None] | None = None
        self._unhighlighted: list[ToolCallBlock] = []  # blocks drawn plain, to highlight (the nearest last)
        self._highlight_timer: Timer | None = None
        self._loading_above = False  # a scroll reached the top: earlier items are being mounted
        self._rows_owed = 0  # the rows Page Up went past the top of the views mounted, while they load
        self._trim_due = False  # back at the end with more views than MAX_VIEWS mounted
        # The more marker's count changed while it was out of view, the view following the end:
        # told when the view leaves the end (a refresh of a widget out of view had the
        # compositor place every widget, to find where it is: 8 to 20 ms a reply in a long session).
        self._more_due = False

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return use_strip_scrollbar(self)  # it moves every frame of a stream

    def on_mount(self) -> None:
        self.anchor()
        self.welcome = Static(self.welcome_text, id="welcome", classes="welcome", markup=False)
        self.mount(self.new_output, self.welcome)

    def on_resize(self) -> None:
        """Toasts stay above the prompt however tall it grows: the toast rack's foot is the
        transcript's."""
        below = self.screen.size.height - self.region.bottom
        for rack in self.screen.query("#textual-toastrack"):
            rack.styles.margin = (0, 0, below, 0)

    @property
    def following(self) -> bool:
        """The view keeps to the end as output comes (the user has not scrolled up)."""
        return not anchor_released(self)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)  # restores the anchor at the end
        if self._unhighlighted:
            self._highlight_shown()
        if self.new_output.display and self.following:
            self.new_output.display = False
        if self._more_due and (new_value < old_value or not self.following):
            self._update_more()
        self._trim_soon()

    def _trim_soon(self) -> None:
        """Back at the end, the views read up there go now, not in the next reply's frame."""
        if self.following and len(self.views) > MAX_VIEWS and not self._trim_due:
            self._trim_due = True
            self.call_after_refresh(self._trim_at_end)

    async def apply(self, changes: Changes) -> None:
        """Bring the views up to date with the model."""
        if changes.reset:
            await self.rebuild()
            return
        keys = [*self._waiting, *changes.added]  # (in order: a view that waited goes before what came after it)
        self._waiting = []
        if self._hidden_after:  # a window away from the end: new items wait below it
            self._hidden_after += sum(1 for key in keys if key not in self.views)
            keys = []
            if changes.added:
                self.new_output.display = True
            changes = replace(changes, added=[])
            if self.later_marker is not None:
                self.later_marker.update(self._later_text())
        elif keys and self._waits(keys[-1]):
            self._waiting = [keys.pop()]
        if changes.added and self.welcome is not None:  # not a query: that walks every widget of a long transcript
            await self.welcome.remove()
            self.welcome = None
        added = set(keys)  # their views show what their blocks hold now: no delta goes to them again
        new_views = [view for key in keys if (view := self._make_view(key)) is not None]
        if new_views:
            await self.mount_all(new_views)
        for (key, index), deltas in changes.appended.items():
            if key in added or (key, index) in changes.replaced:
                continue
            view = self.views.get(key)
            if isinstance(view, MessageView):
                await view.append_text(index, "".join(deltas))
        for key, index in changes.replaced:
            view = self.views.get(key)
            if key not in added and isinstance(view, MessageView):
                await view.replace_block(index)
        for key in changes.items:
            view = self.views.get(key)
            if isinstance(view, MessageView):
                await view.refresh_item()
            elif isinstance(view, BannerView):
                view.refresh_banner()
        if changes.tools:
            self.refresh_tools(set(changes.tools))
        if not self.following and (changes.added or changes.appended or changes.replaced or changes.tools):
            self.new_output.display = True
        await self.trim()

    def _waits(self, key: int) -> bool:
        """An assistant message pi has started that has no block yet: its view waits for the
        first (or for its end, or for anything after it), and both are laid out at once; its
        own layout was a frame of its own, the run's status line says pi is working meanwhile."""
        item = self.session.item(key)
        return isinstance(item, MessageItem) and item.role == "assistant" and item.streaming and not item.blocks

    def _make_view(self, key: int) -> MessageView | BannerView | None:
        item = self.session.item(key)
        if item is None or key in self.views:
            return None
        if isinstance(item, Banner):
            view: MessageView | BannerView = BannerView(item)
        else:
            view = MessageView(self.session, item)
            if self._hidden(item):
                view.display = False
        self.views[key] = view
        return view

    def _hidden(self, item: MessageItem) -> bool:
        return hidden_in_transcript(self.session, item)

    def refresh_tools(self, keys: set[str]) -> None:
        for key in keys:
            if (widget := self.view_for_tool(key)) is not None:
                widget.refresh_view()

    async def rebuild(self, count: int = MAX_VIEWS) -> None:
        """Drop every view and show the model's last `count` items again (session loaded
        or switched; back from a window away from the end)."""
        await self._show_window(-count, None)
        self.new_output.display = False
        self.anchor()

    async def _show_window(self, start: int, stop: int | None) -> None:
        """Mount the views of items start..stop alone (a slice of the model's items, as they
        are once the old views are gone: records may come meanwhile), with markers for those left out."""
        await self.remove_children([child for child in self.children if child is not self.new_output])
        self.views.clear()
        self._waiting = []
        self._texts.clear()
        self._unhighlighted.clear()
        items = self.session.items
        start, stop, _ = slice(start, stop).indices(len(items))
        self._hidden_before, self._hidden_after = start, len(items) - stop
        widgets: list[Static | MessageView | BannerView] = []
        self.more_marker = self._more_marker() if self._hidden_before else None
        if self.more_marker is not None:
            widgets.append(self.more_marker)
        widgets.extend(view for item in items[start:stop] if (view := self._make_view(item.key)) is not None)
        self.later_marker = Static(self._later_text(), id="later-marker", classes="banner") if self._hidden_after else None
        if self.later_marker is not None:
            widgets.append(self.later_marker)
        self.welcome = Static(self.welcome_text, id="welcome", classes="welcome", markup=False) if not items else None
        if self.welcome is not None:
            widgets.append(self.welcome)
        await self.mount_all(widgets)

    def _later_text(self) -> str:
        return f"… {self._hidden_after} later messages not shown (page down here moves on, ctrl+end goes to the end)"

    def _more_text(self) -> str:
        return f"… {self._hidden_before} earlier messages not shown (scrolling up loads them; ctrl+home here: the session's start)"

    def _more_marker(self) -> Static:
        self._more_due = False
        return Static(self._more_text(), id="more-marker", classes="banner")

    def _update_more(self) -> None:
        self._more_due = False
        if self.more_marker is not None:
            self.more_marker.update(self._more_text())

    async def trim(self, keep: int | None = None) -> None:
        """Keep at most `keep` (MAX_VIEWS) views mounted while the view follows the end; the
        oldest go (they stay in the model). Scrolled up, the user may be reading them.
        Following is the anchor, not the scroll offset: that lags behind views just mounted."""
        excess = len(self.views) - (MAX_VIEWS if keep is None else keep)
        if excess <= 0 or self._hidden_after or not self.following:
            return
        # the views and the count left out change together, before any await (a search or
        # the tool log reading them between two removals saw views gone and not counted)
        gone = [self.views.pop(key) for key in sorted(self.views)[:excess]]
        self._hidden_before += excess
        await self.remove_children(gone)
        if self.more_marker is not None:  # (kept: a query walks every widget of a long transcript)
            self._more_due = True  # (the view follows the end: the marker is far above the screen)
        else:
            self.more_marker = self._more_marker()
            await self.mount(self.more_marker, before=0)

    async def _trim_at_end(self) -> None:
        self._trim_due = False
        await self.trim()

    @property
    def hidden_before(self) -> int:
        """How many of the model's first items are left out (not mounted)."""
        return self._hidden_before

    async def reveal(self, key: int) -> bool:
        """Mount the items left out down to the one with `key`; True if it is shown now
        (or already was). Its view is laid out at the next refresh."""
        if key in self.views:
            return True
        if self._hidden_after:  # a window away from the end: back to the newest first
            await self.rebuild(START_VIEWS)
            if key in self.views:
                return True
        left_out = self.session.items[: self._hidden_before]
        index = bisect_left([item.key for item in left_out], key)  # keys grow along the list
        if index == len(left_out) or left_out[index].key != key:
            return False
        await self.load_earlier(self._hidden_before - index)
        return key in self.views

    def left_out_texts(self) -> list[tuple[int, str, str]]:
        """(key, text, lowered text) of each item left out, oldest first, for search. An
        item is left out long after it changed last, so its text is kept once made."""
        texts = []
        for item in self.session.items[: self._hidden_before]:
            if (known := self._texts.get(item.key)) is None:
                text = self._searchable_text(item)
                known = self._texts[item.key] = (text, text.lower())
            texts.append((item.key, *known))
        return texts

    def _searchable_text(self, item: MessageItem | Banner) -> str:
        """Roughly the text an item's view shows, from the model: its blocks, its tool
        calls with their output's preview, a banner's words. A tool result shown inside
        its call has none of its own."""
        if isinstance(item, Banner):
            return "\n".join((item.title, item.detail, item.outcome))
        if self._hidden(item):
            return ""
        parts = [getattr(item.message, "command", None) or ""]  # a !command's
        for index, block in item.ordered_blocks():
            call = block.tool_call
            if call is None:
                parts.append(block.text)
                continue
            parts.append(f"{call.name}  {tool_summary(call.name, call.arguments)}")
            run = self.session.run_at(item.key, index)
            if run is not None and run.output:
                parts.append(output_preview(run.output, expanded=False).plain)
        return "\n".join(parts)

    def _load_above(self) -> None:
        """The user scrolled to the top of the views mounted (the wheel, Page Up, the
        scrollbar; not Ctrl+Home, whose second press goes to the session's start): the
        items before them come in, once the scroll is drawn."""
        if self._hidden_before and not self._loading_above:
            self._loading_above = True
            self.call_after_refresh(self._load_above_in_place)

    async def _load_above_in_place(self) -> None:
        """LOAD_STEP items mounted above the first one shown, the view kept where it is (the
        first layout after the mount scrolls by their height, before the frame is drawn);
        then the rows Page Up owes, from there."""
        try:
            if not self._hidden_before or self.scroll_y > 0:
                self._rows_owed = 0
                return
            await self.load_earlier(LOAD_STEP, None if self.following else self._top_on_screen())
        finally:
            self._loading_above = False
        if self._rows_owed:
            self.call_after_refresh(self._pay_rows_owed)

    def _pay_rows_owed(self) -> None:
        rows, self._rows_owed = self._rows_owed, 0
        if rows and not self.following:
            self._scroll_up(rows)

    async def load_earlier(self, count: int = 100, keep: tuple[Widget, int] | None = None) -> None:
        """Mount up to `count` items before the oldest one shown; `keep`: a view and its
        offset on screen, kept in the layout that places them."""
        if not self._hidden_before:
            return
        start = max(0, self._hidden_before - count)
        items = self.session.items[start : self._hidden_before]
        views = [view for item in items if (view := self._make_view(item.key)) is not None]
        placed = next((view for view in views if view.display), None)  # (a hidden one is not placed)
        if keep is not None and placed is not None and self._arranged is not None:
            self._keep = (*keep, self._arranged, placed)
        self._hidden_before = start
        marker = self.more_marker
        assert marker is not None, "items are left out, so the marker that says so is shown"
        await self.mount_all(views, after=marker)
        if not start:
            await marker.remove()
            self.more_marker = None
        else:
            self._update_more()

    # --- moving around (pi's keys: PgUp/PgDn, Ctrl+Home/End, Ctrl+Shift+Up/Down) ------------

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel_step(event, -1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel_step(event, 1)

    def on_scroll_to(self, message: ScrollTo) -> None:
        if message.y is not None and message.y <= 0:  # the scrollbar dragged to the top
            self._load_above()

    def on_scroll_up(self, message: ScrollUp) -> None:  # a click on the scrollbar above its thumb
        self._load_above()

    def _wheel_step(self, event: events.MouseScrollUp | events.MouseScrollDown, direction: int) -> None:
        """Scroll WHEEL_LINES a step, up to WHEEL_MAX as a spin speeds up (or `wheel_lines`),
        five times as far with Alt (as pi's wheel). Up stops following the stream; the end
        resumes it."""
        if event.ctrl or event.shift:
            return  # sideways: Textual's own
        event.prevent_default()
        event.stop()
        if direction > 0 and self.scroll_target_y >= self.max_scroll_y:
            return  # at the end already: scrolling would only stop it following the stream
        now = time.monotonic()
        last, lines = self._wheel
        lines = min(WHEEL_MAX, lines + 1) if now - last < WHEEL_QUICK else WHEEL_LINES
        self._wheel = (now, lines)
        lines = self.wheel_lines or lines
        target = self.scroll_target_y + direction * lines * (WHEEL_ALT if event.meta else 1)
        self.scroll_to(y=target, animate=False, immediate=True)  # the next step goes on from there
        if direction < 0:
            self._load_above()

    def page(self, pages: int) -> None:
        """Up (< 0) or down a page, from the prompt (pi's keys) or here, on from where the
        last press left the view; moving up stops following the stream until the end is
        reached again."""
        if pages < 0:
            self._scroll_up(self.scrollable_content_region.height)
            return
        self._rows_owed = 0
        if self._hidden_after and self.scroll_y >= self.max_scroll_y:
            self.call_later(self.load_later)
        else:
            super().page(pages)

    def _scroll_up(self, rows: int) -> None:
        """Up `rows` rows now; those past the top of the views mounted, once the items
        before them are in."""
        target = self.scroll_target_y - rows
        self.scroll_to(y=target, animate=False, immediate=True)
        if target <= 0 and self._hidden_before:  # the top: the items before come in
            self._rows_owed += round(-target)
            self._load_above()

    async def to_top(self) -> None:
        """The start of the transcript; from there, the start of the session: its first
        MAX_VIEWS items instead of the newest."""
        self._rows_owed = 0
        if self.scroll_y <= 0 and self._hidden_before:
            self.release_anchor()
            await self._show_window(0, min(len(self.session.items), START_VIEWS))
        self.scroll_home(animate=False, immediate=True)

    def to_bottom(self) -> None:
        """The end, following the stream again (the newest items, from a window away from it)."""
        self._rows_owed = 0
        if self._hidden_after:
            self.call_later(self._back_to_end)
            return
        self.scroll_end(animate=False)
        self.new_output.display = False
        self._trim_soon()  # (a layout before the scroll may put the view at the end: no scroll then)

    async def _back_to_end(self) -> None:
        """The newest START_VIEWS items, as many as the window at the start holds: mounting
        MAX_VIEWS took seconds; the ones before stay loadable (search, Ctrl+Up, Ctrl+Home)."""
        if self._hidden_after:
            await self.rebuild(START_VIEWS)
        self.scroll_end(animate=False, immediate=True)

    @property
    def hidden_after(self) -> int:
        """How many of the model's last items are left out (a window away from the end)."""
        return self._hidden_after

    async def load_later(self, count: int = 100) -> None:
        """Bring the `count` items below a window away from the end: mounted below it, the
        first ones dropped beyond MAX_VIEWS; the end reached, it follows the end again."""
        if not self._hidden_after:
            return
        items = self.session.items
        stop = len(items) - self._hidden_after
        if stop + count >= len(items):
            await self._back_to_end()
            return
        views = [view for item in items[stop : stop + count] if (view := self._make_view(item.key)) is not None]
        marker = self.later_marker
        assert marker is not None, "items are left out below, so the marker that says so is shown"
        await self.mount_all(views, before=marker)
        self._hidden_after -= count
        marker.update(self._later_text())
        excess = len(self.views) - MAX_VIEWS
        if excess > 0:  # the first ones go: what is read is below them
            for key in sorted(self.views)[:excess]:
                await self.views.pop(key).remove()
            self._hidden_before += excess
            if self.more_marker is not None:
                self._update_more()
            else:
                self.more_marker = self._more_marker()
                await self.mount(self.more_marker, before=0)
        if views:
            self.call_after_refresh(views[0].scroll_visible, top=True, animate=False)

    async def jump_prompt(self, direction: int) -> None:
        """To the start of the previous (-1) or next (1) message the user sent; past the
        last one, to the end. Before the first one shown, to the newest one left out."""
        tops = [
            view.virtual_region.y
            for _, view in sorted(self.views.items())
            if isinstance(view, MessageView) and view.item.role == "user" and view.display
        ]
        here = round(self.scroll_y)
        if direction < 0:
            target = max((y for y in tops if y < here), default=None)
        else:
            target = min((y for y in tops if y > here), default=None)
        if target is not None:  # now: the next press goes on from there
            self.scroll_to(y=target, animate=False, immediate=True)
        elif direction > 0:
            self.to_bottom()
        else:
            left_out = reversed(self.session.items[: self._hidden_before])
            key = next((item.key for item in left_out if isinstance(item, MessageItem) and item.role == "user"), None)
            if key is not None and await self.reveal(key):
                self.show_view(self.views[key])

    def show_view(self, view: MessageView | BannerView | ToolCallBlock) -> None:
        """Scroll `view`'s top to the top of the transcript once it is laid out (a view
        just mounted is not yet); the view stops following the stream."""
        self.release_anchor()
        self.call_after_refresh(view.scroll_visible, top=True, animate=False)

    def set_thinking_collapsed(self, collapsed: bool) -> None:
        self.set_class(collapsed, "-thinking-collapsed")

    def set_tools_expanded(self, expanded: bool) -> None:
        """Every tool block expanded or collapsed at once. Only the code of those that
        fill the screen is highlighted now (each expanded block highlights up to 200
        rows: a few hundred took seconds); the others show theirs plain, in the same
        rows, and are highlighted as they scroll into view or in slices of idle time.
        The message at the top of the screen stays there."""
        blocks = list(self.query(ToolCallBlock))
        shown = self._views_shown()
        order: dict[Widget, int] = {view: index for index, (_, view) in enumerate(sorted(self.views.items()))}
        rows, keep = 0, None
        if self.following:  # the screen keeps to the end: the last blocks fill it
            at = len(order)
            on_screen = [block for block in reversed(blocks) if block.parent in shown]
        else:
            at = order.get(shown[0], 0) if shown else 0
            on_screen = [block for block in blocks if block.parent in shown]
            if (top := self._top_on_screen()) is not None and self._arranged is not None:
                rows = top[1]  # <= 0: the rows of the first view above the screen
                keep = (*top, self._arranged, None)
        for block in on_screen:  # those on screen, from its top (or foot) on, until they fill it
            if rows < self.size.height:
                block.expanded = expanded
                block.refresh_view()
                rows += block.body_lines + 1
        for block in blocks:
            if block.expanded != expanded:
                block.expanded = expanded
                block.refresh_view(highlight=False)
        if keep is not None:  # now: a block asked for its size above arranged the views with some grown
            self._keep = keep
        pending = [block for block in blocks if block.highlight_pending]
        pending.sort(key=lambda block: abs(order.get(block.parent, 0) - at), reverse=True)  # nearest last
        self._unhighlighted = pending
        if self._highlight_timer is not None:
            self._highlight_timer.stop()
            self._highlight_timer = None
        self.call_after_refresh(self._expanded)

    def _expanded(self, tries: int = KEEP_TRIES) -> None:
        """After the layout and the frame that show the blocks: the view kept, idle slices on.
        A frame drawn before the blocks asked for their layout (one already due when Ctrl+O
        came) runs this too soon: then the view waits for the frames after it, a few at most."""
        if self._keep is not None and tries > 1:
            self.call_after_refresh(self._expanded, tries - 1)
            return
        self._keep = None
        self._start_highlighting()

    def _start_highlighting(self) -> None:
        if self._unhighlighted and self._highlight_timer is None:
            self._highlight_timer = self.set_timer(HIGHLIGHT_PAUSE, self._highlight_slice)

    def _views_shown(self) -> list[Widget]:
        """The views on screen in the last layout, top first."""
        if self._arranged is None:
            return []
        window = Region(0, round(self.scroll_y), self.size.width, self.size.height)
        placements = self._arranged.get_visible_placements(window)
        return [p.widget for p in sorted(placements, key=lambda p: p.region.y) if isinstance(p.widget, MessageView)]

    def _top_on_screen(self) -> tuple[Widget, int] | None:
        """The first view on screen in the last layout, and the rows from the screen's top
        to its own (<= 0: its rows above the screen)."""
        shown = self._views_shown()
        if not shown or self._arranged is None:
            return None
        top = next((p.region.y for p in self._arranged.placements if p.widget is shown[0]), None)
        return None if top is None else (shown[0], top - round(self.scroll_y))

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Textual's arrangement of the views, kept for `_views_shown`; the first layout
        after Ctrl+O scrolls to keep the message that was at the top of the screen there
        (as Textual's own anchor keeps the end, before the frame is drawn)."""
        result = self._arranged = super().arrange(size, optimal)
        if self._keep is not None and result is not self._keep[2] and (
            (placed := self._keep[3]) is None or any(p.widget is placed for p in result.placements)
        ):
            view, offset, _, _ = self._keep
            self._keep = None
            top = next((p.region.y for p in result.placements if p.widget is view), None)
            if top is not None and not self.following:
                y = max(0, top - offset)
                self.set_reactive(Widget.scroll_y, y)
                self.set_reactive(Widget.scroll_target_y, y)
                self.vertical_scrollbar.position = y
        return result

    def _highlight_shown(self) -> None:
        """Highlight the blocks left plain that are on screen now (before it is drawn)."""
        shown = set(self._views_shown())
        for block in [block for block in self._unhighlighted if block.parent in shown]:
            block.highlight()
        self._unhighlighted = [block for block in self._unhighlighted if block.highlight_pending]

    def _highlight_slice(self) -> None:
        """Highlight blocks left plain, nearest the screen first, for HIGHLIGHT_SLICE seconds
        (a block at least), then let keys and frames in for HIGHLIGHT_PAUSE."""
        self._highlight_timer = None
        started = time.perf_counter()
        while self._unhighlighted and time.perf_counter() - started < HIGHLIGHT_SLICE:
            block = self._unhighlighted.pop()
            if block.is_attached:
                block.highlight()
        self._start_highlighting()

    def view_for_tool(self, key: str) -> ToolCallBlock | None:
        """The shown block of a tool run's call (`tool_runs.run_key`), found from its place
        rather than a walk of every widget (tool updates arrive every frame while a tool runs)."""
        place = call_place(key)
        view = self.views.get(place[0]) if place is not None else None
        widget = view.block_widgets.get(place[1]) if isinstance(view, MessageView) and place is not None else None
        return widget if isinstance(widget, ToolCallBlock) else None
