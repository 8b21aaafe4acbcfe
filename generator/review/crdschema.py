"""Where a CustomResourceDefinition's new schema accepts less than its old one, version by
version: a field removed, an enum that lost values (or a field newly held to one), a type
changed. A chart bump that does this is as dangerous as a dropped version, and shows in a
review only as some changed lines of a long CRD.

What the API server then does with custom resources already stored: a field the schema no
longer has is pruned from each object as it is read from etcd (structural schemas, KEP-2332
"Pruning for Custom Resources"; kubernetes/kubernetes#78829, "storage pruning"), so the
controller's data in it is gone; a value the new schema refuses fails every create, and every
update that touches it (CRD validation ratcheting, KEP-4008, on by default since Kubernetes
1.30, lets an unchanged value through).
"""

from __future__ import annotations

from typing import Any

PRESERVE = "x-kubernetes-preserve-unknown-fields"
SHOWN = 4  # narrowings named per CRD; the rest are counted


def narrowed(before: dict, after: dict) -> list[str]:
    """The narrowings from ``before`` to ``after`` (two CRDs), as ``<version>: <path> <what>``,
    for each version both serve."""
    old, new = _schemas(before), _schemas(after)
    found: list[str] = []
    for version in sorted(old.keys() & new.keys()):
        found += [f"{version}: {item}" for item in _walk(old[version], new[version], "")]
    return found


def _schemas(crd: dict) -> dict[str, dict]:
    out = {}
    for version in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(version, dict):
            schema = (version.get("schema") or {}).get("openAPIV3Schema")
            if isinstance(schema, dict):
                out[str(version.get("name"))] = schema
    return out


def _walk(old: Any, new: Any, path: str) -> list[str]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    shown = path or "(root)"
    found = []
    if old.get("type") and new.get("type") and old["type"] != new["type"]:
        return [f"{shown} type {old['type']} → {new['type']}"]
    if isinstance(new.get("enum"), list):
        if isinstance(old.get("enum"), list):
            lost = [v for v in old["enum"] if v not in new["enum"]]
            if lost:
                found.append(f"{shown} enum loses {', '.join(map(str, lost))}")
        else:
            found.append(f"{shown} now one of {', '.join(map(str, new['enum']))}")
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    if isinstance(old_props, dict) and isinstance(new_props, dict):
        if not new.get(PRESERVE):
            found += [f"{path}.{key} removed" for key in old_props if key not in new_props]
        for key in old_props.keys() & new_props.keys():
            found += _walk(old_props[key], new_props[key], f"{path}.{key}")
    found += _walk(old.get("items"), new.get("items"), f"{path}[]")
    found += _walk(old.get("additionalProperties"), new.get("additionalProperties"), f"{path}.*")
    return sorted(found)
