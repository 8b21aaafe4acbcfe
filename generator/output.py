"""Lay out a cluster's objects as files and write them atomically.

Layout (frozen: renaming files churns GitOps history)::

    rendered/<cluster>/kustomization.yaml            lists the layers, in apply order
    rendered/<cluster>/<layer>/kustomization.yaml    lists the layer's component folders
    rendered/<cluster>/<layer>/<component>/kustomization.yaml
    rendered/<cluster>/<layer>/<component>/<kind>_<name>.yaml             cluster-scoped
    rendered/<cluster>/<layer>/<component>/<kind>_<namespace>_<name>.yaml namespaced
    rendered/<cluster>/gitops/kustomization.yaml     the engine's sync objects (not in the root)
    rendered/<cluster>/gitops/<kind>_<namespace>_<name>.yaml

``_`` cannot occur in a kind, namespace or name, so the scheme is unambiguous; two objects
that would still share a file name are an error, never a silent overwrite.
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from generator.emit import to_yaml, to_yaml_plain
from generator.errors import InputError

MARKER = "# Rendered by gpu-gitops from clusters/{cluster}/cluster.yaml. Do not edit: run `gpu-gitops render`.\n"
KUSTOMIZATION = "kustomization.yaml"


def object_filename(obj: dict) -> str:
    meta = obj.get("metadata", {})
    parts = [obj["kind"].lower()]
    if meta.get("namespace"):
        parts.append(meta["namespace"])
    parts.append(meta["name"])
    return "_".join(parts) + ".yaml"


def _kustomization(header: str, resources: list[str]) -> bytes:
    body = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": resources}
    return (header + to_yaml_plain(body)).encode()


@dataclass
class Placed:
    """An object and the file it goes to, for messages that name both."""

    relpath: str
    obj: dict
    component: str


@dataclass
class Tree:
    """The complete desired content of ``rendered/<cluster>/``: relative path → bytes."""

    cluster: str
    files: dict[str, bytes] = field(default_factory=dict)
    placed: list[Placed] = field(default_factory=list)


def build_tree(cluster: str, layers: list[tuple[str, list[tuple[str, list[dict]]]]],
               side_folders: dict[str, list[dict]] | None = None) -> Tree:
    """Files for ``layers`` = [(layer, [(component, objects)])], in apply order.

    Empty components and layers are left out, so kustomize never sees an empty folder.
    ``side_folders`` ({folder: objects}) adds folders
    of objects that are placed and validated like a component's, with their own
    kustomization.yaml, but not listed in the root one (e.g. ``gitops/``, the engine's own
    objects, which must not be applied by a Kustomization that points at the root).
    """
    header = MARKER.format(cluster=cluster)
    tree = Tree(cluster)
    layer_names = []
    for layer, components in layers:
        component_names = []
        for component, objects in components:
            if objects:
                _add_folder(tree, header, f"{layer}/{component}", component, objects)
                component_names.append(component)
        if component_names:
            tree.files[f"{layer}/{KUSTOMIZATION}"] = _kustomization(header, component_names)
            layer_names.append(layer)
    for folder, objects in (side_folders or {}).items():
        if objects:
            _add_folder(tree, header, folder, folder, objects)
    tree.files[KUSTOMIZATION] = _kustomization(header, layer_names)
    return tree


def _add_folder(tree: Tree, header: str, folder: str, component: str, objects: list[dict]) -> None:
    """One file per object plus the folder's kustomization.yaml; a file-name clash is an error."""
    names: dict[str, dict] = {}
    for obj in objects:
        name = object_filename(obj)
        if name in names:
            raise InputError(
                f"component {component!r} renders two objects into {folder}/{name} "
                f"({obj.get('apiVersion')} and {names[name].get('apiVersion')})",
                hint="object kinds, namespaces and names must be unique within a component; "
                "check overrides.libsonnet for a duplicated object",
            )
        names[name] = obj
        tree.files[f"{folder}/{name}"] = (header + to_yaml(obj)).encode()
        tree.placed.append(Placed(f"{folder}/{name}", obj, component))
    tree.files[f"{folder}/{KUSTOMIZATION}"] = _kustomization(header, sorted(names))


# --- reading and comparing -------------------------------------------------------------------


# Stands in for a symlink or special file found in a rendered tree: never equal to what
# render produces, so check reports it and render replaces it, without following it.
NOT_A_REGULAR_FILE = b"\0not a regular file\0"


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative POSIX path → bytes); {} if absent.

    Symlinks and special files are not followed or read (a link to /dev/zero must not hang
    check); they map to ``NOT_A_REGULAR_FILE``.
    """
    if not folder.is_dir() or folder.is_symlink():
        return {}
    found = {}
    for dirpath, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if (Path(dirpath) / d).is_symlink()]:
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            found[rel] = path.read_bytes() if stat.S_ISREG(path.lstat().st_mode) else NOT_A_REGULAR_FILE
    return found


@dataclass
class Changes:
    added: list[str]
    changed: list[str]
    removed: list[str]

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


def compare(current: dict[str, bytes], desired: dict[str, bytes]) -> Changes:
    return Changes(
        added=sorted(set(desired) - set(current)),
        changed=sorted(p for p in desired if p in current and current[p] != desired[p]),
        removed=sorted(set(current) - set(desired)),
    )


def unified_diff(prefix: str, current: dict[str, bytes], desired: dict[str, bytes]) -> str:
    """A git-style diff from the current tree to the desired one."""
    out = []
    changes = compare(current, desired)
    for rel in sorted(changes.added + changes.changed + changes.removed):
        old = current.get(rel, b"").decode(errors="replace").splitlines(keepends=True)
        new = desired.get(rel, b"").decode(errors="replace").splitlines(keepends=True)
        fromfile = f"a/{prefix}/{rel}" if rel in current else "/dev/null"
        tofile = f"b/{prefix}/{rel}" if rel in desired else "/dev/null"
        out.extend(difflib.unified_diff(old, new, fromfile, tofile))
    return "".join(out)


# --- writing ---------------------------------------------------------------------------------


def is_owned(folder: Path) -> bool:
    """A folder we may replace: absent, or a real folder with our marker on its kustomization."""
    if not folder.exists() and not folder.is_symlink():
        return True
    kustomization = folder / KUSTOMIZATION
    if folder.is_symlink() or not folder.is_dir() or not stat.S_ISREG(kustomization.lstat().st_mode
                                                                        if kustomization.exists() else 0):
        return False
    with kustomization.open("rb") as fh:
        return fh.readline().startswith(b"# Rendered by gpu-gitops")


def _scratch(rendered: Path, kind: str, cluster: str, tag: str) -> Path:
    # "." cannot occur in a cluster name, so ".old.<cluster>." never matches another cluster
    return rendered / f".{kind}.{cluster}.{tag}"


def recover(rendered: Path, cluster: str) -> None:
    """Undo a render that was interrupted between its two renames; drop stale temp trees."""
    target = rendered / cluster
    if not rendered.is_dir():
        return
    olds = sorted(rendered.glob(f".old.{cluster}.*"), key=lambda p: p.stat().st_mtime_ns)
    if olds and not target.exists():
        olds[-1].rename(target)
        olds = olds[:-1]
    for stale in olds + sorted(rendered.glob(f".tmp.{cluster}.*")):
        shutil.rmtree(stale, ignore_errors=True)


def write_tree(rendered: Path, tree: Tree, shown: str | None = None) -> Changes:
    """Make ``rendered/<cluster>`` exactly ``tree``; unchanged files keep bytes and mtime.

    The new tree is built in a temporary sibling and swapped in with two renames; if the
    process dies in between, ``recover`` (run first on the next render) restores the old tree.
    ``shown`` is how the target is named in messages.
    """
    target = rendered / tree.cluster
    recover(rendered, tree.cluster)
    if not is_owned(target):
        raise InputError(
            "exists but was not written by gpu-gitops; refusing to replace it",
            path=shown or str(target),
            hint="move it away, or delete it if it is an old render",
        )
    current = read_tree(target)
    changes = compare(current, tree.files)
    if changes.empty:
        return changes
    rendered.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex[:8]
    staging = _scratch(rendered, "tmp", tree.cluster, tag)
    try:
        for rel, content in sorted(tree.files.items()):
            dest = staging / rel
            if not dest.resolve().is_relative_to(staging.resolve()):
                raise InputError(f"refusing to write {rel!r}: it leaves the cluster's folder", path=shown or str(target))
            dest.parent.mkdir(parents=True, exist_ok=True)
            if current.get(rel) == content:
                shutil.copy2(target / rel, dest)  # keeps the old mtime
            else:
                dest.write_bytes(content)
        if target.exists():
            old = _scratch(rendered, "old", tree.cluster, tag)
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old)
        else:
            staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return changes
