"""Read YAML with line and column numbers kept, for error messages that point at the input.

``Located`` keeps a document's plain data next to the position of every key and item, so a
JSON path can be turned back into ``file:line:col``. Duplicate keys are refused, as the API
server's strict decoding does.

Inputs are read by the project's one YAML reader (``generator.yamlio.read``, libyaml's parser
events), here with YAML 1.2 resolution (``yaml_1_2``) and the reader's ``INPUTS`` limits,
~20x faster than ruamel's round-trip loader; positions are read when an error first asks for
one, and looked up by the reader's ``Positions``. Before anything, the text is checked for
bytes YAML forbids, located.

The rare rest goes through ruamel's round-trip loader: documents that use what the reader does
not build (anchors, tags, floats, timestamps, duplicate or complex keys) and syntax errors. It
is round-trip, not safe as lint's fallback is, because it is the YAML 1.2 loader inputs were
always read with: the data (``0777`` and ``yes`` stay as YAML 1.2 reads them), the positions of
what it read (its containers record them) and its error texts stay as they were. Lint reads
manifests as go-yaml v2 does instead (``lint.loader``), so the two fallbacks build different
values from the same text and stay two. Before it, the nesting depth and the alias budget
are bounded, both located.
"""

from __future__ import annotations

import functools
import math
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import regex
from generator.errors import InputError, InputWarning
from generator.yamlio import lines
from generator.yamlio.messages import (
    ALIAS_HINT,
    BAD_CHARACTER_HINT,
    NOT_UTF8_HINT,
    TOO_DEEP_HINT,
    bad_character,
    duplicate_key,
    not_utf8,
    syntax_hint,
    too_deep,
    too_large,
)

if TYPE_CHECKING:
    from ruamel.yaml import YAML

    from generator.yamlio.read import Positions, Resolution


def _no_positions() -> Positions:
    from generator.yamlio.read import Positions

    return Positions.of((None, None))


@dataclass
class Located:
    """A parsed YAML document: plain data plus where each key and item is written (the
    reader's ``Positions``, read when first asked for)."""

    path: str
    data: Any
    where: Positions = field(default_factory=_no_positions, repr=False)

    @property
    def positions(self) -> dict[tuple, tuple[int, int, int, int]]:
        """Every JSON path and the 1-based (line, col) of its key (of the item, in a sequence)
        and of its value."""
        return {
            path: (key.line + 1, key.column + 1, value.line + 1, value.column + 1)
            for path, (key, value) in self.where.table().items()
        }

    def position(self, json_path: tuple | list) -> tuple[int, int]:
        """1-based line and column of the deepest node on ``json_path`` that exists."""
        return self._at(json_path, False)

    def value_position(self, json_path: tuple | list) -> tuple[int, int]:
        """Position of the value at ``json_path`` (not its key), falling back to the key."""
        return self._at(json_path, True)

    def _at(self, json_path: tuple | list, at_value: bool) -> tuple[int, int]:
        _node, mark = self.where.find(json_path, at_value)
        return (mark.line + 1, mark.column + 1) if mark else (1, 1)

    def error(
        self, message: str, json_path: tuple | list = (), hint: str = "", *, at_value: bool = False
    ) -> InputError:
        line, col = self.value_position(json_path) if at_value else self.position(json_path)
        return InputError(message, path=self.path, line=line, col=col, hint=hint)

    def warning(
        self, message: str, json_path: tuple | list = (), hint: str = "", *, at_value: bool = False
    ) -> InputWarning:
        line, col = self.value_position(json_path) if at_value else self.position(json_path)
        return InputWarning(message, path=self.path, line=line, col=col, hint=hint)


def to_plain(node: Any, nodes: int) -> Any:
    """Round-trip containers → dicts and lists; scalars → str/int/float/bool/None.

    Aliases are expanded here, so the node count is capped at ``nodes``: a few kilobytes of
    nested aliases ("billion laughs") would otherwise expand into gigabytes.
    """
    budget = [nodes]

    def plain(value: Any) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError("too many nodes")
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            return float(value)
        # strings, and timestamps or other YAML-only types no input contract uses
        return str(value)

    return plain(node)


_UNREADABLE_HINT = "check that the file exists and that this user may read it and the folders above it (`ls -l`)"


def load_file(path: Path, display: str | None = None) -> Located:
    """Parse one single-document YAML file; every failure is an ``InputError`` at its line."""
    from generator.yamlio.read import INPUTS

    shown = display or str(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=shown, hint=_UNREADABLE_HINT) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("not a regular file", path=shown, hint="give the path of a YAML file")
    size = info.st_size
    if size > INPUTS.file_bytes:
        raise InputError(
            too_large("file", INPUTS.file_bytes, size) + " for inputs",
            path=shown,
            hint="a cluster input is a few kilobytes; check that this is the right file",
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=shown, hint=_UNREADABLE_HINT) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message, line, col = not_utf8(exc)
        raise InputError(message, path=shown, line=line + 1, col=col + 1, hint=NOT_UTF8_HINT) from None
    return load_text(text, shown)


# what YAML 1.2 accepts in a stream (c-printable), tab, line feed and carriage return included
_NOT_PRINTABLE = regex.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def load_text(text: str, display: str) -> Located:
    bad = _NOT_PRINTABLE.search(text)
    if bad:
        line, col = lines.line_col(text, bad.start())
        raise InputError(
            f"{bad_character(bad.group())} is not allowed in YAML",
            path=display,
            line=line,
            col=col,
            hint=BAD_CHARACTER_HINT,
        )
    try:
        fast = _fast_load(text, display)
    except _TooDeep as deep:
        raise deep.error(display) from None
    if fast is not None:
        if _written_nodes(fast.data) > _values_bound():
            _check_values(text, display)  # located at the first node past the bound
        return fast
    _check_values(text, display)
    return _ruamel_load(text, display)  # the round-trip loader


def _values_bound() -> float:
    from generator.yamlio.read import INPUTS

    return math.inf if INPUTS.values is None else INPUTS.values


def _written_nodes(data: Any) -> int:
    """The nodes of a document the compiled reader built, as ``_check_values`` counts them from
    its text: the reader hands over every document with an alias or a merge key, so each node
    written is one value built (a mapping, its keys and its values, a list and its items, a
    scalar). Counting them costs a tenth of counting libyaml's events through ruamel's parser."""
    if isinstance(data, dict):
        return 1 + len(data) + sum(_written_nodes(v) for v in data.values())
    if isinstance(data, list):
        return 1 + sum(_written_nodes(v) for v in data)
    return 1


class _TooDeep(Exception):
    def __init__(self, line: int, col: int):
        super().__init__(line, col)
        self.line, self.col = line, col

    def error(self, display: str) -> InputError:
        return InputError(too_deep(_max_depth()), path=display, line=self.line, col=self.col, hint=TOO_DEEP_HINT)


def _max_depth() -> int:
    """The inputs' depth bound (``yamlread.INPUTS``; the reader is imported when first needed)."""
    from generator.yamlio.read import INPUTS

    return INPUTS.depth


_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT = regex.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_TIMESTAMP = regex.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?")


def _too_large_integer(value: str, mark: Any, display: str) -> InputError:
    """An integer with more digits than Python converts (``sys.get_int_max_str_digits``)."""
    digits = sum(c.isdigit() for c in value)
    return InputError(
        f"integer with {digits} digits is too large",
        path=display,
        line=mark.line + 1,
        col=mark.column + 1,
        hint="quote it if it is meant as a string",
    )


def _plain_1_2(value: str) -> str | int | bool | None:
    """A plain scalar resolved as the YAML 1.2 core schema does, as the round-trip loader reads
    cluster inputs (lint reads manifests as the API server's YAML 1.1 reader instead); anything
    beyond null, booleans, decimal integers and plain strings raises ``Fallback``."""
    from generator.yamlio.read import Fallback

    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.fullmatch(value):
        try:
            return int(value)
        except ValueError:  # more digits than Python converts: the round-trip loader locates it
            raise Fallback from None
    if value[0] in "+-.0123456789" and (_TIMESTAMP.fullmatch(value) or not _is_plain_string(value)):
        raise Fallback  # floats, other number forms, timestamps ("Z" becomes "+00:00"): ruamel builds them
    return value


def _key_1_2(value: str) -> str:
    from generator.yamlio.read import Fallback

    key = _plain_1_2(value)
    if not isinstance(key, str):
        raise Fallback  # inputs are JSON data: the round-trip loader words a key that is no string
    return key


@functools.lru_cache(maxsize=4096)
def _is_plain_string(value: str) -> bool:
    """500m and 2Mi are strings; 1.5, 1e3 and 0x1F are numbers in YAML 1.2."""
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    return str(VersionedResolver(version=(1, 2)).resolve(ScalarNode, value, (True, False))) == "tag:yaml.org,2002:str"


@functools.cache
def yaml_1_2() -> Resolution:
    """The reader's resolution for our inputs: YAML 1.2's core schema, as far as the fast path
    builds it (null, booleans, decimal integers, strings)."""
    from generator.yamlio.read import Resolution

    return Resolution(frozenset("~nNtTfF+-.0123456789"), _plain_1_2, _key_1_2)


def _fast_load(text: str, display: str) -> Located | None:
    """The document the one reader builds, positions read when first asked for; None for what it
    hands over (syntax errors too: the round-trip loader words them)."""
    from generator.yamlio import read as yamlread

    try:
        data = yamlread.build(text, yaml_1_2(), yamlread.INPUTS.depth)
    except yamlread.TooDeep as deep:
        raise _TooDeep(deep.line + 1, deep.col + 1) from None
    if isinstance(data, yamlread.Handover):
        return None
    return Located(display, data, yamlread.Positions(text, yaml_1_2()))


def _check_depth(text: str) -> None:
    """Nesting bounded before ruamel's recursive loader sees the text (``yamlio.depth``)."""
    from generator.yamlio import depth
    from generator.yamlio.read import TooDeep

    try:
        depth.check(text, _max_depth())
    except TooDeep as deep:
        raise _TooDeep(deep.line + 1, deep.col + 1) from None


def _deepest_start(yaml: YAML, text: str) -> tuple[int, int]:
    """1-based line and column of the first collection nested deeper than the depth bound, from
    ruamel's parser events (linear in block nesting; flow nesting was bounded before)."""
    from generator.yamlio import depth

    mark = depth.first_too_deep(yaml.parse(text), _max_depth())
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _check_values(text: str, display: str) -> None:
    """At most ``INPUTS.values`` nodes as written, counted from libyaml's events (in C, and
    stopped at the bound) before ruamel's round-trip loader reads them (~0.3 ms a node); located
    at the first node past it. What the compiled reader builds (a megabyte in milliseconds) is
    counted from its values (``_written_nodes``), and only past the bound counted here for
    the place to name.
    Where the bundled libyaml stops early on what ruamel reads on (a ':' in a flow scalar), the
    rest is bounded by its lines and commas, each of which a node needs. A text too short to
    hold more is not parsed (nor ruamel.yaml imported, as a lint with a small config file
    needs it for nothing else): a node takes a character of its own, or is an empty scalar
    that an indicator before it (``-``, ``?``, ``:``, ``,``, a flow key) implies, so a text
    holds at most two nodes per character and the document's own."""
    from generator.yamlio.read import INPUTS

    bound = INPUTS.values
    if bound is None or 2 * len(text) + 2 <= bound:
        return
    from _ruamel_yaml import CParser
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import AliasEvent, MappingStartEvent, ScalarEvent, SequenceStartEvent

    nodes, parser, mark = 0, CParser(text), None
    try:
        while True:
            event = parser.get_event()
            if event is None or type(event).__name__ == "StreamEndEvent":
                return
            if isinstance(event, (ScalarEvent, MappingStartEvent, SequenceStartEvent, AliasEvent)):
                nodes += 1
                if nodes > bound:
                    mark = event.start_mark
                    break
    except YAMLError as exc:
        stop = getattr(exc, "problem_mark", None)
        rest = text[stop.index :] if stop is not None else text
        if nodes + lines.count(rest) + rest.count(",") <= bound:
            return
        mark = stop
    try:
        _check_depth(text)  # nesting past its bound is the more telling error (`[[[[...`)
    except _TooDeep as deep:
        raise deep.error(display) from None
    raise InputError(
        f"the input holds more than {bound} values (keys, list items and scalars); a cluster input holds a few hundred",
        path=display,
        line=mark.line + 1 if mark else 0,
        col=mark.column + 1 if mark else 0,
        hint="check that this is the right file; what clusters share goes in bases (clusters/_bases/)",
    )


def _check_aliases(text: str, display: str) -> None:
    """The alias budget (``yamlread.INPUTS``), located at the alias that passes it, before the
    round-trip loader shares and ``to_plain`` copies them."""
    from generator.yamlio import aliases as yamlaliases
    from generator.yamlio.read import INPUTS

    try:
        yamlaliases.check(text, INPUTS.alias_nodes)
    except yamlaliases.TooManyAliases as exc:
        raise InputError(
            str(exc),
            path=display,
            line=exc.line + 1,
            col=exc.col + 1,
            hint=ALIAS_HINT,
        ) from None


_VERSION_DIRECTIVE = regex.compile(r"(?:(?<=[\r\n])|\A)%YAML[ \t]+(\S*)")


def _check_version(text: str, display: str) -> None:
    """A ``%YAML`` directive names 1.1 or 1.2: ruamel's parser asserts on other 1.x versions."""
    directive = _VERSION_DIRECTIVE.search(text)
    if directive and directive.group(1) not in ("1.1", "1.2"):
        line, col = lines.line_col(text, directive.start())
        raise InputError(
            f"YAML version {directive.group(1)!r} is not supported",
            path=display,
            line=line,
            col=col,
            hint="write `%YAML 1.2`, or leave the directive out",
        )


# explicit tags an input may carry: those of JSON's types (``!`` forces a string)
_PLAIN_TAGS = frozenset(
    {"!", *(f"tag:yaml.org,2002:{kind}" for kind in ("str", "int", "float", "bool", "null", "map", "seq"))}
)


def _check_tags(yaml: YAML, text: str, display: str) -> None:
    """Inputs are JSON data: a tag that builds anything else (``!!omap``, ``!!set``,
    ``!!binary``, ``!!python/...``, one of the writer's own) is an error at the tag, before
    the round-trip loader builds what no input contract reads. Syntax errors are left to it."""
    from ruamel.yaml.error import YAMLError

    try:
        for event in yaml.parse(text):
            tag = getattr(event, "tag", None)
            if tag is not None and str(tag) not in _PLAIN_TAGS:
                shown = str(tag).replace("tag:yaml.org,2002:", "!!")
                raise InputError(
                    f"YAML tag {shown} is not supported in inputs",
                    path=display,
                    line=event.start_mark.line + 1,
                    col=event.start_mark.column + 1,
                    hint="inputs are plain data (strings, numbers, booleans, lists, mappings): remove the tag",
                )
    except YAMLError:
        return


def _ruamel_load(text: str, display: str) -> Located:
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        _check_depth(text)
    except _TooDeep as deep:
        raise deep.error(display) from None
    _check_version(text, display)
    _check_aliases(text, display)
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    _check_tags(yaml, text, display)
    try:
        node = yaml.load(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        raise InputError(
            duplicate_key(exc.problem),
            path=display,
            line=mark.line + 1,
            col=mark.column + 1,
            hint="each key may appear once in a mapping; remove or merge the repeated one",
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise InputError(
            f"YAML syntax error: {exc.problem or exc.context}",
            path=display,
            line=(mark.line + 1) if mark else 0,
            col=(mark.column + 1) if mark else 0,
            hint=syntax_hint(str(exc.problem or exc.context), lines.line(text, mark.line) if mark else ""),
        ) from None
    except YAMLError as exc:
        raise InputError(f"YAML error: {exc}".splitlines()[0], path=display) from None
    except _UNBUILT as exc:
        # a value its tag cannot build (`!!float abc`, `!!bool "1.32"`, an integer of 5,000
        # digits): ruamel's constructor says so without a position, its composer's node has one
        misfit = _misfit(text)
        if misfit is None:
            raise InputError(
                f"YAML value does not match its tag: {exc}",
                path=display,
                hint="remove the !!tag, or fix the value it applies to",
            ) from None
        node, problem = misfit
        if problem is None:
            kind = "mapping" if node.id == "mapping" else "sequence"
            raise _complex_key(kind, node.start_mark.line + 1, node.start_mark.column + 1, display) from None
        if node.tag.endswith(":int") and sum(c.isdigit() for c in node.value) > sys.get_int_max_str_digits():
            raise _too_large_integer(node.value, node.start_mark, display) from None
        tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
        why = f": {problem}" if isinstance(problem, ValueError) else ""
        raise InputError(
            f"YAML value {node.value[:40]!r} does not match its tag {tag}{why}",
            path=display,
            line=node.start_mark.line + 1,
            col=node.start_mark.column + 1,
            hint="remove the !!tag, or fix the value it applies to",
        ) from None
    except RecursionError:
        # block nesting past what libyaml read (it stopped early): ruamel's own events locate it
        raise _TooDeep(*_deepest_start(yaml, text)).error(display) from None
    from generator.yamlio import depth

    if (
        depth.nesting(node, _max_depth()) > _max_depth()
    ):  # read in full where the stack allowed it: the same bound holds
        raise _TooDeep(*_deepest_start(yaml, text)).error(display)
    from generator.yamlio.read import INPUTS, Positions

    nodes = INPUTS.nodes if INPUTS.nodes is not None else sys.maxsize
    try:
        data = to_plain(node, nodes)
    except (ValueError, RecursionError):
        raise InputError(
            f"the document expands to more than {nodes} nodes (nested aliases?)",
            path=display,
            hint=ALIAS_HINT,
        ) from None
    return Located(display, data, Positions.of((None, _ruamel_where(node, display))))


# what ruamel's constructors raise for a scalar its tag cannot build: ValueError (`!!int abc`),
# KeyError (`!!bool "1.32"`), IndexError (`!!int ''`), TypeError
_UNBUILT = (ValueError, TypeError, LookupError)


def _complex_key(kind: str, line: int, col: int, display: str) -> InputError:
    """A mapping or sequence used as a key: inputs are JSON data, whose keys are strings."""
    return InputError(
        f"a {kind} is used as a key; keys must be strings",
        path=display,
        line=line,
        col=col,
        hint="write the key as a plain or quoted string, e.g. `name: value`",
    )


def _misfit(text: str) -> tuple[Any, Exception | None] | None:
    """(node, error) of the first scalar its tag cannot build, or of a mapping or sequence
    used as a key (error None: the loader cannot hash it), or None."""
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    yaml = YAML(typ="rt")
    stack, seen = [yaml.compose(text)], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))  # an alias is the same node object
        if isinstance(node, ScalarNode):
            try:
                yaml.constructor.construct_object(node, deep=True)
            except _UNBUILT as exc:
                return node, exc
        elif isinstance(node, MappingNode):
            for key, _value in node.value:
                if isinstance(key, (MappingNode, SequenceNode)):
                    return key, None
            stack.extend(part for pair in reversed(node.value) for part in reversed(pair))
        elif isinstance(node, SequenceNode):
            stack.extend(reversed(node.value))
    return None


def _ruamel_where(root: Any, display: str) -> Any:
    """The positions ruamel's round-trip containers recorded, as the reader's position map
    (``yamlread.Positions``: ``{key: (key, value, inner)}`` and ``[(item, inner)]``), keyed as
    ``Located`` keys them.

    A merged key (``<<: *base``) is where the mapping it comes from writes it; a container
    that records no positions (a tagged one: ``!!omap``, ``!!python/...``) places its parts at
    its own start, or at its parent's. A mapping or sequence used as a key (``? {a: 1}``) is
    an error at that key: inputs are JSON data, whose keys are strings. Aliased subtrees are
    visited once per path they appear at, within the node budget ``to_plain`` already
    enforced."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    from generator.yamlio.read import Mark, Written

    def at(line_col: Sequence[int]) -> Written:
        return Written(Mark(*line_col))

    def start(node: Any, parent: Written) -> Written:
        line, col = getattr(node.lc, "line", None), getattr(node.lc, "col", None)
        return parent if line is None or col is None else at((line, col))

    def key_marks(node: Any, key: object, own: Written) -> tuple[Written, Written]:
        sources = [node]
        while sources:
            source = sources.pop(0)
            written = source.lc.data.get(key) if isinstance(source.lc.data, dict) else None
            if written is not None:
                return at(written[:2]), at(written[2:4])
            sources.extend(m for m in getattr(source, "merge", ()) if isinstance(m, CommentedMap))
        return own, own

    top: list = [None]
    origin = Written(Mark(0, 0))
    stack: list[tuple[Any, list, int, Written]] = [(root, top, 0, origin)]  # (node, the slot for its map, its mark)
    while stack:
        node, holder, slot, parent = stack.pop()
        if isinstance(node, CommentedMap):
            own = start(node, parent)
            where: dict[str, list] = {}
            for key, value in node.items():
                key_at, value_at = key_marks(node, key, own)
                if isinstance(key, (Mapping, tuple)):
                    kind = "mapping" if isinstance(key, Mapping) else "sequence"
                    raise _complex_key(kind, key_at.start_mark.line + 1, key_at.start_mark.column + 1, display)
                entry = where[str(key)] = [key_at, value_at, None]
                stack.append((value, entry, 2, value_at))
            holder[slot] = where
        elif isinstance(node, CommentedSeq):
            own = start(node, parent)
            written = node.lc.data if isinstance(node.lc.data, dict) else {}
            items: list[list[Any]] = [[at(written[i][:2]) if i in written else own, None] for i in range(len(node))]
            stack.extend((value, items[index], 1, items[index][0]) for index, value in enumerate(node))
            holder[slot] = items
    return top[0]
