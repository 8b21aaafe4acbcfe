"""Serialisation the Jsonnet library defers to Python: YAML/JSON text and content hashes.

The C++ Jsonnet engine implements ``std.manifestYamlDoc`` and ``std.manifestJsonEx`` in Jsonnet
itself; a 50-item config takes seconds to manifest. Components therefore return a marker,
``{"__gpu_gitops__": {"format": F, "value": V}}`` (built by ``k.yaml``/``k.json``/``k.hash`` in
``libsonnet/lib/k.libsonnet``), and ``resolve`` replaces each marker by its text after
evaluation, with the same canonical emitter as every rendered file.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any

from generator.errors import InputError
from generator.yamlio.emit import to_yaml_plain

MARKER = "__gpu_gitops__"
_NEEDLE = MARKER.encode()


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


_FORMATS = {
    "yaml": lambda v: to_yaml_plain(_sorted(v)),
    "json": lambda v: json.dumps(v, sort_keys=True, indent=2, ensure_ascii=False) + "\n",
    "sha256": lambda v: hashlib.sha256(_canonical_json(v).encode()).hexdigest(),
}


def resolve(value: Any) -> Any:
    """``value`` with every marker replaced by its serialised text (inner markers first).

    Containers are changed in place, not copied (``value`` is the engine's result, freshly
    parsed and owned by the caller): a cluster's objects hold ~100 markers among ~40,000
    containers, and copying them all cost more than the markers. Only the containers that may
    hold a marker are walked (``_screened``): about one object in eight does."""
    return _resolve(value, _SCREEN_DEPTH)


# The engine's result is {component: [objects]}: each object (two levels down) is screened with
# its marshalled bytes, in which a marker's key appears as written (marshal writes a string's
# bytes at its first occurrence). Marshalling an object costs about a fifth of walking it.
_SCREEN_DEPTH = 2


def _screened(item: Any, depth: int) -> bool:
    """Whether ``item``, ``depth`` levels below the result, is to be walked: not when it is an
    object whose bytes cannot hold a marker."""
    if depth:
        return True
    try:
        return _NEEDLE in marshal.dumps(item)
    except ValueError:  # a type marshal does not write, or nesting too deep for it: walk it
        return True


def _resolve(value: Any, depth: int) -> Any:
    if isinstance(value, dict):
        if MARKER in value:
            spec = value[MARKER]
            if len(value) != 1 or not isinstance(spec, dict) or spec.get("format") not in _FORMATS:
                raise InputError(
                    f"malformed {MARKER} marker: {_canonical_json(value)[:120]}",
                    hint="build it with k.yaml, k.json or k.hash from libsonnet/lib/k.libsonnet",
                )
            return _formatted(spec["format"], _resolve(spec.get("value"), -1))
        for key, item in value.items():
            if isinstance(item, (dict, list)) and _screened(item, depth - 1):
                done = _resolve(item, depth - 1)
                if done is not item:
                    value[key] = done  # an existing key: the dict does not change size
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)) and _screened(item, depth - 1):
                done = _resolve(item, depth - 1)
                if done is not item:
                    value[index] = done
    return value


# A fleet's clusters defer many values alike (a platform's configuration, hashed and written in
# every cluster): each text is made once, by the digest of the value's marshalled bytes, which
# read back as the same value, types included (True is not 1, 1.0 is not 1), so the same digest
# is the same text. Bounded: emptied when full.
_TEXTS: dict[tuple[str, bytes], str] = {}
_TEXTS_MAX = 4096


def _formatted(form: str, value: Any) -> str:
    try:
        key = (form, hashlib.blake2b(marshal.dumps(value), digest_size=16).digest())
    except ValueError:
        return _FORMATS[form](value)
    text = _TEXTS.get(key)
    if text is None:
        if len(_TEXTS) >= _TEXTS_MAX:
            _TEXTS.clear()
        text = _TEXTS[key] = _FORMATS[form](value)
    return text
