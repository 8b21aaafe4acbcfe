"""What the API server does to a custom resource before it validates it: prune ``null``s, fill defaults.

For structural CRD schemas the API server drops a ``null`` given for a field whose schema is
not ``nullable``, then applies ``default``s to fields that are absent, and only then validates
(so ``required`` is checked with the defaults in place). Kubernetes docs, "Defaulting and
Nullable" and "Defaulting" under Extend Kubernetes › Custom Resources › CustomResourceDefinitions:
https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting-and-nullable
(implementation: k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go and
prunenulls.go). ``schemas import`` turns ``nullable: true`` into a type list with ``"null"``,
which is what "nullable" means here.
"""

from __future__ import annotations

import copy


def admits_null(schema: object) -> bool:
    """Whether the (imported) schema declares ``null`` allowed: ``nullable`` in the CRD."""
    if not isinstance(schema, dict):
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(admits_null(option) for option in schema.get("oneOf", []) + schema.get("anyOf", []))


def apply(schema: dict, obj: object) -> object:
    """``obj`` as the API server validates it: a new value when anything was pruned or defaulted."""
    return _walk(schema, obj)


def _walk(schema: object, value: object) -> object:
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        out = None
        for key, item in value.items():
            sub = props.get(key, extra if isinstance(extra, dict) else None)
            if sub is None:
                continue
            if item is None and not admits_null(sub):
                out = out if out is not None else dict(value)
                del out[key]
                continue
            new = _walk(sub, item)
            if new is not item:
                out = out if out is not None else dict(value)
                out[key] = new
        current = out if out is not None else value
        for key, sub in props.items():
            if isinstance(sub, dict) and "default" in sub and key not in current:
                out = out if out is not None else dict(value)
                # defaults are themselves defaulted (the API server walks the result)
                out[key] = _walk(sub, copy.deepcopy(sub["default"]))
                current = out
        return out if out is not None else value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        items = [_walk(schema["items"], item) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value
