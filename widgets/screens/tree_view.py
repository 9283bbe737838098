"""The `/tree` view: the session's entries as a tree, from which a user message is forked.

A chain of entries with one child each is drawn at one indent; only a branch point
nests its branches, so a long linear session stays flat. The active branch (from
the root to pi's current leaf) is drawn normally, other branches dimmed, the leaf
marked with ●, labels in brackets. u / a / t / o show or hide user messages,
assistant replies (and summaries), tool results and other entries; a hidden entry's
children move up to its nearest shown ancestor, and the current leaf always shows.

pi's RPC cannot move the leaf inside a session (pi's own /tree does that), so the
view says so; Enter on a user message dismisses with its entry id, to be forked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, Tree
from textual.widgets.tree import TreeNode as UINode

from protocol.wire.base import UnknownEntry, UnknownMessage
from protocol.wire.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    TreeNode,
    UsageEntry,
)
from protocol.wire.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    text_of,
)
from protocol.state.session_tree import build_tree, path_to
from widgets.engine.keys_in_order import KeysInOrder
from widgets.text.safe import clean
from widgets.colors import palette

CATEGORIES = ("user", "assistant", "tool", "other")
# pi's treeFilterMode setting: the categories /tree opens with ("labeled-only": all, labeled entries only)
FILTERS = {
    "default": ("user", "assistant", "tool"),
    "no-tools": ("user", "assistant"),
    "user-only": ("user",),
    "labeled-only": CATEGORIES,
    "all": CATEGORIES,
}
TITLE = "  ● current leaf · dimmed: other branches · [label]"
NOT_IN_PLACE = (
    "pi's RPC cannot move the leaf inside this session (only pi's own /tree can). "
    "Enter on a user message forks a new session from just before it; its text comes back to the editor."
)


def category(entry: Any) -> str:
    """Which filter shows `entry`: user, assistant (replies and summaries), tool or other."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return "user"
        if isinstance(message, AssistantMessage):
            return "assistant"
        if isinstance(message, ToolResultMessage | BashExecutionMessage):
            return "tool"
        return "other"
    if isinstance(entry, CompactionEntry | BranchSummaryEntry):
        return "assistant"
    return "other"


def _first_line(text: str, limit: int = 120) -> str:
    for line in clean(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def describe(entry: Any) -> Text:
    """One line for `entry`: a role/type tag, then its text."""
    tag, body, style = _describe(entry)
    text = Text(no_wrap=True, overflow="ellipsis")
    role, _, extra = style.partition(" ")  # a palette role and attributes: "warning bold"
    text.append(f"{tag} ", palette.style(role, extra))
    text.append(body)
    return text


def _describe(entry: Any) -> tuple[str, str, str]:
    if isinstance(entry, MessageEntry):
        return _describe_message(entry.message)
    if isinstance(entry, CompactionEntry):
        return "compaction", _first_line(entry.summary), "warning bold"
    if isinstance(entry, BranchSummaryEntry):
        return "branch summary", _first_line(entry.summary), "warning bold"
    if isinstance(entry, ModelChangeEntry):
        return "model", f"→ {clean(entry.provider)}/{clean(entry.model_id)}", "muted"
    if isinstance(entry, ThinkingLevelChangeEntry):
        return "thinking", f"→ {clean(entry.thinking_level)}", "muted"
    if isinstance(entry, LabelEntry):
        return "label", (f"{clean(entry.label)!r} on {entry.target_id}" if entry.label else f"cleared on {entry.target_id}"), "muted"
    if isinstance(entry, SessionInfoEntry):
        return "name", f"→ {clean(entry.name or '(cleared)')}", "muted"
    if isinstance(entry, CustomMessageEntry):
        return f"[{clean(entry.custom_type)}]", _first_line(text_of(entry.content)), "customMessageLabel"
    if isinstance(entry, CustomEntry):
        return "custom", clean(entry.custom_type), "muted"
    if isinstance(entry, UsageEntry):
        return "usage", clean(entry.kind), "muted"
    if isinstance(entry, ContextEditEntry):
        return "context edit", f"of {entry.target_id}", "muted"
    if isinstance(entry, UnknownEntry):
        return clean(entry.type), "", "muted"
    return type(entry).__name__, "", "muted"


def _describe_message(message: Any) -> tuple[str, str, str]:
    if isinstance(message, UserMessage):
        return "user", _first_line(text_of(message.content)) or "(image)", "border bold"
    if isinstance(message, AssistantMessage):
        body = _first_line(text_of(message.content))
        if not body:
            calls = [clean(block.name) for block in message.content if isinstance(block, ToolCall)]
            body = "→ " + ", ".join(calls) if calls else "(no text)"
        if message.stop_reason in ("error", "aborted"):
            body += f" ({message.stop_reason})"
        return "assistant", body, "success bold"
    if isinstance(message, ToolResultMessage):
        return f"tool {clean(message.tool_name)}", _first_line(text_of(message.content)), "error" if message.is_error else "warning"
    if isinstance(message, BashExecutionMessage):
        return "bash", f"$ {_first_line(message.command)}", "warning"
    if isinstance(message, SystemMessage):
        return "system", "prompt and tools", "muted"
    if isinstance(message, CustomMessage):
        return f"[{clean(message.custom_type)}]", _first_line(text_of(message.content)), "customMessageLabel"
    if isinstance(message, UnknownMessage):
        return clean(message.role), "", "muted"
    return str(type(message).__struct_config__.tag) if message is not None else "message", "", "muted"


def visible_children(children: Sequence[TreeNode], shown: Any) -> list[TreeNode]:
    """`children`, with each hidden node replaced by its own visible descendants (in order)."""
    out: list[TreeNode] = []
    stack = list(reversed(children))
    while stack:
        node = stack.pop()
        if shown(node):
            out.append(node)
        else:
            stack.extend(reversed(node.children))
    return out


class SessionTree(KeysInOrder, Tree[str]):
    pass


class SessionTreeScreen(ModalScreen[str | None]):
    """Dismisses with the id of the user message to fork from, or None."""

    CSS_PATH = "tree_view.tcss"
    AUTO_FOCUS = "#session-tree"
    BINDINGS = [
        Binding("escape", "cancel", "Close"),
        Binding("u", "toggle('user')", "User"),
        Binding("a", "toggle('assistant')", "Assistant"),
        Binding("t", "toggle('tool')", "Tools"),
        Binding("o", "toggle('other')", "Other"),
        Binding("l", "toggle_labeled", "Labeled only"),
    ]

    def __init__(self, entries: Sequence[Any], leaf_id: str | None, filter_mode: str = "default") -> None:
        super().__init__()
        self.entries = list(entries)
        self.by_id = {entry.id: entry for entry in self.entries}
        self.leaf_id = leaf_id
        self.roots = build_tree(self.entries)
        self.active = path_to(self.entries, leaf_id)
        shown = FILTERS.get(filter_mode, FILTERS["default"])
        self.showing = {name: name in shown for name in CATEGORIES}
        self.labeled_only = filter_mode == "labeled-only"

    def compose(self) -> ComposeResult:
        with Vertical(id="tree-box"):
            yield Static(Text.assemble(("Session tree", "bold"), (TITLE, palette.style("muted"))), id="tree-title")
            yield Static(NOT_IN_PLACE, id="tree-note")
            yield Static("", id="tree-filters")
            tree: Tree[str] = SessionTree("session", id="session-tree")
            tree.show_root = False
            tree.auto_expand = False
            yield tree
        yield Footer()

    def on_mount(self) -> None:
        self.rebuild()

    def label(self, node: TreeNode) -> Text:
        entry = node.entry
        on_path = entry.id in self.active
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("● " if entry.id == self.leaf_id else "  ", palette.style("success", "bold"))
        text.append_text(describe(entry))
        if node.label:
            text.append(f" [{clean(node.label)}]", palette.style("warning", "bold"))
        if entry.id == self.leaf_id:
            text.append("  ← current leaf", palette.style("success"))
        if not on_path:
            text.stylize("dim")
        return text

    def shown(self, node: TreeNode) -> bool:
        if node.entry.id == self.leaf_id:
            return True
        return self.showing[category(node.entry)] and (bool(node.label) or not self.labeled_only)

    def rebuild(self) -> None:
        """Fill the Tree: a chain continues at its indent; each branch of a branch point is
        headed by its first entry, which holds the rest of that branch."""
        tree: Tree[str] = self.query_one(Tree)
        tree.clear()
        leaf_node: UINode[str] | None = None
        roots = visible_children(self.roots, self.shown)
        work = [(tree.root, node, len(roots) > 1) for node in reversed(roots)]
        count = 0
        while work:
            parent, node, head = work.pop()
            while True:
                kids = visible_children(node.children, self.shown)
                count += 1
                if len(kids) > 1 or (head and kids):
                    added = parent.add(self.label(node), data=node.entry.id, expand=True)
                else:
                    added = parent.add_leaf(self.label(node), data=node.entry.id)
                if node.entry.id == self.leaf_id:
                    leaf_node = added
                if len(kids) != 1:
                    work.extend((added, kid, True) for kid in reversed(kids))
                    break
                if head:
                    parent, head = added, False
                node = kids[0]
        tree.root.expand()
        self._show_filters(count)
        if leaf_node is not None:
            tree.last_line  # lays out the lines now (the cursor needs them), not on the next refresh after more keys
            tree.move_cursor(leaf_node)
            self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        tree: Tree[str] = self.query_one(Tree)
        if tree.cursor_node is not None:
            tree.scroll_to_node(tree.cursor_node, animate=False)

    def _show_filters(self, count: int) -> None:
        text = Text("show: ", palette.style("muted"))
        for key, name in zip("uato", CATEGORIES, strict=True):
            on = self.showing[name]
            text.append(f"{key} {name} {'✓' if on else '✗'}", "bold" if on else palette.style("muted"))
            text.append("  ")
        if self.labeled_only:
            text.append("l labeled only ✓  ", "bold")
        text.append(f"· {count}/{len(self.entries)} entries", palette.style("muted"))
        self.query_one("#tree-filters", Static).update(text)

    def action_toggle(self, name: str) -> None:
        self.showing[name] = not self.showing[name]
        self.rebuild()

    def action_toggle_labeled(self) -> None:
        self.labeled_only = not self.labeled_only
        self.rebuild()

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        entry = self.by_id.get(event.node.data or "")
        if entry is None:
            return
        if category(entry) == "user":
            self.dismiss(entry.id)
            return
        self.notify(
            "Only a user message can be forked over RPC (the new session starts just before it). "
            "pi's RPC cannot move the leaf to this entry.",
            title="not possible over RPC",
            severity="warning",
            markup=False,
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
