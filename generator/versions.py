"""Versions of what the library deploys, ``libsonnet/versions.json``: chart versions, image
tags and images, each the default of an input key, with its upstream source.

They are kept out of ``schemas/cluster.schema.json`` so a version bump changes neither the
input contract nor its reference (``docs/inputs.md``); the schema's descriptions point here and
``docs/versions.md`` is generated from this file. They are filled where schema defaults are,
after them: an input that sets the key keeps its own value.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import InputError


@dataclass(frozen=True)
class Version:
    input: str  # dotted input path, e.g. gpu.nvidia.operatorVersion
    default: str
    what: str
    source: str


def load(library: Path) -> tuple[Version, ...]:
    """The entries of a library's versions.json, read once per version of the file; a
    malformed one (in a customised library) is an input error."""
    path = library / "versions.json"
    try:
        stat = path.stat()
    except OSError as exc:
        raise _malformed(path, exc) from None
    return _parse(path, stat.st_mtime_ns, stat.st_size)


def _malformed(path: Path, exc: Exception) -> InputError:
    return InputError(f"malformed versions file: {exc}", path=str(path),
                      hint="versions.json holds {versions: [{input, default, what, source}]}")


@functools.cache
def _parse(path: Path, mtime_ns: int, size: int) -> tuple[Version, ...]:
    try:
        data = json.loads(path.read_text())
        entries = tuple(Version(e["input"], e["default"], e["what"], e["source"]) for e in data["versions"])
        if not all(isinstance(e.default, str) for e in entries):
            raise TypeError("a default must be a string")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _malformed(path, exc) from None
    return entries


def fill(spec: dict, library: Path) -> dict:
    """Set each version default whose key the input leaves out, where its parent object exists
    (as schema defaults are: a parent the schema does not default is not created)."""
    for entry in load(library):
        *parents, key = entry.input.split(".")
        node: Any = spec
        for name in parents:
            node = node.get(name) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.setdefault(key, entry.default)
    return spec
