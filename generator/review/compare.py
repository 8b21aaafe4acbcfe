"""Two versions of a cluster's tree as object changes: added, removed, changed (with the fields),
moved to another layer or component (the engines see a delete and a create: the old sync unit
prunes it, the new one creates it), or renamed within its component (same object, same owner).

Only files whose bytes differ are parsed: a tree's unchanged files cost a hash, not a parse.
Bytes that differ but hold the same object (keys reordered, a comment) change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from generator import regex
from generator.jsonpath import dotted
from generator.review.objects import Identity, Placed, is_synced, parse

ACTIONS = ("removed", "moved", "changed", "added", "renamed")
_FIELD = regex.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


@dataclass
class FieldChange:
    path: tuple
    before: Any
    after: Any

    @property
    def dotted(self) -> str:
        """``spec.template.spec.containers[name=agent].image``: list items matched by name say so."""
        text = ""
        for part in self.path:
            if isinstance(part, str) and part.startswith("[name="):
                text += part
            elif isinstance(part, str) and not _FIELD.match(part):
                text += f"[{part}]"  # a map key that is no field name: a label, a resource name
            else:
                text += dotted((part,)) if not text or isinstance(part, int) else f".{part}"
        return text


@dataclass
class Change:
    action: str  # one of ACTIONS
    identity: Identity
    before: Placed | None = None
    after: Placed | None = None
    fields: list[FieldChange] = field(default_factory=list)

    @property
    def where(self) -> str:
        if self.action in ("moved", "renamed"):
            assert self.before and self.after
            return f"{self.before.path} → {self.after.path}"
        placed = self.after or self.before
        assert placed is not None
        return placed.path


@dataclass
class Side:
    """One version of a tree: path → blob id, and how to get the bytes of blob ids."""

    ids: dict[str, str]
    read: Callable[[list[str]], dict[str, bytes]]
    shown: str  # the tree's folder as messages name it


def compare(before: Side, after: Side) -> list[Change]:
    """The object changes from ``before`` to ``after``, in identity order."""
    old = _objects(before, {p: i for p, i in before.ids.items() if after.ids.get(p) != i})
    new = _objects(after, {p: i for p, i in after.ids.items() if before.ids.get(p) != i})
    changes = []
    for ident in sorted(old.keys() | new.keys()):
        a, b = old.get(ident), new.get(ident)
        if b is None:
            changes.append(Change("removed", ident, before=a))
        elif a is None:
            changes.append(Change("added", ident, after=b))
        else:
            fields = diff(a.obj, b.obj)
            if a.path != b.path:
                moved = (a.layer, a.component) != (b.layer, b.component)
                changes.append(Change("moved" if moved else "renamed", ident, a, b, fields))
            elif fields:
                changes.append(Change("changed", ident, a, b, fields))
    return changes


def _objects(side: Side, ids: dict[str, str]) -> dict[Identity, Placed]:
    synced = {p: i for p, i in ids.items() if is_synced(p)}
    data = side.read(sorted(set(synced.values())))
    found = {}
    for path, blob in sorted(synced.items()):
        placed = parse(path, data[blob], f"{side.shown}/{path}")
        if placed is not None:
            found[placed.identity] = placed
    return found


def diff(a: Any, b: Any, path: tuple = ()) -> list[FieldChange]:
    """The leaves that differ between two objects. Lists of named items (containers, volumes,
    env) are matched by name, so inserting one item is one change, not a shift of all."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(a.keys() | b.keys(), key=str):
            if key not in b:
                out.append(FieldChange((*path, key), a[key], None))
            elif key not in a:
                out.append(FieldChange((*path, key), None, b[key]))
            elif a[key] != b[key]:
                out += diff(a[key], b[key], (*path, key))
        return out
    if isinstance(a, list) and isinstance(b, list) and a != b:
        named_a, named_b = _by_name(a), _by_name(b)
        if named_a is not None and named_b is not None:
            out = []
            for name in sorted(named_a.keys() | named_b.keys()):
                out += diff(named_a.get(name), named_b.get(name), (*path, f"[name={name}]"))
            return out
        if len(a) == len(b):
            return [c for i, (x, y) in enumerate(zip(a, b, strict=True)) for c in diff(x, y, (*path, i))]
    return [] if a == b else [FieldChange(path, a, b)]


def _by_name(items: list) -> dict[str, Any] | None:
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    named = {i["name"]: i for i in items}
    return named if len(named) == len(items) else None
