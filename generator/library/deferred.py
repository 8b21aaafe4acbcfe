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


def resolve(value: Any) -> Any:
    """``value`` with every marker replaced by its serialised text (inner markers first).

    Containers are changed in place, not copied (``value`` is the engine's result, freshly
    parsed and owned by the caller): a cluster's objects hold ~100 markers among ~40,000
    containers, and copying them all cost more than the markers."""
    if isinstance(value, dict):
        if MARKER in value:
            spec = value[MARKER]
            if len(value) != 1 or not isinstance(spec, dict) or spec.get("format") not in _FORMATS:
                raise InputError(
                    f"malformed {MARKER} marker: {_canonical_json(value)[:120]}",
                    hint="build it with k.yaml, k.json or k.hash from libsonnet/lib/k.libsonnet",
                )
            return _FORMATS[spec["format"]](resolve(spec.get("value")))
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                done = resolve(item)
                if done is not item:
                    value[key] = done  # an existing key: the dict does not change size
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                done = resolve(item)
                if done is not item:
                    value[index] = done
    return value
