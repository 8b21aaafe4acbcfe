"""Nesting depth bounded before a recursive loader sees a document.

ruamel's loaders build nodes recursively: its Python composer runs out of stack (seconds per
thousand levels first), and its C composer (``_ruamel_yaml``, the safe loader lint falls back
to) recurses in C, where 100,000 levels overflow the C stack and kill the interpreter. So
every document a loader reads is measured first, from libyaml's parser events (a state
machine, no recursion); where libyaml stops at something ruamel's scanner reads on, a linear
scan of the flow brackets bounds what ruamel's scanner (quadratic in flow nesting) would see.
JSON data loaded by the standard library is measured the same way (``nesting``).
"""

from __future__ import annotations

from collections.abc import Iterable

from generator import regex
from generator.yamlio.lines import line_col
from generator.yamlio.read import TooDeep

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


def check(text: str, limit: int) -> None:
    """Raise ``TooDeep`` (0-based) at the first collection nested more than ``limit`` deep;
    syntax errors are left to the loader's wording."""
    # ruamel.yaml is imported by the documents that need it (``nesting`` does without)
    from _ruamel_yaml import CParser
    from ruamel.yaml.error import YAMLError

    try:
        mark = first_too_deep(iter(CParser(text).get_event, None), limit)
    except YAMLError:
        # libyaml stopped at something ruamel may read on (`[a:b]`, `: 1`, a U+2028)
        offset = flow_too_deep(text, limit)
        if offset is None:
            return
        mark = _counted(text[: offset + 1], limit) if offset < _RECOUNTED_BYTES else None
        if mark is None:
            line, col = line_col(text, offset)
            raise TooDeep(line - 1, col - 1) from None
    if mark is not None:
        raise TooDeep(mark.line, mark.column)


# ruamel's Python parser reads ~1 MB/s: past this, the flow scan's bracket is the answer (it
# counts flow levels only, so it may name a bracket one or more levels later)
_RECOUNTED_BYTES = 256 * 1024


def _counted(prefix: str, limit: int) -> Any:
    """The first collection too deep in ``prefix`` as parser events count it (the block
    collections around a flow one too), from ruamel's Python parser, which reads on where
    libyaml stopped; None when it stops too. ``prefix`` ends at the first bracket the flow scan
    found past the bound, so the scanner sees at most ``limit`` + 1 nested flow levels (its
    cost grows with their square): one count of depth, whichever path measures."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return first_too_deep(YAML(typ="safe", pure=True).parse(prefix), limit)
    except YAMLError:
        return None


def first_too_deep(events: Iterable, limit: int) -> Any:
    """The start mark of the first collection nested more than ``limit`` deep among parser
    events (libyaml's or ruamel's Python parser's), None when there is none."""
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    for event in events:
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > limit:
                return event.start_mark
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
    return None


def nesting(node: Any, limit: int) -> int:
    """How deeply loaded containers nest, counted up to one past ``limit`` (iteratively: the
    data may be deeper than the stack). A container reached again through an alias is not
    walked again: an alias bomb would take exponential time, and alias budgets bound what
    aliases expand to."""
    deepest, stack, seen = 0, [(node, 0)], set()
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)) and id(value) not in seen:
            seen.add(id(value))
            deepest = max(deepest, depth + 1)
            if deepest > limit:
                return deepest
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


_DOUBLE_QUOTED = regex.compile(r'(?s)"(?:[^"\\]|\\.)*"')
_SINGLE_QUOTED = regex.compile(r"'(?:[^']|'')*'")
_LINE_BREAK = regex.compile(r"[\n\r]")
_SPACE = " \t"
_BREAK = "\n\r"


def flow_too_deep(text: str, limit: int) -> int | None:
    """Offset of the flow collection opened deeper than the depth bound (counting flow nesting
    only), from a linear scan that needs no parser: brackets count where a node may start and
    anywhere inside a flow collection, not in quoted scalars, comments or block scalars."""
    depth, i, end = 0, 0, len(text)
    node_start, line_indent = True, 0
    while i < end:
        char = text[i]
        if char in _BREAK:
            i += 1
            line_indent = _indent(text, i)
            node_start = True
            continue
        if char in _SPACE:
            i += 1
            continue
        after = text[i + 1 : i + 2]
        if char == "#" and (i == 0 or text[i - 1] in _SPACE + _BREAK):
            i = _line_end(text, i)
            continue
        if char in "[{" and (depth or node_start):
            depth += 1
            if depth > limit:
                return i
            node_start = True
        elif char in "]}" and depth:
            depth -= 1
            node_start = False
        elif char == "," and depth:
            node_start = True
        elif char in "-?:" and (after in ("", " ", "\t", "\n", "\r") or (depth and char == ":" and after in ",[]{}")):
            node_start = True
        elif char == "-" and text.startswith("---", i) and text[i + 3 : i + 4] in ("", " ", "\t", "\n", "\r"):
            i += 3  # a document start marker; the document's node follows
            node_start = True
            continue
        elif node_start and char in "\"'":
            match = (_DOUBLE_QUOTED if char == '"' else _SINGLE_QUOTED).match(text, i)
            if match is None:
                return None  # unterminated: ruamel reports it
            i = match.end()
            node_start = False
            continue
        elif node_start and not depth and char in "|>":
            # a block scalar: its lines are the ones indented deeper than the line it starts on
            i = _line_end(text, i)
            while i < end:
                following = _line_end(text, i + 1)
                line = text[i + 1 : following]
                if line.strip(" ") and _indent(text, i + 1) <= line_indent:
                    break
                i = following
            continue
        elif node_start and char in "&!":
            while i < end and text[i] not in _SPACE + _BREAK + ",[]{}":
                i += 1
            continue
        else:
            node_start = False
        i += 1
    return None


def _indent(text: str, start: int) -> int:
    """Spaces at ``start`` (a line's first character)."""
    i = start
    while i < len(text) and text[i] == " ":
        i += 1
    return i - start


def _line_end(text: str, start: int) -> int:
    """Offset of the line break that ends the line holding ``start`` (or the end of the text)."""
    found = _LINE_BREAK.search(text, start)
    return found.start() if found else len(text)
