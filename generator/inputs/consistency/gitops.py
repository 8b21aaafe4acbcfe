"""The ``gitops`` block: settings of one engine used with the other, and unusable paths."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlio.positions import Located

# Settings that only one engine reads; given for the other, they would be silently ignored.
_ENGINE_ONLY = {"sourceName": "flux", "project": "argocd", "interval": "flux"}


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    gitops = spec["gitops"]
    written = doc.data.get("gitops") or {}
    for key, engine in _ENGINE_ONLY.items():
        if key in written and gitops["engine"] != engine:
            yield doc.error(
                f"gitops.{key} is only used with engine {engine}, but gitops.engine is {gitops['engine']}",
                ("gitops", key),
                f"remove gitops.{key}, or set gitops.engine: {engine}",
            )
    path = written.get("path")
    if isinstance(path, str) and (path.endswith("/") or any(part in ("", ".", "..") for part in path.split("/"))):
        yield doc.error(
            f"gitops.path {path!r} is not a plain repository path",
            ("gitops", "path"),
            "write it relative to the repository root without '.', '..', '//' or a trailing '/', "
            "e.g. rendered/my-cluster",
            at_value=True,
        )
