"""A widget's own key bindings, read and replaced (Textual has no public way to do either)."""

from __future__ import annotations

from textual.binding import BindingsMap
from textual.dom import DOMNode


def class_bindings(node_class: type[DOMNode]) -> BindingsMap:
    """The bindings of `node_class`, its bases' merged in: what its instances start with."""
    merged = node_class._merged_bindings
    return BindingsMap() if merged is None else merged


def use_bindings(node: DOMNode, bindings: BindingsMap) -> None:
    """`node`'s own bindings from now on, in place of those of its class."""
    node._bindings = bindings
