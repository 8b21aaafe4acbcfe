"""The ``gitops`` block: settings of one engine used with the other, and paths that are not the
cluster's own tree.

``gitops.path`` is where the engine reads this cluster's tree in the repository. Render writes
it to ``rendered/<name>`` of the project, so the path is that, or that under the folder the
project sits in within the repository (``platform/rendered/<name>``): any other path points
the engine at another cluster's tree (it would apply that cluster's NodePools, quotas and
policies here) or at nothing. Each cluster's path then ends in its own unique name, so no two
clusters of the fleet share one; a change of path is a danger of the review (``sync``).

Where the project is in a git work tree, the folder is known: the path is
``<the project's folder in the repository>/rendered/<name>`` (``git rev-parse --show-prefix``),
and any other (the default ``rendered/<name>`` of a project in a subfolder among them) names a
tree the engine does not find, or another project's (``repository``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from generator import git
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
    elif isinstance(path, str):
        own = f"rendered/{spec['name']}"
        if path != own and not path.endswith("/" + own):
            parts = path.split("/")
            other = parts[-1] if len(parts) >= 2 and parts[-2] == "rendered" else None
            where = f"cluster {other}'s tree" if other else "no tree gpu-gitops renders"
            yield doc.error(
                f"gitops.path {path!r} points the engine at {where}, not at this cluster's {own}",
                ("gitops", "path"),
                f"write {own} (or <the project's folder in the repository>/{own}), or remove gitops.path",
                at_value=True,
            )


def repository(spec: dict, doc: Located, root: Path) -> Iterator[InputError]:
    """``gitops.path`` against the project's folder in its git work tree (nothing outside one)."""
    path, own = spec["gitops"]["path"], f"rendered/{spec['name']}"
    if path != own and not path.endswith("/" + own):
        return  # ``check`` reports it
    folder = git.prefix(root)
    if folder is None or path == folder + own:
        return
    written = "path" in (doc.data.get("gitops") or {})
    where = f"the repository's {folder.rstrip('/')}/ folder" if folder else "the top of its repository"
    yield doc.error(
        f"gitops.path {path!r}{'' if written else ' (the default)'} is not where the engine finds this "
        f"cluster's tree: the project is at {where}, so its tree is {folder + own}",
        ("gitops", "path"),
        f"set gitops.path: {folder + own}",
        at_value=written,
    )
