"""A widget's own key bindings, read and replaced (Textual has no public way to do either)."""

from __future__ import annotations

from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode


def class_bindings(node_class: type[DOMNode]) -> BindingsMap:
    """The bindings of `node_class`, its bases' merged in: what its instances start with
    (where Textual lacks its own merge: the BINDINGS of each class, from the base up)."""
    merged = getattr(node_class, "_merged_bindings", None)
    if merged is not None:
        return merged
    keys: dict[str, list[Binding]] = {}
    for base in reversed(node_class.__mro__):
        keys.update(BindingsMap(vars(base).get("BINDINGS", [])).key_to_bindings)
    return BindingsMap.from_keys(keys)


def use_bindings(node: DOMNode, bindings: BindingsMap) -> None:
    """`node`'s own bindings from now on, in place of those of its class (where Textual
    lacks the way, its class's stay)."""
    if hasattr(node, "_bindings"):
        node._bindings = bindings
