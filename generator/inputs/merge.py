"""Layered inputs: bases, then the cluster's file, merged into one document that remembers
which file set each value.

The merge rules, the one place they are written (docs/inputs.md repeats them):

- mappings merge key by key, deeply;
- a list whose schema names a merge key (``x-gpu-gitops-merge-key``: ``nodePools`` by ``name``,
  ``workloads`` by ``namespace``) merges item by item: an item whose key matches one already
  there merges into it, deeply; any other item is appended, in the order written;
- any other list, and any scalar, replaces what was there;
- ``null`` removes the key (and what the layers before set under it): leaving it out of the
  cluster then means its default.

``Merged`` is a ``Located``: the consistency checks and the schema's errors ask it for a
position as they ask a single file, and it answers with the file and line of the layer that
set the value last, and a note with every file that set it. ``history`` is what
``gpu-gitops explain-input`` prints.

May import: generator.errors, generator.yamlio.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import InputError, InputWarning
from generator.inputs.schemaref import resolve_ref
from generator.yamlio.positions import Located

MERGE_KEY = "x-gpu-gitops-merge-key"

# (layer index, the path in that layer's own data)
Setter = tuple[int, tuple]


@dataclass
class Merged(Located):
    """The merged data of ``layers`` (bases in the order applied, the cluster's file last), with
    who set what: ``origins`` maps a path of the merged data to its setters in order,
    ``removed`` a path a ``null`` removed to the layer that removed it. ``sources`` are the
    layers' files on disk (for quoting a value as written)."""

    layers: list[Located] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    origins: dict[tuple, list[Setter]] = field(default_factory=dict)
    removed: dict[tuple, Setter] = field(default_factory=dict)

    def owner(self, json_path: tuple | list) -> Setter:
        """The layer that set the deepest existing part of ``json_path`` last, and its path there."""
        path = tuple(json_path)
        for n in range(len(path), -1, -1):
            setters = self.origins.get(path[:n])
            if setters:
                return setters[-1]
        return len(self.layers) - 1, ()

    def history(self, json_path: tuple | list) -> list[tuple[str, int, int]]:
        """Every file (and line, column) that set the value at ``json_path``, in order."""
        found = []
        for index, layer_path in self.origins.get(tuple(json_path), []):
            line, col = self.layers[index].value_position(layer_path)
            found.append((self.layers[index].path, line, col))
        return found

    def _at(self, json_path: tuple | list, at_value: bool) -> tuple[int, int]:
        index, layer_path = self.owner(json_path)
        return self.layers[index]._at(layer_path, at_value)

    def _problem(
        self, cls: type[InputError], message: str, json_path: tuple | list, hint: str, at_value: bool
    ) -> InputError:
        index, layer_path = self.owner(json_path)
        layer = self.layers[index]
        line, col = layer.value_position(layer_path) if at_value else layer.position(layer_path)
        return cls(message, path=layer.path, line=line, col=col, hint=hint, note=self.note(json_path))

    def note(self, json_path: tuple | list) -> str:
        """Which files set the value (of a cluster with bases; '' for a file on its own)."""
        if len(self.layers) < 2:
            return ""
        path = tuple(json_path)
        while path and path not in self.origins:
            path = path[:-1]
        setters = [f"{file}:{line}:{col}" for file, line, col in self.history(path)] if path else []
        chain = " → ".join(layer.path for layer in self.layers)
        return (f"set by {', then '.join(setters)}; " if setters else "") + f"layers: {chain}"

    def error(
        self, message: str, json_path: tuple | list = (), hint: str = "", *, at_value: bool = False
    ) -> InputError:
        return self._problem(InputError, message, json_path, hint, at_value)

    def warning(
        self, message: str, json_path: tuple | list = (), hint: str = "", *, at_value: bool = False
    ) -> InputWarning:
        found = self._problem(InputWarning, message, json_path, hint, at_value)
        assert isinstance(found, InputWarning)
        return found


def merge(layers: list[Located], sources: list[Path], schema: dict, drop: tuple[str, ...] = ()) -> Merged:
    """Merge ``layers`` in order by the rules above; top-level keys in ``drop`` (the contract's
    own keys) are taken from the last layer only."""
    merged = Merged(layers[-1].path, {}, layers[-1].where, list(layers), list(sources))
    merged.origins[()] = []
    for index, layer in enumerate(layers):
        data = layer.data if isinstance(layer.data, dict) else {}
        if index < len(layers) - 1:
            data = {k: v for k, v in data.items() if k not in drop}
        merged.origins[()].append((index, ()))
        _merge_mapping(merged, merged.data, data, schema, schema, (), index, ())
    return merged


def _forget(merged: Merged, path: tuple) -> None:
    """Drop what is recorded under ``path`` (not ``path`` itself): its value was replaced."""
    size = len(path)
    for known in [p for p in merged.origins if len(p) > size and p[:size] == path]:
        del merged.origins[known]


def _record(merged: Merged, value: Any, path: tuple, index: int, layer_path: tuple) -> None:
    """``value``, written by layer ``index`` at ``layer_path``, now sits at ``path``: every node in it
    was set there."""
    merged.origins.setdefault(path, []).append((index, layer_path))
    if isinstance(value, dict):
        for key, child in value.items():
            _record(merged, child, path + (key,), index, layer_path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            _record(merged, child, path + (i,), index, layer_path + (i,))


def _child(root: dict, schema: dict, key: Any) -> dict:
    """The subschema of a mapping's ``key`` or a list's items (``{}`` when the schema says nothing)."""
    schema = resolve_ref(root, schema)
    if isinstance(key, int):
        items = schema.get("items")
        return resolve_ref(root, items) if isinstance(items, dict) else {}
    sub = schema.get("properties", {}).get(key)
    if sub is None:
        extra = schema.get("additionalProperties")
        sub = extra if isinstance(extra, dict) else {}
    return resolve_ref(root, sub)


def _merge_mapping(
    merged: Merged, into: dict, over: dict, root: dict, schema: dict, path: tuple, index: int, layer_path: tuple
) -> None:
    for key, value in over.items():
        here, there = path + (key,), layer_path + (key,)
        sub = _child(root, schema, key)
        if value is None:
            if key in into:
                del into[key]
                _forget(merged, here)
                merged.origins.pop(here, None)
            merged.removed[here] = (index, there)
            continue
        merged.removed.pop(here, None)
        old = into.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merged.origins.setdefault(here, []).append((index, there))
            _merge_mapping(merged, old, value, root, sub, here, index, there)
        elif isinstance(old, list) and isinstance(value, list) and sub.get(MERGE_KEY):
            merged.origins.setdefault(here, []).append((index, there))
            _merge_named(merged, old, value, root, sub, here, index, there)
        else:
            _forget(merged, here)
            into[key] = copy.deepcopy(value)
            _record(merged, value, here, index, there)


def _merge_named(
    merged: Merged, into: list, over: list, root: dict, schema: dict, path: tuple, index: int, layer_path: tuple
) -> None:
    """Items of ``over`` merged into ``into`` by the schema's merge key. Each item of ``into``
    takes at most one item of this layer: two items of one file with the same key stay two
    (and the checks that want keys unique say so)."""
    key = schema[MERGE_KEY]
    items = _child(root, schema, 0)
    taken: set[int] = set()
    for i, item in enumerate(over):
        name = item.get(key) if isinstance(item, dict) else None
        match = next(
            (
                j
                for j, old in enumerate(into)
                if j not in taken and name is not None and isinstance(old, dict) and old.get(key) == name
            ),
            None,
        )
        if match is None:
            into.append(copy.deepcopy(item))
            taken.add(len(into) - 1)
            _record(merged, item, path + (len(into) - 1,), index, layer_path + (i,))
            continue
        taken.add(match)
        here = path + (match,)
        merged.origins.setdefault(here, []).append((index, layer_path + (i,)))
        _merge_mapping(merged, into[match], item, root, items, here, index, layer_path + (i,))
