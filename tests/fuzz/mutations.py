"""Hypothesis strategies that turn a real YAML file into the files an unlucky user writes.

Two kinds of damage, mixed in one example:
- structural, on the parsed document: drop, duplicate, retype or move a value, wrong scalar
  types, huge integers, odd Unicode and control characters, deep nesting, odd keys, shared
  and self-referencing anchors; the result is written back as YAML (or JSON);
- textual, on the bytes: inserted tokens and non-UTF-8 bytes, deleted spans, duplicated or
  swapped lines (duplicate keys), tabs, line-ending changes, truncation, a BOM, UTF-16,
  YAML tags on values and merge keys (``<<``) in mappings, some setting a key the mapping
  sets too.

Structural damage includes non-string values in string maps (labels, annotations, the Pod
Security labels lint reads) and control characters (CR, NUL, DEL, ESC, bidi overrides) in keys
and values, which every message must escape. ``deep_json`` writes JSON nested past any bound.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import sys
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

# Characters that break naive handling: NUL and C0/C1 controls, YAML's own line breaks
# (NEL, LS, PS), BOM and non-characters, bidi overrides, zero-width and combining marks,
# full-width digits, astral emoji.
ODD_CHARS = list(
    "\x00\x01\x07\x08\t\x0b\x0c\r\x1b\x7f\x80\x85\x9f\xa0\u0301\u200b\u200e\u202e\u2028\u2029"
    "\ufeff\ufffe\uffff\uff18\U0001f600\U0010ffff"
)
# Plain scalars that YAML 1.1 or 1.2 read as something other than a string, and syntax.
YAML_WORDS = [
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "FALSE",
    ".nan",
    ".NaN",
    ".inf",
    "-.inf",
    "+.Inf",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    "1e3",
    "1E400",
    "-0",
    "+12",
    "12:30:45",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "=",
    "<<",
    "",
    " ",
    "-",
    "?",
    ":",
    "*a",
    "&a",
    "!!str",
    "!!int",
    "'",
    '"',
    "#",
    "|",
    ">",
    "@",
    "`",
    "%",
    "{",
    "}",
    "[",
    "]",
    ",",
]
# Byte sequences that are not UTF-8: a lone continuation byte, a truncated sequence, an
# encoded surrogate, an overlong slash, a code point above U+10FFFF, Latin-1.
BAD_BYTES = [b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"caf\xe9"]
# Text a hand edit or a bad merge leaves behind, at any point of a line.
TOKENS = [
    "\t",
    "\r",
    "\r\n",
    "\n",
    "\n\n",
    "- ",
    ": ",
    ":",
    "? ",
    "#",
    "---\n",
    "...\n",
    "&a ",
    "*a",
    "*undefined",
    "<<: *a\n",
    "!!binary ",
    "!!float ",
    "!!int ",
    "!!python/object:os.system ",
    "!custom ",
    "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n",
    "{",
    "}",
    "[",
    "]",
    ",",
    "'",
    '"',
    "|",
    ">",
    "|-\n",
    "@",
    "`",
    "\\",
    "\\x00",
    '"\\ud800"',
    "? [a, b]\n: c\n",
    "? {a: 1}\n: c\n",
    "[[[[[[[[",
    "{a: {b: {c: {d: ",
    "\ufeff",
    "\u2028",
    # what libyaml refuses and ruamel reads on, so the round-trip loader sees what follows
    "%YAML 1.3\n",
    "[a:b]",
    "{a:b}",
    "\n: 1\n",
]


def _odd_text(max_size: int = 24) -> st.SearchStrategy[str]:
    return st.text(st.one_of(st.characters(), st.sampled_from(ODD_CHARS)), max_size=max_size)


# Characters that rewrite what a terminal shows: a message must never carry them raw.
CONTROL_CHARS = ["\r", "\x00", "\x7f", "\x1b[2K", "\u202e", "\x08", "\x9b", "\u2028"]
# Tags a value can carry, from YAML's own to the ones only a Python loader would build.
TAGS = [
    "!!omap ",
    "!!set ",
    "!!map ",
    "!!seq ",
    "!!str ",
    "!!int ",
    "!!null ",
    "!!timestamp ",
    "!!binary ",
    "!!python/object/apply:os.system ",
    "!!python/name:os.system ",
    "!custom ",
    "!<tag:example.com,2026:x> ",
]
# Maps whose values the API server reads as strings only; and the label lint reads itself.
STRING_MAPS = ("labels", "annotations", "matchLabels", "nodeSelector", "data")
LABEL_KEYS = ["pod-security.kubernetes.io/enforce", "pod-security.kubernetes.io/warn", "app", "team"]

huge_ints = st.integers(min_value=19, max_value=5001).flatmap(
    lambda digits: st.sampled_from([10**digits, -(10**digits), 10**digits - 1, 2**63, -(2**63) - 1])
)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), huge_ints, st.floats(), _odd_text(), st.sampled_from(YAML_WORDS)
)

keys = st.one_of(_odd_text(12), st.sampled_from(YAML_WORDS), st.integers(), st.booleans(), st.none(), st.floats())

values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple = (), seen: frozenset = frozenset()) -> list[tuple]:
    """Every path to a value in ``node`` (keys and indices), the root excluded; a container
    that contains itself (a self-alias) is entered once."""
    if id(node) in seen:
        return []
    seen = seen | {id(node)}
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    found = []
    for key, child in items:
        found.append(prefix + (key,))
        found.extend(_paths(child, prefix + (key,), seen))
    return found


def _nested(value: Any, depth: int, as_list: bool) -> Any:
    for _ in range(depth):
        value = CommentedSeq([value]) if as_list else CommentedMap({"n": value})
    return value


@st.composite
def structural(draw, doc: Any) -> Any:
    """Apply one structural mutation to ``doc`` (in place when possible); return the new root."""
    paths = _paths(doc)
    op = draw(
        st.sampled_from(
            [
                "drop",
                "retype",
                "scalar",
                "same-type",
                "huge",
                "odd-string",
                "nest",
                "add-key",
                "duplicate-item",
                "alias",
                "self-alias",
                "move",
                "root",
                "string-map",
                "control",
                "control-key",
            ]
            if paths
            else ["root", "add-key", "string-map"]
        )
    )
    if op == "root":
        return draw(values)
    if op == "string-map":  # a non-string value where only strings are allowed
        maps = [p for p in paths if p and p[-1] in STRING_MAPS and isinstance(_get(doc, p), dict)]
        if not maps:
            metadata = doc.get("metadata") if isinstance(doc, dict) else None
            if isinstance(metadata, dict):
                metadata["labels"] = CommentedMap()
                maps = [("metadata", "labels")]
        if maps:
            target = _get(doc, draw(st.sampled_from(maps)))
            target[draw(st.sampled_from(LABEL_KEYS))] = draw(st.one_of(values, st.lists(scalars, max_size=2)))
        return doc
    if op == "add-key":
        containers = [()] + [p for p in paths if isinstance(_get(doc, p), dict)]
        target = _get(doc, draw(st.sampled_from(containers)))
        if isinstance(target, dict):
            target[draw(keys)] = draw(values)
        return doc
    path = draw(st.sampled_from(paths))
    parent, last = _get(doc, path[:-1]), path[-1]
    if op == "drop":
        del parent[last]
    elif op == "retype":
        parent[last] = draw(values)
    elif op == "scalar":
        parent[last] = draw(scalars)
    elif op == "same-type":  # often still valid: reaches the cross-field checks and Jsonnet
        parent[last] = draw(_same_type(parent[last], doc))
    elif op == "duplicate-item":
        lists = [p for p in paths if isinstance(_get(doc, p), list) and _get(doc, p)]
        if lists:
            items = _get(doc, draw(st.sampled_from(lists)))
            items.append(copy.deepcopy(items[draw(st.integers(0, len(items) - 1))]))
    elif op == "huge":
        parent[last] = draw(huge_ints)
    elif op == "odd-string":
        parent[last] = draw(_odd_text())
    elif op == "nest":
        parent[last] = _nested(parent[last], draw(st.integers(1, 120)), draw(st.booleans()))
    elif op == "alias":
        # the same container at two places is written as an anchor and an alias
        shared = [p for p in paths if isinstance(_get(doc, p), (dict, list))]
        if shared:
            parent[last] = _get(doc, draw(st.sampled_from(shared)))
    elif op == "self-alias":
        containers = [p for p in paths if isinstance(_get(doc, p), (dict, list))]
        if containers:
            target = _get(doc, draw(st.sampled_from(containers)))
            if isinstance(target, dict):
                target[draw(keys)] = target
            else:
                target.append(target)
    elif op == "control":
        parent[last] = draw(_controlled(parent[last] if isinstance(parent[last], str) else "x"))
    elif op == "control-key" and isinstance(parent, dict):
        value = parent.pop(last)
        parent[draw(_controlled(str(last)))] = value
    elif op == "move":
        source = draw(st.sampled_from(paths))
        if source[: len(path)] != path:  # not into itself
            parent[last] = _get(doc, source)
    return doc


def _controlled(text: str) -> st.SearchStrategy[str]:
    """``text`` with a control character inside."""
    return st.tuples(st.integers(0, len(text)), st.sampled_from(CONTROL_CHARS)).map(
        lambda pick: text[: pick[0]] + pick[1] + text[pick[0] :]
    )


def deep_json(draw_depth: st.SearchStrategy[int] | None = None) -> st.SearchStrategy[bytes]:
    """A Kubernetes object in JSON with a value nested about the depth bound, or far past it."""
    depths = draw_depth or st.sampled_from([255, 256, 257, 300, 999, 1000, 1001, 5000, 100_000])

    def build(pick) -> bytes:
        depth, (opener, closer), duplicate = pick
        head = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, '
        head += '"x": 1, "x": 2, ' if duplicate else ""
        return (head + '"data": ' + opener * depth + "1" + closer * depth + "}").encode()

    return st.tuples(depths, st.sampled_from([("[", "]"), ('{"a": ', "}")]), st.booleans()).map(build)


def _same_type(value: Any, doc: Any) -> st.SearchStrategy:
    """Another value of ``value``'s type: a boundary number, another string of the document."""
    if isinstance(value, bool):
        return st.just(not value)
    if isinstance(value, int):
        return st.one_of(st.sampled_from([0, 1, -1, value - 1, value + 1, value * 1000, 2**31, 2**53]), st.integers())
    if isinstance(value, float):
        return st.floats()
    if isinstance(value, str):
        strings = sorted({_get(doc, p) for p in _paths(doc) if isinstance(_get(doc, p), str)})
        return st.one_of(
            st.sampled_from(strings or [value]), st.just(value * 3), st.just(value.upper()), st.just(value + "-x" * 40)
        )
    return st.just(value)


def _get(root: Any, path: tuple) -> Any:
    for part in path:
        root = root[part]
    return root


@contextlib.contextmanager
def unlimited_int_digits():
    """Let huge integers be written out: Python refuses more than 4300 digits by default."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


def dump_yaml(docs: list) -> str:
    """Block-style YAML as the round-trip dumper writes it (anchors for shared containers)."""
    yaml = YAML(typ="rt")
    yaml.width = 4096
    stream = io.StringIO()
    with unlimited_int_digits():
        yaml.dump_all(docs, stream)
    return stream.getvalue()


def dump_json(docs: list) -> str | None:
    """JSON (a YAML subset) when the documents have one: string keys, no cycles; several
    documents become a top-level array."""
    try:
        with unlimited_int_digits():
            return json.dumps(docs[0] if len(docs) == 1 else docs, ensure_ascii=False, indent=1)
    except (TypeError, ValueError, RecursionError):
        return None


@st.composite
def textual(draw, data: bytes) -> bytes:
    """Apply one byte-level mutation to ``data``."""
    lines = data.splitlines(keepends=True) or [b""]
    op = draw(
        st.sampled_from(
            [
                "insert",
                "bad-bytes",
                "delete",
                "duplicate-line",
                "swap-lines",
                "tab-indent",
                "line-endings",
                "truncate",
                "bom",
                "utf16",
                "deep-text",
                "tag",
                "merge-key",
            ]
        )
    )
    at = draw(st.integers(0, len(data)))
    if op == "insert":
        token = draw(st.one_of(st.sampled_from(TOKENS), st.sampled_from(ODD_CHARS), _odd_text(6)))
        return data[:at] + token.encode("utf-8", "surrogatepass") + data[at:]
    if op == "bad-bytes":
        return data[:at] + draw(st.sampled_from(BAD_BYTES)) + data[at:]
    if op == "delete":
        return data[:at] + data[at + draw(st.integers(1, 64)) :]
    line = draw(st.integers(0, len(lines) - 1))
    keyed = [i for i, text in enumerate(lines) if _BLOCK_KEY.match(text)]
    if op == "tag" and keyed:  # `key: !!omap value`
        i = draw(st.sampled_from(keyed))
        key = _BLOCK_KEY.match(lines[i])
        assert key is not None
        lines[i] = lines[i][: key.end()] + draw(st.sampled_from(TAGS)).encode() + lines[i][key.end() :]
        return b"".join(lines)
    if op == "merge-key" and keyed:  # `<<: {...}` before a key, merging that key too or not
        i = draw(st.sampled_from(keyed))
        key = _BLOCK_KEY.match(lines[i])
        assert key is not None
        indent, name = key.group(1), key.group(2)
        merged = draw(st.sampled_from([b"{x: 1}", b"{" + name + b": 1}", b"{" + name + b": 1, y: [2]}", b"[{z: 1}]"]))
        anchored = draw(st.booleans())
        merge = indent + b"<<: " + (b"&m " if anchored else b"") + merged + b"\n"
        tail = [indent + b"again: {<<: *m}\n"] if anchored else []
        return b"".join(lines[:i] + [merge] + lines[i:] + tail)
    if op == "duplicate-line":  # a repeated key, or a repeated list item
        return b"".join(lines[: line + 1] + [lines[line]] + lines[line + 1 :])
    if op == "swap-lines":
        other = draw(st.integers(0, len(lines) - 1))
        lines[line], lines[other] = lines[other], lines[line]
        return b"".join(lines)
    if op == "tab-indent":
        lines[line] = draw(st.sampled_from([b"\t", b" \t", b"\t  "])) + lines[line].lstrip(b" ")
        return b"".join(lines)
    if op == "line-endings":
        return data.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r", b"\x85", b"\xe2\x80\xa8"])))
    if op == "truncate":
        return data[:at]
    if op == "bom":
        return b"\xef\xbb\xbf" + data
    if op == "utf16":
        return data.decode("utf-8", "replace").encode(draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32"])))
    # deep-text: a value nested far deeper than any input needs; past the parser's recursion
    # limit (~500), but not so deep that rejecting it takes seconds (1,000 levels: ~14 s)
    depth = draw(st.integers(1, 600))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b"{a: ", b"}"), (b'{"a": ', b"}"), (b"- ", b"")]))
    nested = (
        opener * depth + b"x" + closer * depth
        if closer
        else b"".join(b"  " * i + opener + b"\n" for i in range(min(depth, 300))) + b"  " * min(depth, 300) + b"x"
    )
    return b"".join(lines[:line]) + b"deep: " + nested + b"\n" + b"".join(lines[line:])


# a block mapping key at the start of a line: `  name: ` (indent, key), not a list item
_BLOCK_KEY = re.compile(rb"^( *)([A-Za-z_][A-Za-z0-9_.-]*): ")


@st.composite
def mutated_yaml(draw, text: str) -> bytes:
    """``text`` (YAML, one or more documents) after at least one structural or textual mutation."""
    docs = list(YAML(typ="rt").load_all(text)) or [None]
    plan = draw(st.lists(st.sampled_from(["structural", "textual"]), min_size=1, max_size=4))
    structural_count = plan.count("structural")
    for _ in range(structural_count):
        index = draw(st.integers(0, len(docs) - 1))
        docs[index] = draw(structural(docs[index]))
    if structural_count:
        out = (dump_json(docs) if draw(st.booleans()) else None) or dump_yaml(docs)
        data = out.encode("utf-8", "surrogatepass")
    else:
        data = text.encode("utf-8")
    for _ in range(plan.count("textual")):
        data = draw(textual(data))
    return data
