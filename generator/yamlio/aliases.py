"""How many nodes a YAML document holds once its aliases are expanded.

A loader shares the anchored object between its aliases, so a "billion laughs" document
(each anchor a list of ten aliases of the previous one) loads fast but is a tree of 10^9
nodes to every rule and validator that walks it. Counting from the parser's events, with
each anchor's expanded size remembered, tells such a document from a normal one in one pass.
"""

from __future__ import annotations

from _ruamel_yaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, ScalarEvent, StreamEndEvent


class TooManyAliases(Exception):
    """The document's aliases expand past the budget (``yamlread.Limits.alias_nodes``)."""

    def __init__(self, line: int, col: int, budget: int):
        super().__init__(f"aliases expand this document by more than {budget} nodes")
        self.line, self.col = line, col


def check(text: str, budget: int) -> None:
    """Raise ``TooManyAliases`` when aliases add more than ``budget`` nodes; parse errors are
    left to the loader."""
    if "*" not in text:
        return
    sizes: dict[str, int] = {}
    stack: list[list] = []  # [anchor, nodes so far] per open collection
    added = 0
    parser = CParser(text)
    while True:
        try:
            event = parser.get_event()
        except YAMLError:
            return  # the loader words syntax errors
        kind = type(event)
        if kind is StreamEndEvent:
            return
        if isinstance(event, CollectionStartEvent):
            stack.append([event.anchor, 1])
            continue
        if kind is ScalarEvent:
            size = 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif kind is AliasEvent:
            size = sizes.get(event.anchor, 1)
            added += size - 1
            if added > budget:
                raise TooManyAliases(event.start_mark.line, event.start_mark.column, budget)
        elif isinstance(event, CollectionEndEvent):
            anchor, size = stack.pop()
            if anchor is not None:
                sizes[anchor] = size
        else:
            continue  # stream and document boundaries
        if stack:
            stack[-1][1] += size


def check_data(data: object, budget: int) -> None:
    """``check`` for data already loaded, where an alias is a shared object: the tree as
    rules walk it against the nodes written out (for the documents only ruamel's Python
    parser reads)."""
    sizes: dict[int, int] = {}
    written = 1

    def size(node: object) -> int:
        nonlocal written
        if not isinstance(node, (dict, list)):
            return 1
        known = sizes.get(id(node))
        if known is None:
            children = list(node.values() if isinstance(node, dict) else node)
            written += sum(1 for child in children if not isinstance(child, (dict, list))) + 1
            known = sizes[id(node)] = 1 + sum(size(child) for child in children)
        return known

    if size(data) - written > budget:
        raise TooManyAliases(0, 0, budget)
