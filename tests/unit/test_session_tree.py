"""protocol/state/session_tree.py and the /tree view's filtering (widgets/screens/tree_view.py), without the UI.

The tree built from `get_entries` is compared with real pi's own `get_tree`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from tests.pi_harness import fixture_entries

from protocol.wire.codec import dec_hook
from protocol.wire.entries import EntryUnion
from protocol.state.session_tree import build_tree, labels_of, path_to
from widgets.screens.tree_view import category, describe, visible_children

_decoder = msgspec.json.Decoder(EntryUnion, dec_hook=dec_hook)


def entry(entry_id: str, parent: str | None, minute: int, kind: str = "model_change", **extra: Any) -> Any:
    record = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": f"2025-03-01T09:{minute:02d}:00.000Z"}
    return _decoder.decode(json.dumps({**record, **extra}))


def test_builds_branches_labels_and_orphans() -> None:
    entries = [
        entry("a", None, 0),
        entry("c", "a", 5),
        entry("b", "a", 1),  # appended later but older: sorted before c
        entry("x", "missing", 2),  # orphan: a root
        entry("s", "s", 3),  # parented on itself: a root
        entry("l1", "c", 6, "label", targetId="b", label="old"),
        entry("l2", "l1", 7, "label", targetId="b", label="kept"),
        entry("l3", "l2", 8, "label", targetId="a", label="gone"),
        entry("l4", "l3", 9, "label", targetId="a"),  # clears a's label
    ]
    roots = build_tree(entries)
    assert [(root.entry.id, root.label) for root in roots] == [("a", None), ("x", None), ("s", None)]
    assert [child.entry.id for child in roots[0].children] == ["b", "c"]
    assert roots[0].children[0].label == "kept"
    assert labels_of(entries) == {"b": "kept"}
    assert path_to(entries, "l4") == {"l4", "l3", "l2", "l1", "c", "a"}
    assert path_to(entries, None) == set()


def test_deep_session_needs_no_recursion() -> None:
    depth = 6000  # far deeper than the recursion limit
    entries = [entry(f"e{n}", f"e{n - 1}" if n else None, n % 60) for n in range(depth)]
    roots = build_tree(entries)
    assert len(path_to(entries, f"e{depth - 1}")) == depth
    hidden_all = visible_children(roots, lambda node: node.entry.id == f"e{depth - 1}")
    assert [node.entry.id for node in hidden_all] == [f"e{depth - 1}"]


def test_categories_and_descriptions() -> None:
    entries = {e.id: e for e in fixture_entries()}
    assert category(entries["u0000001"]) == "user"
    assert category(entries["a0000002"]) == "assistant"
    assert category(entries["t0000002"]) == "tool"
    assert category(entries["l0000001"]) == "other"
    assert describe(entries["a0000002"]).plain == "assistant → read"
    assert describe(entries["s0000001"]).plain == "name → Parser refactor"
    weird = entry("w", None, 0, "message", message={"role": "user", "content": "[bold]x[/] \x1b[31mred\x1b[0m"})
    assert describe(weird).plain == "user [bold]x[/] red"


def test_filters_lift_children_of_hidden_entries() -> None:
    roots = build_tree(fixture_entries())
    users = visible_children(roots, lambda node: category(node.entry) == "user")
    assert [node.entry.id for node in users] == ["u0000001"]
    below = visible_children(users[0].children, lambda node: category(node.entry) == "user")
    assert [node.entry.id for node in below] == ["u0000002", "u0000003"]
