"""The tree protocol/state/session_tree.py builds from `get_entries` is the REAL pi's own `get_tree`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_harness import PiHarness, copy_session

from protocol.wire.commands import GetEntries, GetTree
from protocol.wire.entries import TreeNode
from protocol.state.session_tree import build_tree


def shape(nodes: list[TreeNode]) -> list[Any]:
    """(id, label, children) nested, iteratively flattened to compare trees."""
    out: list[Any] = []
    stack = [(node, out) for node in reversed(nodes)]
    while stack:
        node, into = stack.pop()
        kids: list[Any] = []
        into.append((node.entry.id, node.label, kids))
        stack.extend((child, kids) for child in reversed(node.children))
    return out


async def test_tree_from_entries_matches_pi_get_tree(pi_factory: Any, pi_harness: PiHarness, tmp_path: Path) -> None:
    path = copy_session("branched.jsonl", tmp_path / "sessions", pi_harness.cwd)
    client = await pi_factory(session_dir=tmp_path / "sessions", extra_args=["--session", str(path)])
    listing = await client.call(GetEntries())
    tree = await client.call(GetTree())
    assert listing.leaf_id == tree.leaf_id == "a0000004"
    assert shape(build_tree(listing.entries)) == shape(tree.tree)
    assert shape(tree.tree)[0][0] == "e0000001"  # the comparison saw the real tree, not two empty lists
