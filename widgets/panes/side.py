"""The side panes: tool execution log, steering/follow-up queue, session stats, status line."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import astuple as field_values, dataclass

from msgspec.structs import astuple
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from protocol.state import footer_format
from protocol.state.formatting import cost, duration, on_off, tokens
from protocol.wire.messages import ToolResult
from protocol.state.session_model import SessionModel, ToolRun
from widgets.transcript.message_views import run_mark
from protocol.state.formatting import model_key
from widgets.text.safe import clean, one_row, spanning
from widgets.panes.status_where import GAP, SEP, Part, fit, stats_parts
from widgets.tools.kinds import Call, kind_of
from widgets.tools.output import ShowToolOutput
from widgets.colors import palette

MAX_TOOL_ROWS = 500
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STATUS_CHARS = 200  # of an extension's status (the line shows less)
SPIN_EVERY = 0.25  # seconds between the spinner's steps, at the most
MB = 1024 * 1024


def tool_title(run: ToolRun, width: int = 28, cwd: str = "") -> Text:
    """A run's title as its kind draws it (`edit src/app.py +3 −1`, `grep /x/ in . · 4 matches`)."""
    return kind_of(run.name).title(Call(run.name, run.args, run, cwd, width=max(8, width - 14)))


def tail_line(output: str, chars: int = 2000) -> str:
    """The last line of `output`, its last `chars` characters at most, not cut inside a
    control sequence (whose parameters would show as text). Work is bounded by `chars`."""
    end = len(output)
    while end and output[end - 1] == "\n":
        end -= 1
    line = output.rfind("\n", max(0, end - chars), end) + 1
    start = max(line, end - chars)
    sequence = spanning(output, start, line)
    return output[sequence[0] if sequence is not None else start : end]


def tool_row(run: ToolRun, title: Text, width: int = 28) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(*run_mark(run))
    text.append_text(title)
    text.truncate(width, overflow="ellipsis")
    if took := duration(run.elapsed_ms()):
        text.append(f" {took}", palette.style("muted"))
    last = tail_line(run.output)
    if last:
        tail = Text("  " + one_row(last).expandtabs(), palette.style("error") if run.is_error else palette.style("muted"))
        tail.truncate(width + 8, overflow="ellipsis")
        text.append("\n")
        text.append_text(tail)
    return text


class ToolLog(OptionList):
    """Every tool execution of the session; Enter jumps to it in the transcript, o shows its output.
    It follows the newest tool until the user scrolls up or highlights an older one."""

    DEFAULT_CSS = """
    ToolLog {
        height: 1fr;
        padding: 0;
        border: round $border-blurred;
        border-title-color: $accent;
    }
    ToolLog:focus {
        border: round $accent;
    }
    """
    BINDINGS = [Binding("o", "show_output", "Full output")]

    @dataclass
    class Selected(Message):
        run_key: str

    def __init__(self, session: SessionModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.border_title = "Tools"
        self._following = True
        # per run, its title and what it was drawn from: a title counts through the run's whole
        # output (grep's matches, ls's entries), and every row is drawn again on each tool event
        self._titles: dict[str, tuple[tuple[object, ...], ToolResult | None, Text]] = {}

    def refresh_runs(self) -> None:
        runs = self.session.tool_runs()[-MAX_TOOL_ROWS:]
        highlighted, scroll_y = self.highlighted, self.scroll_y
        if self.size.height:  # shown: the user may have scrolled up or moved the highlight
            self._following = scroll_y >= self.max_scroll_y and highlighted in (None, self.option_count - 1)
        chosen = self.get_option_at_index(highlighted).id if highlighted is not None else None
        self.clear_options()  # scrolls to the top
        width = max(12, self.size.width - 12)
        self.add_options(Option(tool_row(run, self._title(run, width), width), id=run.key) for run in runs)
        for gone in self._titles.keys() - {run.key for run in runs}:
            del self._titles[gone]
        if self._following:
            if chosen is not None:
                self.highlighted = len(runs) - 1
            self.scroll_end(animate=False, immediate=True)
        else:
            if chosen is not None and runs:
                ids = [run.key for run in runs]
                self.highlighted = ids.index(chosen) if chosen in ids else min(highlighted or 0, len(runs) - 1)
            self.scroll_to(y=scroll_y, animate=False, immediate=True)
        self.border_subtitle = f"{len(self.session.tools)}"

    def _title(self, run: ToolRun, width: int) -> Text:
        key = (run.done, run.is_error, len(run.output), width, self.session.cwd, palette.generation)
        known = self._titles.get(run.key)
        if known is None or known[0] != key or known[1] is not run.result:
            known = self._titles[run.key] = (key, run.result, tool_title(run, width, self.session.cwd))
        return known[2]

    def on_show(self) -> None:
        if self._following:
            self.call_after_refresh(self.scroll_end, animate=False)

    def on_focus(self) -> None:
        """F3 or a click: the newest tool is highlighted, unless one already is."""
        if self.highlighted is None and self.option_count:
            self.highlighted = self.option_count - 1

    def action_show_output(self) -> None:
        if self.highlighted is not None:
            option_id = self.get_option_at_index(self.highlighted).id
            if option_id:
                self.post_message(ShowToolOutput(option_id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Selected(event.option.id))


class QueuePane(Static):
    """Steering and follow-up messages waiting in pi's queue."""

    DEFAULT_CSS = """
    QueuePane {
        height: auto;
        max-height: 10;
        padding: 0 1;
        border: round $border-blurred;
        border-title-color: $accent;
    }
    """

    def __init__(self, session: SessionModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.border_title = "Queue"
        self.empty = "empty — Enter while running steers, Alt+Enter queues a follow-up"  # (a view's says less)

    def refresh_queue(self) -> None:
        session = self.session
        text = Text()
        if not session.steering and not session.follow_up:
            text.append(self.empty, palette.style("muted"))
        for label, style, items in (("steer", palette.style("warning", "bold"), session.steering), ("follow-up", palette.style("border", "bold"), session.follow_up)):
            for message in items:
                if text:
                    text.append("\n")
                text.append(f"{label} ", style)
                text.append(clean(message).replace("\n", " ⏎ ")[:300])
        self.border_subtitle = str(len(session.steering) + len(session.follow_up))
        self.update(text)


_MODES = {"one-at-a-time": "one", "all": "all"}  # queue delivery modes, short


class StatsPane(Static):
    """Model, thinking level, tokens, cost, context use and session identity."""

    DEFAULT_CSS = """
    StatsPane {
        height: auto;
        padding: 0 1;
        border: round $border-blurred;
        border-title-color: $accent;
    }
    """

    def __init__(self, session: SessionModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.border_title = "Session"
        self._shown = Text()
        self._made_of: tuple[object, ...] | None = None  # the figures the rows shown were made of
        # How the run ended, as (text, palette role), for a run read without pi (`pideck view`).
        self.outcome: Callable[[], tuple[str, str] | None] = lambda: None
        # The state is what a read-only view read, not pi's answer: only the rows it holds show
        # (no queue modes or auto-compaction: neither a stream nor a session file says them).
        self.from_view: Callable[[], bool] = lambda: False

    def refresh_stats(self) -> None:
        session, state, stats = self.session, self.session.state, self.session.stats
        # What the rows are made of, as values (pi's state is changed in place, a field at a
        # time; the totals are added to): usage comes with every delta, and changes none of them.
        viewed = self.from_view()
        made_of = (None if state is None else astuple(state), None if stats is None else astuple(stats),
                   field_values(session.totals), session.auto_retry,
                   session.life.starting_since is not None, self.outcome(), viewed, palette.generation)
        if made_of == self._made_of:
            return
        self._made_of = made_of
        text = Text()

        def row(label: str, value: str, style: str | Style = "") -> None:
            if text:
                text.append("\n")
            text.append(f"{label:<9}", palette.style("muted"))
            text.append(clean(value), style)

        # While pi starts, the rows it will fill are there already, so that its answers repaint
        # them in place instead of growing the pane (a layout of the whole screen, 10 ms).
        waiting = session.life.starting_since is not None
        if state is None and waiting:
            for label in ("model", "thinking", "queue", "auto", "session", "id"):
                row(label, "…", palette.style("muted"))
        if state is not None and viewed:
            for label, value, style in (("model", model_key(state.model) if state.model else "", "bold"),
                                        ("thinking", state.thinking_level, ""),
                                        ("session", state.session_name or "", ""),
                                        ("id", (state.session_id or "")[:18], palette.style("muted"))):
                if value:
                    row(label, value, style)
        elif state is not None:
            row("model", model_key(state.model) if state.model else "none selected", "bold")
            row("thinking", state.thinking_level)
            row("queue", f"steer {_MODES.get(state.steering_mode, state.steering_mode)} · "
                         f"follow {_MODES.get(state.follow_up_mode, state.follow_up_mode)}")
            retry = "" if session.auto_retry is None else f" · retry {on_off(session.auto_retry)}"
            row("auto", f"compact {on_off(state.auto_compaction_enabled)}{retry}")
            row("session", state.session_name or "(unnamed)")
            row("id", (state.session_id or "")[:18], palette.style("muted"))
        if stats is not None:
            counts = stats.tokens
            row("tokens", f"↑{tokens(counts.input)} ↓{tokens(counts.output)}")
            row("cache", f"R {tokens(counts.cache_read)} W {tokens(counts.cache_write)}")
            row("cost", cost(stats.cost))
            usage = stats.context_usage
            if usage is not None:  # as pi's footer writes it: 0.4%/128k (auto)
                level = footer_format.context_level(usage.percent)
                style = palette.style(level) if level else palette.style("success") if usage.percent is not None else ""
                auto = state.auto_compaction_enabled if state is not None else True
                row("context", footer_format.context(usage.percent, usage.context_window, auto), style)
        elif waiting:
            for label in ("tokens", "cache", "cost", "context"):
                row(label, "…", palette.style("muted"))
        else:
            totals = session.totals
            row("tokens", f"↑{tokens(totals.input)} ↓{tokens(totals.output)}")
            row("cost", cost(totals.cost))
        if (ended := self.outcome()) is not None:
            row("ended", ended[0], palette.style(ended[1], "bold"))
        if text != self._shown:  # usage arrives with every delta; repaint only what changed
            self.update(text, layout=not self._same_rows(text))
            self._shown = text

    def _same_rows(self, text: Text) -> bool:
        """`text` takes the rows the text shown does (its rows as many, none of either
        wrapped): the new figures at a run's end need no layout of the whole screen."""
        width = self.content_region.width
        old, new = self._shown.plain.split("\n"), text.plain.split("\n")
        return (bool(self._shown) and len(old) == len(new)
                and all(cell_len(line) <= width for line in (*old, *new)))


def cut_middle(text: str, cells: int) -> str:
    """`text` in at most `cells` cells: its start and its end with "…" between (a path keeps
    the start of its folder and its file name)."""
    if cell_len(text) <= cells:
        return text
    if cells < 2:
        return "…"[: max(cells, 0)]
    left, right = (cells - 1) // 2, cells - 1 - (cells - 1) // 2
    start = used = 0
    while start < len(text) and used + cell_len(text[start]) <= left:
        used += cell_len(text[start])
        start += 1
    end, used = len(text), 0
    while end > start and used + cell_len(text[end - 1]) <= right:
        used += cell_len(text[end - 1])
        end -= 1
    return text[:start] + "…" + text[end:]


@dataclass(frozen=True)
class ViewLine:
    """What the status line says of a read-only view (`pideck view`, `pideck replay`) in place
    of pi's state: `what`, `source` and `how` (`read-only view of run.jsonl · following`); the
    source, a path, is cut in its middle to fit. `live`: records still come (a spinner turns
    while the run works)."""

    what: str
    source: str
    how: str = ""
    role: str = "accent"
    live: bool = False


SOURCE_CELLS = 16  # of a view's source, shown however little room the line has


class StatusLine(Static):
    """One line: run state, protocol problems, extension statuses; on the right, while the
    side panes are hidden, what pi's footer says of the session (widgets/panes/status_where.py).
    A read-only view's line (`viewing`) takes the run state's place."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        background: $panel;
        text-wrap: nowrap;  /* (Textual ignores a Rich Text's no_wrap) */
        text-overflow: ellipsis;
    }
    """

    def __init__(self, session: SessionModel, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.session = session
        self.frame = 0
        self.spun_at = 0.0  # monotonic time of the spinner's last step
        self.with_stats = False  # the side panes are hidden: the right says what pi's footer does
        self.viewing: Callable[[], ViewLine] | None = None  # a read-only view's (app/view/app.py)
        self._shown = Text()

    def on_resize(self) -> None:
        self.refresh_status()

    def refresh_status(self) -> None:
        session = self.session
        life = session.life
        text = Text(no_wrap=True, overflow="ellipsis")
        width = self.size.width - 2  # its padding
        parts = stats_parts(session, viewed=self.viewing is not None) if self.with_stats else []
        if self.viewing is not None and life.loading_since is None:
            problems = cell_len(life.problems) + 4 if life.problems else 0
            text = self._view_line(self.viewing(), width - problems, parts)
        elif session.running:
            text.append(f"{self._spin()} working", palette.style("warning", "bold"))
            self._run_state(text)
            text.append(" · esc aborts", palette.style("muted"))
        elif session.compaction is not None:
            text.append("⟳ compacting the context", palette.style("warning", "bold"))
            text.append(" · esc aborts", palette.style("muted"))
        elif life.notice:  # pi is not running: say so instead of "ready"
            text.append(f"■ {life.notice}", palette.style(life.notice_role, "bold"))
        elif life.loading_since is not None:
            received = life.loading_bytes
            so_far = f"{received / MB:,.0f} MB" if received >= MB else f"{int(time.monotonic() - life.loading_since)}s"
            text.append(f"◌ loading session… {so_far}", palette.style("warning", "bold"))
        elif life.starting_since is not None:
            text.append(f"◌ starting pi… {int(time.monotonic() - life.starting_since)}s", palette.style("warning", "bold"))
        elif session.state is not None and session.state.model is None:
            text.append("■ no model: pi refuses prompts (the transcript says how to fix it)", palette.style("warning", "bold"))
        else:
            text.append("● ready", palette.style("success"))
        if life.problems:  # before the extensions' statuses, which may be many and long
            text.append("  │ ", palette.style("muted"))
            text.append(life.problems, palette.style("error", "bold"))
        statuses = Text()
        for key, value in sorted(session.statuses.items()):
            statuses.append("  │ ", palette.style("muted"))
            statuses.append(clean(value[:STATUS_CHARS]).replace("\n", " "), "")
            statuses.append(f" ({clean(key[:STATUS_CHARS])})", palette.style("muted"))
        text = fit(text, statuses, parts, width) if width > 0 else text + statuses
        text.no_wrap, text.overflow = True, "ellipsis"
        if text != self._shown:  # a frame only when the line changed
            self._shown = text
            self.update(text, layout=False)  # one line, however long: the spinner never moves the layout

    def _spin(self) -> str:
        """The spinner's step, turned on whichever frame comes SPIN_EVERY after the last turn."""
        if (now := time.monotonic()) - self.spun_at >= SPIN_EVERY:
            self.frame, self.spun_at = self.frame + 1, now
        return SPINNER[self.frame % len(SPINNER)]

    def _run_state(self, text: Text) -> None:
        """The run's turn, and its retry or compaction if one is on."""
        session = self.session
        text.append(f" · turn {session.turns}", palette.style("muted"))
        if session.retry is not None:
            text.append(f" · {clean(session.retry.title)}", palette.style("warning"))
        if session.compaction is not None:
            text.append(" · compacting", palette.style("warning"))

    def _view_line(self, view: ViewLine, cells: int, parts: list[Part]) -> Text:
        """A read-only view's line in `cells` cells: its source cut in its middle to fit what
        and how it is and the `parts` on the right that fit beside SOURCE_CELLS of it (`fit`
        shows those); never below SOURCE_CELLS (the rest is then cut at the end)."""
        working = view.live and self.session.running
        style = palette.style("warning" if working else view.role, "bold")
        head = f"{self._spin() if working else '■'} {view.what} "
        tail = Text(f" · {view.how}" if view.how else "", style)
        if working:
            self._run_state(tail)
        room = cells - cell_len(head) - tail.cell_len
        right = 0  # what the parts that fit take, with their gaps
        for part in sorted(parts, key=lambda part: part.rank):
            need = part.text.cell_len + (len(SEP) if right else GAP)
            if SOURCE_CELLS + right + need <= room:
                right += need
        source = one_row(view.source).expandtabs(1)
        room = max(SOURCE_CELLS, room - right)
        text = Text(head + cut_middle(source, room), style, no_wrap=True, overflow="ellipsis")
        return text.append_text(tail)
