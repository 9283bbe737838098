"""One widget per transcript item, built from the session model's items.

Assistant text and reasoning are `StreamingText` widgets that only ever get
`append`ed to while they stream; every other piece of foreign text goes through
`text.safe.safe`.
"""

from __future__ import annotations

import time
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.filter import ANSIToTruecolor
from textual.geometry import Size
from textual.widgets import Static

from protocol.state.formatting import duration, tokens
from protocol.files.images import describe
from protocol.wire.messages import AssistantMessage, BashExecutionMessage, CustomMessage, ImageContent, ToolResultMessage
from protocol.state.session_model import Banner, Block, MessageItem, SessionModel, ToolRun
from protocol.state.tool_runs import run_key
from widgets.colors import palette
from widgets.text.ansi import ansi_text
from widgets.tools.code_lines import unhighlighted
from widgets.engine.grows_in_place import GrowsInPlace
from widgets.markdown.stream import StreamingText
from widgets.text.safe import clean, one_row, safe
from widgets.tools.kinds import Call, Kind, kind_of
from widgets.tools.output import ShowToolOutput

TOOL_PREVIEW_LINES = 8
MARKDOWN_ROLES = ("assistant", "compactionSummary", "branchSummary", "custom")  # their text is markdown
MAX_RENDERED_OUTPUT = 200_000


def tool_summary(name: str, args: Any, cwd: str = "") -> str:
    """The key argument of a tool call, on one line (a path relative to `cwd`)."""
    return kind_of(name).summary(Call(name, args, None, cwd))


def tail_lines(text: str, count: int) -> tuple[str, int]:
    """The last `count` lines of `text` and how many lines were left out."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= count:
        return "\n".join(lines), 0
    return "\n".join(lines[-count:]), len(lines) - count


class TextBlock(StreamingText):
    """Assistant (or summary) markdown, cleaned by the session model (`Block`)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, classes="text")


class ThinkingBlock(StreamingText):
    """Model reasoning, dimmed. Collapsed (Ctrl+T), only its border title shows: how many
    lines it hides. Its text is cleaned by the session model (`Block`)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, plain_style="italic", classes="thinking")
        self._count_lines()

    def append(self, delta: str) -> None:
        super().append(delta)
        self._count_lines()

    def replace(self, text: str) -> None:
        super().replace(text)
        self._count_lines()

    def _count_lines(self) -> None:
        lines = sum(1 for line in self.text.split("\n") if line.strip())
        title = f"thinking ({lines} line{'' if lines == 1 else 's'}, Ctrl+T)"
        if self.border_title != title:
            self.border_title = title


def run_mark(run: ToolRun | None) -> tuple[str, Style]:
    """A tool run's mark and its style: not started, running, failed or done."""
    if run is None:
        return "○ ", palette.style("muted")
    if not run.done:
        return "◐ ", palette.style("warning")
    if run.is_error:
        return "✗ ", palette.style("error", "bold")
    return "✓ ", palette.style("success", "bold")


class ToolCallBlock(Static):
    """A tool call drawn by its kind (widgets/tools/kinds.py): a title line and a body from its
    arguments and its run (the model's ToolRun), collapsed or expanded (Ctrl+O)."""

    def __init__(self, session: SessionModel, block: Block, key: str) -> None:
        super().__init__(classes="tool-call")
        self.session = session
        self.block = block
        self.run_key = key  # its run's (tool_runs.run_key)
        self.expanded = False
        self._body_key: tuple[Any, ...] = ()
        self._body = Text()
        self.highlight_pending = False  # its body shows its code plain, to be highlighted (`highlight`)
        self._shown = Text()  # what it shows
        self._height: tuple[int, int] | None = None  # its content's rows at a width, when each line fits

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self, highlight: bool = True, layout: bool = True) -> None:
        """Draw it again; with `highlight` False, a body made anew shows its code plain
        (`highlight` later colours it, its rows unchanged)."""
        block_call = self.block.tool_call
        run = self.session.tools.get(self.run_key)
        name = block_call.name if block_call else "tool"
        args = block_call.arguments if block_call and block_call.arguments else (run.args if run else None)
        call = Call(name, args, run, self.session.cwd)
        kind = kind_of(name)
        text = Text()
        text.append(*run_mark(run))
        text.append_text(kind.title(call))
        if not kind.key_argument(call) and not self.block.done and self.block.text:
            text.append("  ")
            text.append(one_row(self.block.text[:300]), palette.style("toolPath"))
        if run is not None and run.done:
            text.append(f"  {duration(run.duration_ms)}", palette.style("muted"))
        body = self._rendered_body(kind, call, highlight)
        if body:
            text.append("\n")
            text.append_text(body)
        self.set_class(call.failed, "-error")
        self._shown, self._height = text, None
        self.update(text, layout=layout)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Its lines, when each fits in `width` (an expanded body's code rows are cut to
        fit): Textual wraps every line to learn that, which took most of a layout after
        Ctrl+O expanded a few hundred rows a block."""
        if self._height is not None and self._height[0] == width:
            return self._height[1]
        lines = self._shown.plain.split("\n")
        if width > 0 and not self.styles.line_pad and all(
                (len(line) if line.isascii() else cell_len(line)) <= width and "\t" not in line for line in lines):
            self._height = (width, len(lines))
            return len(lines)
        return super().get_content_height(container, viewport, width)

    def highlight(self) -> None:
        """Colour the code of a body drawn plain; its rows stay, so no new layout."""
        if self.highlight_pending:
            self.refresh_view(layout=False)

    @property
    def body_lines(self) -> int:
        """The lines of its body (each at least a row)."""
        return self._body.plain.count("\n") + 1 if self._body else 0

    def _rendered_body(self, kind: Kind, call: Call, highlight: bool = True) -> Text:
        """The body, rendered again only when what it is drawn from changed (or to
        highlight the one drawn plain)."""
        run = call.run
        key = (kind, call.args, run and run.result, run and len(run.output), run and run.done, self.expanded,
               palette.generation, call.cwd)  # fmt: skip
        if len(key) != len(self._body_key) or any(a is not b and a != b for a, b in zip(key, self._body_key, strict=True)):
            self._body_key, self._body = key, self._make_body(kind, call, highlight)
        elif highlight and self.highlight_pending:
            self._body = self._make_body(kind, call, highlight)
        return self._body

    def _make_body(self, kind: Kind, call: Call, highlight: bool) -> Text:
        self.highlight_pending = not highlight
        if highlight:
            return kind.body(call, self.expanded)
        with unhighlighted():
            return kind.body(call, self.expanded)

    def on_click(self) -> None:
        """Open everything the tool printed (the block shows only part of a long output)."""
        self.post_message(ShowToolOutput(self.run_key))


def message_label(item: MessageItem) -> Text:
    """Who or what a message is, as its header starts: "● pi", "❯ you", "$ command"..."""
    message = item.message
    text = Text()
    if isinstance(message, AssistantMessage):
        text.append("● pi", palette.style("accent", "bold"))
    elif item.role == "user":
        text.append("❯ you", palette.style("border", "bold"))
        images = [b for b in getattr(message, "content", []) if getattr(b, "mime_type", None)]
        if isinstance(message.content, list) and images:
            text.append(f"  [{len(images)} image{'s' if len(images) > 1 else ''} attached]", palette.style("warning"))
    elif isinstance(message, BashExecutionMessage):
        text.append("$ ", palette.style("success", "bold"))
        text.append(clean(message.command), "bold")
        if message.exclude_from_context:
            text.append("  (not sent to the model)", palette.style("muted"))
    elif isinstance(message, CustomMessage):
        text.append(f"◆ {clean(message.custom_type) or 'extension'}", palette.style("customMessageLabel", "bold"))
    elif item.role == "compactionSummary":
        text.append(f"⧉ compaction summary  ({tokens(message.tokens_before)} tokens before)", palette.style("warning", "bold"))
    elif item.role == "branchSummary":
        text.append("⑂ branch summary", palette.style("warning", "bold"))
    elif isinstance(message, ToolResultMessage):
        text.append(f"↳ {clean(message.tool_name)} result", "bold")
    else:
        text.append(f"? {clean(item.role)} (message type pideck does not know)", palette.style("warning", "bold"))
    return text


def message_footer(item: MessageItem) -> Text:
    """How a message ended, when that needs saying: an error, an abort, the token limit, a
    command's failure; empty otherwise."""
    message = item.message
    text = Text()
    if isinstance(message, AssistantMessage):
        if message.stop_reason == "error":
            text.append("✗ error: ", palette.style("error", "bold"))
            text.append(clean(message.error_message or "the provider returned an error"), palette.style("error"))
        elif message.stop_reason == "aborted":
            text.append("■ aborted", palette.style("warning", "bold"))
            if message.error_message:
                text.append(f": {clean(message.error_message)}", palette.style("warning"))
        elif message.stop_reason == "length":
            text.append("… stopped: the reply hit the output token limit", palette.style("warning", "bold"))
    elif isinstance(message, BashExecutionMessage) and not item.streaming:
        if message.cancelled:
            text.append("■ cancelled", palette.style("warning"))
        elif message.exit_code not in (0, None):
            text.append(f"exit code {message.exit_code}", palette.style("error", "bold"))
        if message.truncated and message.full_output_path:
            text.append(f"  output truncated; full output: {clean(message.full_output_path)}", palette.style("muted"))
    return text


def tail_text(text: str, count: int, style: str | Style = "") -> Text:
    """The last `count` lines of `text`, after a note of how many more there are."""
    shown, hidden = tail_lines(text, count)
    return safe(("… %d more lines\n" % hidden if hidden else "") + shown, style)


class MessageStatic(GrowsInPlace, Static):
    """A message's header, footer or block shown as plain text (laid out once when mounted)."""


class MessageView(GrowsInPlace, Vertical):
    """A transcript message: a header line, its blocks, and a stop-reason footer, mounted
    only when there is one to say (most messages have none: a widget fewer to mount and
    lay out for each)."""

    def __init__(self, session: SessionModel, item: MessageItem) -> None:
        super().__init__(classes=f"message role-{item.role}")
        self.session = session
        self.item = item
        self.block_widgets: dict[int, Any] = {}

    def notify_style_update(self) -> None:
        """Without a border or padding its own rows are plain background, which Textual
        can draw without rendering each one (`BLANK`): a flood shows new rows every frame.
        Not where a line filter changes colours (NO_COLOR, dim, a terminal's fewer colours):
        Textual's blank rows skip the filters."""
        super().notify_style_update()
        self.BLANK = not any(self.styles.gutter) and all(
            isinstance(line_filter, ANSIToTruecolor) for line_filter in self.get_line_filters())

    def compose(self) -> ComposeResult:
        yield MessageStatic(self._header(), classes="message-header")
        for index, block in self.item.ordered_blocks():
            widget = self._block_widget(index, block)
            if widget is not None:
                self.block_widgets[index] = widget
                yield widget
        if footer := message_footer(self.item):
            yield MessageStatic(footer, classes="message-footer")

    def _header(self) -> Text:
        text = message_label(self.item)
        message = self.item.message
        if isinstance(message, AssistantMessage) and message.model:
            text.append(f"  {clean(message.model)}", palette.style("muted"))
        stamp = getattr(message, "timestamp", 0)
        if stamp:
            text.append("  " + time.strftime("%H:%M:%S", time.localtime(stamp / 1000)), palette.style("muted"))
        return text

    @property
    def _footer_static(self) -> MessageStatic | None:
        footer = self.children[-1] if self.children else None
        return footer if isinstance(footer, MessageStatic) and footer.has_class("message-footer") else None

    def _block_widget(self, index: int, block: Block) -> Any:
        if block.kind == "thinking":
            return ThinkingBlock(block.text)
        if block.kind == "toolCall":
            return ToolCallBlock(self.session, block, run_key(self.item.key, index))
        if block.kind == "text" and self.item.role in MARKDOWN_ROLES:
            return TextBlock(block.text)
        return MessageStatic(self._plain_content(block), classes="plain image" if block.kind == "image" else "plain")

    def _plain_content(self, block: Block) -> Text:
        """What a block shown as plain text shows: the text (a tool result's last lines),
        an image's name, or what kind of block pideck does not show."""
        if block.kind == "text":
            if self.item.role == "toolResult":
                return tail_text(block.text, TOOL_PREVIEW_LINES)
            if self.item.role == "bashExecution":  # a `!command`'s output, its colours kept as the bash tool's
                return ansi_text(block.text[-MAX_RENDERED_OUTPUT:])
            return safe(block.text[-MAX_RENDERED_OUTPUT:])
        if block.kind == "image":
            label = describe(block.raw, self.session.image_names) if isinstance(block.raw, ImageContent) else "?"
            return Text(f"[image: {clean(label)}]", palette.style("warning"))
        return Text(f"[{block.kind} block pideck does not show]", palette.style("muted"))

    async def append_text(self, index: int, delta: str) -> None:
        widget = self.block_widgets.get(index)
        if isinstance(widget, StreamingText):
            widget.append(delta)  # cleaned by the session model
        elif isinstance(widget, Static):
            block = self.item.blocks.get(index)
            if block is not None:
                widget.update(self._plain_content(block))

    async def replace_block(self, index: int) -> None:
        block = self.item.blocks.get(index)
        widget = self.block_widgets.get(index)
        if block is None:
            return
        if widget is None:
            widget = self._block_widget(index, block)
            if widget is None:
                return
            self.block_widgets[index] = widget
            later = [i for i in self.block_widgets if i > index and i != index]
            anchor = self.block_widgets[min(later)] if later else None
            if anchor is None or not anchor.is_mounted:
                anchor = self._footer_static
            await self.mount(widget, before=anchor)
            return
        if isinstance(widget, StreamingText):
            widget.replace(block.text)
        elif isinstance(widget, ToolCallBlock):
            widget.block = block
            widget.refresh_view()
        elif isinstance(widget, Static):
            widget.update(self._plain_content(block))

    async def refresh_item(self) -> None:
        """Header and footer again (message replaced, finished, stop reason known)."""
        header, text = self.query_one(".message-header", Static), self._header()
        if header.content != text:  # unchanged at most message ends: no new layout
            header.update(text)
        footer, text = self._footer_static, message_footer(self.item)
        if footer is not None:
            if footer.content != text:
                footer.update(text)
                footer.display = bool(text)
        elif text:
            await self.mount(MessageStatic(text, classes="message-footer"))
        for index in list(self.block_widgets):
            if index not in self.item.blocks:
                await self.block_widgets.pop(index).remove()


class BannerView(Static):
    """A retry, compaction or error notice, updated with its outcome."""

    def __init__(self, banner: Banner) -> None:
        super().__init__(classes=f"banner banner-{banner.kind}")
        self.banner = banner

    def on_mount(self) -> None:
        self.refresh_banner()

    def refresh_banner(self) -> None:
        banner = self.banner
        text = Text()
        text.append("⟳ " if banner.active else "• ", "bold")
        text.append(clean(banner.title), "bold")
        if banner.outcome:
            text.append(f" — {clean(banner.outcome)}")
        if banner.detail:
            text.append("\n")
            text.append(clean(banner.detail[:2000]), palette.style("muted"))
        self.set_class(banner.active, "-active")
        self.update(text)

