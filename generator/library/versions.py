"""Versions of what the library deploys, ``libsonnet/versions.json``, each with its upstream
source: chart versions and image tags that are defaults of input keys (``versions``), and the
images (``images``) and image repositories (``repositories``) the components render with.

They are kept out of ``schemas/cluster.schema.json`` so a version bump changes neither the
input contract nor its reference (``docs/inputs.md``); the schema's descriptions point here and
``docs/versions.md`` is generated from this file. Input defaults are filled where schema
defaults are, after them: an input that sets the key keeps its own value. The components
import the file for their images.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.library import tables


@dataclass(frozen=True)
class Version:
    input: str  # dotted input path, e.g. gpu.nvidia.operatorVersion
    default: str
    what: str
    source: str


@dataclass(frozen=True)
class Image:
    name: str  # the key components look it up by (versions.images.<name>.image)
    image: str
    what: str
    source: str


@dataclass(frozen=True)
class Repository:
    name: str  # versions.repositories.<name>.repository
    repository: str
    tag: str  # the input key (a `versions` entry) that tags it
    what: str
    source: str


@dataclass(frozen=True)
class Versions:
    inputs: tuple[Version, ...]
    images: tuple[Image, ...]
    repositories: tuple[Repository, ...]


def load(library: Path) -> Versions:
    """The entries of a library's versions.json, read once per version of the file; a
    malformed one (in a customised library) is an input error."""
    return tables.load(library / "versions.json", _versions, "versions file", SHAPE)


SHAPE = (
    "{versions: [{input, default, what, source}], images: {name: {image, what, source}}, "
    "repositories: {name: {repository, tag, what, source}}}"
)


def _versions(data: Any) -> Versions:
    inputs = tuple(Version(e["input"], e["default"], e["what"], e["source"]) for e in data["versions"])
    if not all(isinstance(e.default, str) for e in inputs):
        raise TypeError("a default must be a string")
    images = tuple(Image(name, e["image"], e["what"], e["source"]) for name, e in data["images"].items())
    repositories = tuple(
        Repository(name, e["repository"], e["tag"], e["what"], e["source"]) for name, e in data["repositories"].items()
    )
    untagged = [r.name for r in repositories if r.tag not in {v.input for v in inputs}]
    if untagged:
        raise ValueError(f"repositories whose tag is no versions entry: {', '.join(untagged)}")
    return Versions(inputs, images, repositories)


def fill(spec: dict, library: Path) -> dict:
    """Set each version default whose key the input leaves out, where its parent object exists
    (as schema defaults are: a parent the schema does not default is not created)."""
    for entry in load(library).inputs:
        *parents, key = entry.input.split(".")
        node: Any = spec
        for name in parents:
            node = node.get(name) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.setdefault(key, entry.default)
    return spec
