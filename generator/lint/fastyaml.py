"""Build plain data straight from libyaml's parser events, for the documents manifests are made of.

ruamel's safe loader spends most of its time in Python: composing nodes, resolving every
scalar's tag and constructing. Manifests use a small part of YAML, so this builder reads the
C parser's events and resolves plain scalars with a few cheap tests. Anything outside that
part (anchors, aliases, explicit tags, floats and other number forms, duplicate keys, more
than one document) raises ``Fallback`` and the caller loads the document with ruamel, which
also produces the error messages. The test suite checks both give the same data.
"""

from __future__ import annotations

import functools
import re

from _ruamel_yaml import CParser
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)


class Fallback(Exception):
    """The document needs the full loader."""


_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ].*)?")
_STR = "tag:yaml.org,2002:str"
_RESOLVER = VersionedResolver(version=(1, 2))


def _scalar(event: ScalarEvent):
    if event.tag is not None or event.anchor is not None:
        raise Fallback
    value = event.value
    if not event.implicit[0]:  # quoted or block: a string
        return value
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.fullmatch(value):
        return int(value)
    if value[0] in "+-.0123456789":
        if _TIMESTAMP.fullmatch(value):
            return value  # timestamps stay strings, as in the JSON the API server gets
        if not _is_string(value):
            raise Fallback
    return value


@functools.lru_cache(maxsize=65536)
def _is_string(value: str) -> bool:
    """500m and 1Gi are strings; 1.5, 1e3, 0x1F and .inf are numbers ruamel builds (cached:
    quantities and versions repeat across manifests)."""
    return str(_RESOLVER.resolve(ScalarNode, value, (True, False))) == _STR


def load(text: str):
    """The one document in ``text`` (None when empty); raises Fallback or the parser's YAMLError."""
    parser = CParser(text)
    get = parser.get_event
    if not isinstance(get(), StreamStartEvent):
        raise Fallback
    event = get()
    if isinstance(event, StreamEndEvent):
        return None
    if not isinstance(event, DocumentStartEvent):
        raise Fallback
    data = _node(get(), get)
    if not isinstance(get(), DocumentEndEvent) or not isinstance(get(), StreamEndEvent):
        raise Fallback
    return data


def _node(event, get):
    kind = type(event)
    if kind is ScalarEvent:
        return _scalar(event)
    if kind is MappingStartEvent:
        if event.tag is not None or event.anchor is not None:
            raise Fallback
        out = {}
        while True:
            key_event = get()
            key_kind = type(key_event)
            if key_kind is not ScalarEvent:
                if key_kind in _NODE_STARTS:
                    raise Fallback  # complex keys
                return out
            key = _scalar(key_event)
            if key in out or key == "<<":
                raise Fallback  # duplicate keys (reported by ruamel) and merge keys
            value_event = get()
            out[key] = _scalar(value_event) if type(value_event) is ScalarEvent else _node(value_event, get)
    if kind is SequenceStartEvent:
        if event.tag is not None or event.anchor is not None:
            raise Fallback
        items = []
        while True:
            item_event = get()
            item_kind = type(item_event)
            if item_kind is ScalarEvent:
                items.append(_scalar(item_event))
            elif item_kind in _NODE_STARTS:
                items.append(_node(item_event, get))
            else:
                return items
    raise Fallback  # aliases


_NODE_STARTS = (MappingStartEvent, SequenceStartEvent, AliasEvent)
