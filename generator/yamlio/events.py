"""The reader's event path: ruamel's C parser events (a Python object each), for the documents
the compiled path sends on (``generator.yamlio.read``: tags, anchors, aliases, complex, merge or
repeated keys, what libyaml refuses) and wherever the compiled reader is not built. A ':' inside
a flow scalar, which the bundled libyaml 0.1.7 refuses and 0.2.5 reads, is masked for it
(``_read``); ruamel's Python parser reads only what masking does not take.

A module of its own so that ruamel.yaml (its parser, events and errors: about 47 M
instructions of start-up) is imported by the first document that needs it, not by every run:
a lint answered from its cache but for one plain file never reads an event.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from _ruamel_yaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from ruamel.yaml.scanner import ScannerError

from generator.yamlio.terms import Fallback, Mark, Resolution, TooDeep

_NODE_STARTS = (MappingStartEvent, SequenceStartEvent, AliasEvent)
_T = TypeVar("_T")


def load(text: str, resolution: Resolution, max_depth: int | None) -> Any:
    """``read.load`` on the event path: raises Fallback, the parser's YAMLError or TooDeep."""
    return _read(text, lambda get: _load_events(get, resolution, max_depth))


def locate(text: str, resolution: Resolution) -> tuple[Any, Any]:
    """``read.locate`` on the event path: the nodes are the events."""
    return _read(text, lambda get: _located(get, resolution))


def _read(text: str, read_events: Callable[[Callable[[], Any]], _T]) -> _T:
    """``read_events`` over the bundled libyaml's events of ``text``. Where that libyaml refuses
    a ':' inside a flow scalar (``_flow_colon``), over its events of the text with each such
    ':' masked (``_masked``); where masking does not take the text, over ruamel's Python
    parser's events (``_pure_events``), as before: it reads or refuses the text as it would."""
    try:
        return read_events(_events(text))
    except ScannerError as exc:
        if not _flow_colon(exc):
            raise
        masked = None if MASK in text else _masked(text, exc)
    for _ in range(MASKED_COLONS):
        if masked is None:
            break
        try:
            return read_events(_unmasked(_events(masked)))
        except YAMLError as exc:
            masked = _masked(masked, exc)
    return read_events(_pure_events(text))


def _document_root(get: Callable[[], Any]) -> Any:
    """The root event of the one document ``get`` reads (None when there is none)."""
    if not isinstance(get(), StreamStartEvent):
        raise Fallback
    event = get()
    if isinstance(event, StreamEndEvent):
        return None
    if not isinstance(event, DocumentStartEvent):
        raise Fallback
    return get()


def _document_end(get: Callable[[], Any]) -> None:
    if not isinstance(get(), DocumentEndEvent) or not isinstance(get(), StreamEndEvent):
        raise Fallback


def _load_events(get: Callable[[], Any], resolution: Resolution, max_depth: int | None) -> Any:
    root = _document_root(get)
    if root is None:
        return None
    data = _builder(resolution, max_depth)(root, get, 0)
    _document_end(get)
    return data


def _events(text: str) -> Callable[[], Any]:
    """The next-event function of ruamel's C parser (the libyaml bundled with ruamel.yaml.clib)."""
    return CParser(text).get_event


def _flow_colon(exc: YAMLError) -> bool:
    """The bundled libyaml (0.1.7) refuses a ':' inside a plain scalar of a flow collection
    (`[12:30]`, `{url: http://h:9090}`); libyaml 0.2.5, which the compiled path links, go-yaml
    and ruamel's Python scanner read it as part of the scalar."""
    return isinstance(exc, ScannerError) and exc.problem == "found unexpected ':'"


# A text holding more such ':' than this is read by ruamel's Python parser: each ':' masked
# costs libyaml a read of the text up to it, and ruamel's Python parser reads a text ~20
# times slower than libyaml, so this many re-reads still cost less than it.
MASKED_COLONS = 16
# What a ':' is masked with: a private-use character, which libyaml reads as any other in a
# plain scalar; a text that holds one is not masked.
MASK = "\ue000"
# After a ':' in a flow scalar, these end the scalar in libyaml 0.2.5 with the same error as
# 0.1.7's: such a ':' is not masked
_REFUSED_AFTER = frozenset(",?[]{}")


def _masked(text: str, refused: YAMLError) -> str | None:
    """``text`` with the ':' the bundled libyaml refused (``refused``, ``_flow_colon``) masked:
    libyaml 0.1.7 then reads on as 0.2.5 does (its only other rule for ':' in a flow scalar is
    to refuse one before a flow indicator, as 0.1.7 does); every mark stays where it was (one
    character for one). None where it is not to be masked: another refusal, a ':' 0.2.5
    refuses too."""
    if not _flow_colon(refused):
        return None
    mark = refused.problem_mark  # type: ignore[attr-defined]  # a ScannerError's
    at = mark.index + text.startswith("\ufeff")  # libyaml counts characters, past a leading BOM
    if text[at : at + 1] != ":" or text[at + 1 : at + 2] in _REFUSED_AFTER:
        return None
    return text[:at] + MASK + text[at + 1 :]


def _unmasked(get: Callable[[], Any]) -> Callable[[], Any]:
    """``get``'s events with each masked ':' put back: only a plain scalar holds one (no escape
    writes the mask there, as one may in a double-quoted scalar)."""

    def unmasked() -> Any:
        event = get()
        if type(event) is ScalarEvent and event.style == "" and MASK in event.value:
            event.value = event.value.replace(MASK, ":")
        return event

    return unmasked


def _pure_events(text: str) -> Callable[[], Any]:
    """The next-event function of ruamel's Python parser, for the texts the bundled libyaml
    refuses (``_flow_colon``) and masking does not take (``_read``): the same events, so both paths read such a text alike, data and
    positions (a plain scalar's style is None there, ``""`` from libyaml: made the same)."""
    from ruamel.yaml import YAML

    def marked(events: Iterable[Any]) -> Iterator[Any]:
        stack: list[list] = []  # per open collection: [is a block mapping, a value comes next]
        key = None
        for event in events:
            kind = type(event)
            if (
                stack
                and stack[-1][0]
                and stack[-1][1]
                and kind is ScalarEvent
                and event.value == ""
                and event.style is None
            ):
                event.start_mark = _after_colon(text, key) or event.start_mark
            if stack and kind not in (MappingEndEvent, SequenceEndEvent):
                stack[-1][1] = not stack[-1][1]  # a node fills the slot: a key, then its value
            if kind is ScalarEvent:
                key = event
                if event.style is None:
                    event.style = ""
            elif kind in (MappingStartEvent, SequenceStartEvent):
                stack.append([kind is MappingStartEvent and not event.flow_style, False])
            elif kind in (MappingEndEvent, SequenceEndEvent):
                stack.pop()
            yield event

    return marked(YAML(typ="safe", pure=True).parse(text)).__next__


def _after_colon(text: str, key: Any) -> Mark | None:
    """Where libyaml marks the empty value of a block mapping key: just past its ':' (ruamel's
    parser marks it at the next token)."""
    if key is None or key.end_mark is None:
        return None
    at = key.end_mark.index
    while at < len(text) and text[at] in " \t":
        at += 1
    if text[at : at + 1] != ":":
        return None
    return Mark(key.end_mark.line, key.end_mark.column + at - key.end_mark.index + 1)


@functools.cache
def _builder(resolution: Resolution, max_depth: int | None) -> Callable[[Any, Callable[[], Any], int], Any]:
    """The data builder for one resolution and depth bound: the hot loop of lint, so the
    resolution's parts are bound once and scalars resolved inline; tags are read from ``ctag``
    (``tag`` is a property)."""
    hinted, resolve, plain_key = resolution.hinted, resolution.scalar, resolution.key
    deepest = -1 if max_depth is None else max_depth

    def scalar(event: Any) -> Any:
        if event.ctag is not None or event.anchor is not None:
            raise Fallback
        value = event.value
        if event.implicit[0] and (not value or value[0] in hinted):
            return resolve(value)
        return value

    def data(event: Any, get: Callable[[], Any], depth: int) -> Any:
        kind = type(event)
        if kind is ScalarEvent:
            return scalar(event)
        if kind is not MappingStartEvent and kind is not SequenceStartEvent:
            raise Fallback  # aliases
        if depth == deepest:
            raise TooDeep(event.start_mark.line, event.start_mark.column)
        if event.ctag is not None or event.anchor is not None:
            raise Fallback
        if kind is MappingStartEvent:
            out: dict[Any, Any] = {}
            while True:
                key_event = get()
                if type(key_event) is not ScalarEvent:
                    if type(key_event) in _NODE_STARTS:
                        raise Fallback  # complex keys
                    return out
                if key_event.ctag is not None or key_event.anchor is not None:
                    raise Fallback
                key = key_event.value
                if key_event.implicit[0] and (not key or key[0] in hinted):
                    key = plain_key(key)
                if key == "<<" or key in out:
                    raise Fallback  # merge keys; duplicate keys (reported by ruamel)
                value_event = get()
                if type(value_event) is ScalarEvent:
                    if value_event.ctag is not None or value_event.anchor is not None:
                        raise Fallback
                    value = value_event.value
                    if value_event.implicit[0] and (not value or value[0] in hinted):
                        value = resolve(value)
                    out[key] = value
                else:
                    out[key] = data(value_event, get, depth + 1)
        items: list[Any] = []
        while True:
            item_event = get()
            item_kind = type(item_event)
            if item_kind is ScalarEvent:
                items.append(scalar(item_event))
            elif item_kind in _NODE_STARTS:
                items.append(data(item_event, get, depth + 1))
            else:
                return items

    return data


def _located(get: Callable[[], Any], resolution: Resolution) -> tuple[Any, Any]:
    root = _document_root(get)
    if root is None:
        return None, None  # an empty text, which ``load`` reads as None
    where = _where(root, get, resolution)
    _document_end(get)
    return root, where


def _where(event: Any, get: Callable[[], Any], resolution: Resolution) -> Any:
    """The position map of the node ``event`` starts; ``Fallback`` where ``load`` raises it (a
    tag, an anchor, an alias, a complex, merge or repeated key): locate refuses what load
    refuses."""
    kind = type(event)
    if kind is AliasEvent or event.ctag is not None or event.anchor is not None:
        raise Fallback
    if kind is MappingStartEvent:
        where: dict[Any, tuple[Any, Any, Any]] = {}
        while True:
            key_event = get()
            if type(key_event) is not ScalarEvent:
                if type(key_event) in _NODE_STARTS:
                    raise Fallback
                return where
            if key_event.ctag is not None or key_event.anchor is not None:
                raise Fallback
            key = key_event.value
            if key_event.implicit[0] and (not key or key[0] in resolution.hinted):
                key = resolution.key(key)
            if key == "<<" or key in where:
                raise Fallback
            value_event = get()
            where[key] = (key_event, value_event, _where(value_event, get, resolution))
    if kind is SequenceStartEvent:
        items: list[tuple[Any, Any]] = []
        while True:
            item_event = get()
            if type(item_event) is SequenceEndEvent:
                return items
            items.append((item_event, _where(item_event, get, resolution)))
    return None
