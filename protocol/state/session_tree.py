"""The session tree built from `get_entries`, as pi's own `get_tree` builds it.

`get_tree` nests one JSON level per entry, so a linear session of a few hundred
entries is deeper than any recursion-limited JSON decoder (msgspec included) reads:
the response is lost. `get_entries` sends the same entries as a flat list; this
module links them by id/parentId exactly like pi's `SessionManager.getTree()`
(orphans and self-parented entries become roots, children sorted by timestamp,
labels from the latest `label` entry per target), without recursion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from protocol.wire.base import UnknownEntry
from protocol.wire.entries import LabelEntry, TreeNode


def entry_timestamp(entry: Any) -> str:
    if isinstance(entry, UnknownEntry):
        value = entry.raw.get("timestamp")
        return value if isinstance(value, str) else ""
    return str(getattr(entry, "timestamp", ""))


def _sort_key(node: TreeNode) -> float:
    text = entry_timestamp(node.entry)
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def labels_of(entries: Iterable[Any]) -> dict[str, str]:
    """target id -> label, from the label entries in order (an empty label clears)."""
    labels: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, LabelEntry):
            if entry.label:
                labels[entry.target_id] = entry.label
            else:
                labels.pop(entry.target_id, None)
    return labels


def build_tree(entries: Sequence[Any]) -> list[TreeNode]:
    """The roots of the tree of `entries` (in append order, as `get_entries` returns them)."""
    labels = labels_of(entries)
    nodes: dict[str, TreeNode] = {}
    for entry in entries:
        nodes[entry.id] = TreeNode(entry=entry, label=labels.get(entry.id))
    roots: list[TreeNode] = []
    linked: set[str] = set()
    for entry in entries:
        if entry.id in linked:
            continue  # a repeated id: the last entry with it stands for all
        linked.add(entry.id)
        node = nodes[entry.id]
        parent = nodes.get(entry.parent_id) if entry.parent_id not in (None, entry.id) else None
        (parent.children if parent is not None else roots).append(node)
    for node in nodes.values():
        node.children.sort(key=_sort_key)  # stable: equal timestamps keep append order
    return roots


def path_to(entries: Sequence[Any], leaf_id: str | None) -> set[str]:
    """Ids of the entries from `leaf_id` up to its root (the active branch)."""
    parents = {entry.id: entry.parent_id for entry in entries}
    path: set[str] = set()
    current = leaf_id
    while current is not None and current in parents and current not in path:
        path.add(current)
        current = parents[current]
    return path
