"""Shared by the GPU stack tests: object lookup in a rendered tree (the tree is conftest's
``rendered`` fixture)."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML


def load_objects(folder: Path) -> list[dict]:
    """Every object under ``folder`` (one per file, as render writes them)."""
    yaml = YAML(typ="safe")
    objects = []
    for path in sorted(folder.rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            objects.append(yaml.load(path.read_text(encoding="utf-8")))
    return objects


def find(objects: list[dict], kind: str, name: str | None = None) -> list[dict]:
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
