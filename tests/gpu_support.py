"""Shared by the GPU stack tests: object lookup in a rendered tree (the tree is conftest's
``rendered`` fixture)."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from ruamel.yaml import YAML


def load_objects(folder: Path) -> list[dict]:
    """Every object under ``folder`` (one per file, as render writes them), a copy of its own.

    Files of the same names and bytes are parsed once per process: the tests read the session's
    rendered examples hundreds of times, and parsing a cluster's tree costs thirty times what
    reading it and copying its objects do."""
    texts = [(p.name, p.read_bytes()) for p in sorted(folder.rglob("*.yaml")) if p.name != "kustomization.yaml"]
    key = hashlib.sha256(b"".join(name.encode() + b"\0" + data + b"\0" for name, data in texts)).digest()
    if key not in _PARSED:
        yaml = YAML(typ="safe")
        _PARSED[key] = pickle.dumps(
            [yaml.load(data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")) for _, data in texts]
        )
    return pickle.loads(_PARSED[key])


_PARSED: dict[bytes, bytes] = {}  # digest of a tree's names and bytes → its objects, pickled


def find(objects: list[dict], kind: str, name: str | None = None) -> list[dict]:
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
