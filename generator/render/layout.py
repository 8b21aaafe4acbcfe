"""Lay out a cluster's objects as the files of ``rendered/<cluster>/``; nothing is written here.

Components go to their layers in ``libsonnet/registry.json`` order (components of one's own to
its ``ownLayer``), the GitOps engine's objects to a side folder, the CNI's one-time values to
``bootstrap/``. Layout (frozen: renaming files churns GitOps history)::

    rendered/<cluster>/kustomization.yaml            lists the layers, in apply order
    rendered/<cluster>/<layer>/kustomization.yaml    lists the layer's component folders
    rendered/<cluster>/<layer>/<component>/kustomization.yaml
    rendered/<cluster>/<layer>/<component>/<kind>_<name>.yaml             cluster-scoped
    rendered/<cluster>/<layer>/<component>/<kind>_<namespace>_<name>.yaml namespaced
    rendered/<cluster>/gitops/kustomization.yaml     the engine's sync objects (not in the root)
    rendered/<cluster>/gitops/<kind>_<namespace>_<name>.yaml
    rendered/<cluster>/charts/<release>/kustomization.yaml  a release's inflated objects (preview,
    rendered/<cluster>/charts/<release>/<kind>_...yaml       not in the root: nothing applies them)

``_`` cannot occur in a kind, namespace or name, so the scheme is unambiguous; two objects
that would still share a file name are an error, never a silent overwrite.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator import regex
from generator.charts.inflate import texts
from generator.errors import InputError
from generator.inputs.load import Cluster
from generator.library import jsonnet, registry
from generator.paths import Project
from generator.render import bootstrap, collisions, gitops
from generator.yamlio.emit import to_yaml_once, to_yaml_plain

MARKER = "# Rendered by gpu-gitops from clusters/{cluster}/cluster.yaml. Do not edit: run `gpu-gitops render`.\n"
KUSTOMIZATION = "kustomization.yaml"
MAX_FILE_NAME = 255  # NAME_MAX of Linux and macOS file systems, in bytes
_COMPONENT = regex.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")  # a component of one's own names a folder


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


def build_tree(
    cluster: str,
    layers: list[tuple[str, list[tuple[str, list[dict]]]]],
    side_folders: dict[str, list[dict]] | None = None,
    shared_folders: dict[str, list[dict]] | None = None,
) -> Tree:
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
    for folder, objects in (shared_folders or {}).items():
        if objects:
            _add_folder(tree, header, folder, folder, objects, shared=True)
    tree.files[KUSTOMIZATION] = _kustomization(header, layer_names)
    return tree


def _add_folder(
    tree: Tree, header: str, folder: str, component: str, objects: list[dict], shared: bool = False
) -> None:
    """One file per object plus the folder's kustomization.yaml; a file-name clash is an error.
    ``shared``: the objects are shared between clusters (inflated charts), their YAML too."""
    names: dict[str, dict] = {}
    emitted = texts(objects) if shared else [to_yaml_once(o) for o in objects]
    for obj, text in zip(objects, emitted, strict=True):
        name = object_filename(obj)
        if name in names:
            raise InputError(
                f"component {component!r} renders two objects into {folder}/{name} "
                f"({obj.get('apiVersion')} and {names[name].get('apiVersion')})",
                hint="object kinds, namespaces and names must be unique within a component; "
                "check overrides.libsonnet for a duplicated object",
            )
        names[name] = obj
        tree.files[f"{folder}/{name}"] = (header + text).encode()
        tree.placed.append(Placed(f"{folder}/{name}", obj, component))
    tree.files[f"{folder}/{KUSTOMIZATION}"] = _kustomization(header, sorted(names))


def layers_of(
    project: Project, cluster: Cluster, components: dict[str, list[dict]]
) -> list[tuple[str, list[tuple[str, list[dict]]]]]:
    """``[(layer, [(component, objects)])]`` in apply order: the registry's components in their
    layers, a cluster's own components (its ``overrides.libsonnet`` adds them) in ``ownLayer``."""
    reg = registry.load(project.libsonnet)
    own = sorted(set(components) - {c.name for c in reg.components})
    for name in own:  # added by the cluster's overrides.libsonnet; the name becomes a folder
        if not reg.own_layer or not _COMPONENT.match(name):
            written = jsonnet.find_written(cluster.overrides, [name]) if cluster.overrides else None
            line, col = written or (0, 0)
            raise InputError(
                f"invalid component name {name!r}: a component of one's own is named like a folder",
                path=project.display(cluster.overrides or cluster.folder),
                line=line,
                col=col,
                hint="use lower-case letters, digits and '-', e.g. 'team-settings'",
            )
    return [
        (
            layer,
            [(c.name, components.get(c.name, [])) for c in reg.components if c.layer == layer]
            + [(name, components[name]) for name in own if layer == reg.own_layer],
        )
        for layer in reg.layers
    ]


def lay_out(
    project: Project,
    cluster: Cluster,
    components: dict[str, list[dict]],
    charts: dict[str, list[dict]] | None = None,
    hydrated: set[str] | None = None,
    sync: list[dict] | None = None,
) -> Tree:
    """The cluster's tree: components in their layers, the GitOps engine's objects over the
    non-empty layers, the bootstrap files, and the inflated charts (``charts/<release>/``,
    folders of their own, like ``gitops/`` listed by no other kustomization; not part of the
    collision check, as no engine applies them). ``hydrated``: the components whose release is
    shipped as its chart's objects (``render.hydrate``), for the CNI's first install. ``sync``:
    the GitOps engine's objects for these layers, when they were evaluated with other clusters'
    (``cluster.gitops_many``)."""
    reg = registry.load(project.libsonnet)
    layers = layers_of(project, cluster, components)
    own = sorted(set(components) - {c.name for c in reg.components})
    if sync is None:
        sync = gitops.objects(project, cluster, layers)
    collisions.check(project, cluster, [pair for _, pairs in layers for pair in pairs] + [(gitops.FOLDER, sync)], own)
    tree = build_tree(cluster.name, layers, side_folders={gitops.FOLDER: sync}, shared_folders=charts)
    cni = next((c for c in reg.components if c.name == bootstrap.COMPONENT), None)
    applied = f"{cni.layer}/{cni.name}" if cni and cni.name in (hydrated or set()) else None
    tree.files.update(bootstrap.files(cluster.name, cluster.facts, components.get(bootstrap.COMPONENT, []), applied))
    return tree
