"""Serialisation the Jsonnet library defers to Python: YAML/JSON text and content hashes.

The C++ Jsonnet engine implements ``std.manifestYamlDoc`` and ``std.manifestJsonEx`` in Jsonnet
itself; a 50-item config takes seconds to manifest. Components therefore return a marker,
``{"__gpu_gitops__": {"format": F, "value": V}}`` (built by ``k.yaml``/``k.json``/``k.hash`` in
``libsonnet/lib/k.libsonnet``), and ``loads`` replaces each marker by its text as the engine's
result is parsed, with the same canonical emitter as every rendered file.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any

from generator.errors import InputError
from generator.yamlio.emit import to_yaml_plain

MARKER = "__gpu_gitops__"


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


def loads(text: str) -> Any:
    """The engine's JSON ``text`` parsed, every marker replaced by its serialised text as its
    object is parsed (``json.loads``'s ``object_hook`` sees each object once its members are
    parsed: inner markers first), not by a walk of the whole result afterwards."""
    return json.loads(text, object_hook=_resolved)


def _resolved(value: dict) -> Any:
    if MARKER not in value:
        return value
    spec = value[MARKER]
    if len(value) != 1 or not isinstance(spec, dict) or spec.get("format") not in _FORMATS:
        raise InputError(
            f"malformed {MARKER} marker: {_canonical_json(value)[:120]}",
            hint="build it with k.yaml, k.json or k.hash from libsonnet/lib/k.libsonnet",
        )
    return _formatted(spec["format"], spec.get("value"))


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
